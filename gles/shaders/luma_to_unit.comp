// First pass of the compute backend: 8-bit luma (an R8 texture) to the unit range in an R32F
// image (ALGORITHMS.md 0). The 8-bit code is recovered exactly from the normalized fetch and
// looked up in a table of float(code / 255) made on the host, so the GPU's unit values are the
// reference's to the last bit (a shader division need not round correctly). One invocation per
// pixel.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform highp sampler2D luma;
layout(r32f, binding = 0) writeonly uniform highp image2D unit;
layout(std430, binding = 0) readonly buffer Table { highp float unitOf[256]; };

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(luma, 0);
    if (p.x >= size.x || p.y >= size.y) return;
    int code = int(texelFetch(luma, p, 0).r * 255.0 + 0.5);
    imageStore(unit, p, vec4(unitOf[code], 0.0, 0.0, 0.0));
}
