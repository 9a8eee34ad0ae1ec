// Direct Gabor along one axis (AXIS 0: x, 1: y): convolution with the sampled complex kernel
// g(t) exp(i w t), t = -R..R (docs/algorithms.md 3.1), replicate borders by clamping. The taps come as
// taps[k] = (c_k, s_k) = g(k) (cos w k, sin w k) for k = 0..R, and each pair of samples at -/+k
// is summed first, in the order of the cpu backend (cpu/neon/lines.cpp), so both round alike.
// COMPLEX_IN reads an imaginary input plane (the vertical pass). One invocation per pixel.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform highp sampler2D srcRe;
#if COMPLEX_IN
layout(binding = 1) uniform highp sampler2D srcIm;
#endif
layout(r32f, binding = 0) writeonly uniform highp image2D dstRe;
layout(r32f, binding = 1) writeonly uniform highp image2D dstIm;
layout(std430, binding = 0) readonly buffer Taps { highp vec2 taps[]; };
// RADIUS is the program's: a loop of known trips (see gaussian_direct.comp).

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(srcRe, 0);
    if (p.x >= size.x || p.y >= size.y) return;
#if AXIS == 0
    ivec2 step = ivec2(1, 0);
#else
    ivec2 step = ivec2(0, 1);
#endif
    ivec2 last = size - 1;
    highp float c0 = taps[0].x;
    highp float accR = texelFetch(srcRe, p, 0).r * c0;
#if COMPLEX_IN
    highp float accI = texelFetch(srcIm, p, 0).r * c0;
#else
    highp float accI = 0.0;
#endif
    for (int k = 1; k <= RADIUS; ++k) {
        ivec2 a = clamp(p - k * step, ivec2(0), last), b = clamp(p + k * step, ivec2(0), last);
        highp vec2 t = taps[k];
        highp float ra = texelFetch(srcRe, a, 0).r, rb = texelFetch(srcRe, b, 0).r;
#if COMPLEX_IN
        highp float ja = texelFetch(srcIm, a, 0).r, jb = texelFetch(srcIm, b, 0).r;
        accR = accR + (ra + rb) * t.x;
        accR = accR - (ja - jb) * t.y;
        accI = accI + (ja + jb) * t.x;
        accI = accI + (ra - rb) * t.y;
#else
        accR = accR + (ra + rb) * t.x;
        accI = accI + (ra - rb) * t.y;
#endif
    }
    imageStore(dstRe, p, vec4(accR, 0.0, 0.0, 0.0));
    imageStore(dstIm, p, vec4(accI, 0.0, 0.0, 0.0));
}
