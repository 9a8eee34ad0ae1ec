// Adaptive threshold (docs/algorithms.md 4.3): 1 where the stage's input exceeds its local Gaussian
// mean less the offset, strictly, else 0, written over the mean (each invocation reads its own
// texel before it writes it): no plane of its own.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform highp sampler2D src;  // the stage's input
layout(r32f, binding = 0) uniform highp image2D mean;  // its local mean, in: the result, out
uniform highp float offset;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(src, 0);
    if (p.x >= size.x || p.y >= size.y) return;
    highp float v = texelFetch(src, p, 0).r > imageLoad(mean, p).r - offset ? 1.0 : 0.0;
    imageStore(mean, p, vec4(v, 0.0, 0.0, 0.0));
}
