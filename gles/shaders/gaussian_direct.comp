// Direct Gaussian along one axis (AXIS 0: x, 1: y) with incremental taps (docs/algorithms.md 2.1,
// after Turkowski): the weights come from forward quotients, one multiply per tap and no table,
// and the weight sum is accumulated alongside so one division gives unit DC gain. Replicate
// borders by clamping the fetch coordinates. One invocation per output pixel.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform highp sampler2D src;  // R32F, unit range
layout(r32f, binding = 0) writeonly uniform highp image2D dst;
uniform highp float sigma;
// RADIUS (ceil(4 sigma)) is the program's: a loop of known trips, which the compiler unrolls
// (v3d reports 0 loops), so its instruction count is what an invocation runs (docs/boards.md).

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(src, 0);
    if (p.x >= size.x || p.y >= size.y) return;
#if AXIS == 0
    ivec2 step = ivec2(1, 0);
#else
    ivec2 step = ivec2(0, 1);
#endif
    ivec2 last = size - 1;
    // g.x = exp(-i^2 / (2 sigma^2)) after i steps; g.y and g.z carry the quotients.
    highp vec3 g = vec3(1.0, exp(-0.5 / (sigma * sigma)), 0.0);
    g.z = g.y * g.y;
    highp float sum = texelFetch(src, p, 0).r;
    highp float weight = 1.0;
    for (int i = 1; i <= RADIUS; ++i) {
        g.xy *= g.yz;
        highp float a = texelFetch(src, clamp(p - i * step, ivec2(0), last), 0).r;
        highp float b = texelFetch(src, clamp(p + i * step, ivec2(0), last), 0).r;
        sum += g.x * (a + b);
        weight += 2.0 * g.x;
    }
    imageStore(dst, p, vec4(sum / weight, 0.0, 0.0, 0.0));
}
