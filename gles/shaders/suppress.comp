// Non-maximum suppression and double threshold (docs/algorithms.md 4.1, 4.2): a pixel is a maximum
// when clearly greater than the neighbour before it along its sector and not clearly less than the
// one after (kTieTolerance), then 0 none, 1 weak, 2 strong. Replicate borders.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform highp sampler2D strength;
layout(binding = 1) uniform highp usampler2D sector;
layout(r32ui, binding = 0) writeonly uniform highp uimage2D classes;
uniform highp float low;
uniform highp float high;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(strength, 0);
    if (p.x >= size.x || p.y >= size.y) return;
    ivec2 last = size - 1;
    uint s = texelFetch(sector, p, 0).r;
    ivec2 step = s == 0u ? ivec2(1, 0) : s == 1u ? ivec2(1, 1) : s == 2u ? ivec2(0, 1) : ivec2(-1, 1);
    highp float v = texelFetch(strength, p, 0).r;
    highp float before = texelFetch(strength, clamp(p - step, ivec2(0), last), 0).r;
    highp float after = texelFetch(strength, clamp(p + step, ivec2(0), last), 0).r;
    bool isMax = v > before * (1.0 + TIE) && v >= after * (1.0 - TIE);
    uint c = !isMax ? 0u : v >= high ? 2u : v >= low ? 1u : 0u;
    imageStore(classes, p, uvec4(c, 0u, 0u, 0u));
}
