// First pass of the compute backend: 8-bit luma (an R8 texture) to the unit range in an R32F
// image (ALGORITHMS.md 0). texelFetch of an R8 UNORM texture returns value / 255 by definition of
// normalized fixed-point conversion. One invocation per pixel.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform highp sampler2D luma;
layout(r32f, binding = 0) writeonly uniform highp image2D unit;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(luma, 0);
    if (p.x >= size.x || p.y >= size.y) return;
    imageStore(unit, p, vec4(texelFetch(luma, p, 0).r, 0.0, 0.0, 0.0));
}
