// The Gabor stage's output from the complex response (docs/algorithms.md 3.1, 3.4): with REMOVE_DC the
// K_x K_y-weighted Gaussian is subtracted first. SINK 0 magnitude, 1 real, 2 imaginary, 3 phase,
// 4 complex (magnitude out, the DC-free parts kept), 5 bank maximum of magnitudes, 6 edge bank
// (maximum and the winner's NMS sector). Banks keep the first of near-equal maxima (kTieTolerance).
// Its image units are recursive_line.comp's TAIL's: the output 2, the sector 3 (the planner binds
// both alike). A recursive vertical pass runs SINK 0, 5 and 6 itself.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform highp sampler2D re;
layout(binding = 1) uniform highp sampler2D im;
#if REMOVE_DC
layout(binding = 2) uniform highp sampler2D gauss;
uniform highp float dcGain;
#endif
#if SINK >= 5
layout(r32f, binding = 2) uniform highp image2D dst;
uniform bool first;
#else
layout(r32f, binding = 2) writeonly uniform highp image2D dst;
#endif
#if SINK == 4
layout(r32f, binding = 0) writeonly uniform highp image2D keptRe;
layout(r32f, binding = 1) writeonly uniform highp image2D keptIm;
#endif
#if SINK == 6
layout(r32ui, binding = 3) writeonly uniform highp uimage2D sector;
uniform uint orientationSector;
#endif

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(re, 0);
    if (p.x >= size.x || p.y >= size.y) return;
    highp vec2 z = vec2(texelFetch(re, p, 0).r, texelFetch(im, p, 0).r);
#if REMOVE_DC
    z.x -= dcGain * texelFetch(gauss, p, 0).r;
#endif
    highp float magnitude = sqrt(z.x * z.x + z.y * z.y);
#if SINK == 0
    highp float v = magnitude;
#elif SINK == 1
    highp float v = z.x;
#elif SINK == 2
    highp float v = z.y;
#elif SINK == 3
    highp float v = (z.x == 0.0 && z.y == 0.0) ? 0.0 : atan(z.y, z.x);
#elif SINK == 4
    highp float v = magnitude;
    imageStore(keptRe, p, vec4(z.x, 0.0, 0.0, 0.0));
    imageStore(keptIm, p, vec4(z.y, 0.0, 0.0, 0.0));
#else
    highp float v = magnitude;
    if (!first && !(magnitude > imageLoad(dst, p).r * (1.0 + TIE))) return;
#if SINK == 6
    imageStore(sector, p, uvec4(orientationSector, 0u, 0u, 0u));
#endif
#endif
    imageStore(dst, p, vec4(v, 0.0, 0.0, 0.0));
}
