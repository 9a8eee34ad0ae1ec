// Canny's gradient (docs/algorithms.md 4.1): central differences on the smoothed image with replicate
// borders, L2 magnitude, and the direction quantised to 4 NMS sectors (0: x, 1: (1,1), 2: y,
// 3: (-1,1)) by tan(22.5) and tan(67.5). One invocation per pixel.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform highp sampler2D smoothed;
layout(r32f, binding = 0) writeonly uniform highp image2D strength;
layout(r32ui, binding = 1) writeonly uniform highp uimage2D sector;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = textureSize(smoothed, 0);
    if (p.x >= size.x || p.y >= size.y) return;
    ivec2 last = size - 1;
    highp float gx = (texelFetch(smoothed, ivec2(min(p.x + 1, last.x), p.y), 0).r -
                      texelFetch(smoothed, ivec2(max(p.x - 1, 0), p.y), 0).r) * 0.5;
    highp float gy = (texelFetch(smoothed, ivec2(p.x, min(p.y + 1, last.y)), 0).r -
                      texelFetch(smoothed, ivec2(p.x, max(p.y - 1, 0)), 0).r) * 0.5;
    highp float ax = abs(gx), ay = abs(gy);
    uint s = ay <= TAN22_5 * ax ? 0u : ay > TAN67_5 * ax ? 2u : ((gx > 0.0) == (gy > 0.0) ? 1u : 3u);
    imageStore(strength, p, vec4(sqrt(gx * gx + gy * gy), 0.0, 0.0, 0.0));
    imageStore(sector, p, uvec4(s, 0u, 0u, 0u));
}
