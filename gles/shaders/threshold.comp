// Adaptive threshold (ALGORITHMS.md 4.3): 1 where the stage's input exceeds its local Gaussian
// mean less the offset, strictly, else 0.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform highp sampler2D src;   // the stage's input
layout(binding = 1) uniform highp sampler2D mean;  // its local mean
layout(r32f, binding = 0) writeonly uniform highp image2D dst;
uniform highp float offset;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(src, 0);
    if (p.x >= size.x || p.y >= size.y) return;
    highp float v = texelFetch(src, p, 0).r > texelFetch(mean, p, 0).r - offset ? 1.0 : 0.0;
    imageStore(dst, p, vec4(v, 0.0, 0.0, 0.0));
}
