// The Gabor stage's output from the complex response (docs/algorithms.md 3.1, 3.4): with REMOVE_DC the
// K_x K_y-weighted Gaussian is subtracted first. SINK (core/plan.h's kGaborSinks, defined by the
// planner: gles/program_cache.h, enumDefines): SINK_MAGNITUDE, SINK_REAL, SINK_IMAGINARY,
// SINK_PHASE, SINK_COMPLEX (magnitude out, the DC-free parts kept), SINK_MAX_MAGNITUDE (a bank's
// maximum of magnitudes), SINK_MAX_ENERGY (an edge bank's: the maximum and the winner's NMS
// sector). Banks keep the first of near-equal maxima (kTieTolerance). Its image units are
// recursive_line.comp's TAIL's: the output 2, the sector 3 (the planner binds both alike). A
// recursive vertical pass runs the magnitude and both bank sinks itself.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform highp sampler2D re;
layout(binding = 1) uniform highp sampler2D im;
#if REMOVE_DC
layout(binding = 2) uniform highp sampler2D gauss;
uniform highp float dcGain;
#endif
#if SINK == SINK_MAX_MAGNITUDE || SINK == SINK_MAX_ENERGY
layout(r32f, binding = 2) uniform highp image2D dst;
uniform bool first;
#else
layout(r32f, binding = 2) writeonly uniform highp image2D dst;
#endif
#if SINK == SINK_COMPLEX
layout(r32f, binding = 0) writeonly uniform highp image2D keptRe;
layout(r32f, binding = 1) writeonly uniform highp image2D keptIm;
#endif
#if SINK == SINK_MAX_ENERGY
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
#if SINK == SINK_MAGNITUDE
    highp float v = magnitude;
#elif SINK == SINK_REAL
    highp float v = z.x;
#elif SINK == SINK_IMAGINARY
    highp float v = z.y;
#elif SINK == SINK_PHASE
    highp float v = (z.x == 0.0 && z.y == 0.0) ? 0.0 : atan(z.y, z.x);
#elif SINK == SINK_COMPLEX
    highp float v = magnitude;
    imageStore(keptRe, p, vec4(z.x, 0.0, 0.0, 0.0));
    imageStore(keptIm, p, vec4(z.y, 0.0, 0.0, 0.0));
#else
    highp float v = magnitude;
    if (!first && !(magnitude > imageLoad(dst, p).r * (1.0 + TIE))) return;
#if SINK == SINK_MAX_ENERGY
    imageStore(sector, p, uvec4(orientationSector, 0u, 0u, 0u));
#endif
#endif
    imageStore(dst, p, vec4(v, 0.0, 0.0, 0.0));
}
