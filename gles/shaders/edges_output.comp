// The edges stage's output (docs/design.md): OUTPUT_EDGES (1 where hysteresis kept a pixel, else 0),
// OUTPUT_STRENGTH, OUTPUT_OVERLAY (1 on edges, the stage's input elsewhere); the planner defines
// them from core/spec.h's kEdgeOutputs (gles/program_cache.h, enumDefines). Classes 2 and 3 are
// edges.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform highp usampler2D classes;
layout(binding = 1) uniform highp sampler2D other;  // the strength, or the stage's input (overlay)
layout(r32f, binding = 0) writeonly uniform highp image2D dst;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(classes, 0);
    if (p.x >= size.x || p.y >= size.y) return;
#if OUTPUT == OUTPUT_STRENGTH
    highp float v = texelFetch(other, p, 0).r;
#else
    bool edge = texelFetch(classes, p, 0).r >= 2u;
#if OUTPUT == OUTPUT_EDGES
    highp float v = edge ? 1.0 : 0.0;
#else
    highp float v = edge ? 1.0 : texelFetch(other, p, 0).r;
#endif
#endif
    imageStore(dst, p, vec4(v, 0.0, 0.0, 0.0));
}
