// Repeated extended box along one axis (AXIS 0: rows, 1: columns), constant time per pixel
// (docs/algorithms.md 2.2). One workgroup per line: the line, padded by PAD replicated samples on each
// side (the padded-copy definition of replicate borders), lives in workgroup memory; each of
// PASSES box passes reads it through prefix sums taken within blocks of BLOCK samples
// (BLOCK >= 2 r + 2, so a window crosses at most one block boundary). Block-local sums stay small,
// so float keeps the differences S(x + r) - S(x - r - 1) accurate for any line length.
// LINE is the padded capacity; with SHARED_LINE 0 the line lives in a storage buffer instead
// (lines longer than workgroup memory holds).
layout(local_size_x = 256) in;
layout(binding = 0) uniform highp sampler2D src;
layout(r32f, binding = 0) writeonly uniform highp image2D dst;
uniform int r;
uniform highp float alpha;
uniform highp float invNorm;

#define PER_THREAD ((LINE + 255) / 256)
#if SHARED_LINE
shared highp float line[LINE];
shared highp float pre[LINE];
#define V(i) line[i]
#define P(i) pre[i]
#define SYNC() barrier()
#else
layout(std430, binding = 0) buffer Scratch { highp float scratch[]; };
#define V(i) scratch[base + (i)]
#define P(i) scratch[base + LINE + (i)]
#define SYNC() memoryBarrierBuffer(); barrier()
#endif

void main() {
    ivec2 size = textureSize(src, 0);
    int index = int(gl_WorkGroupID.x);
    int lid = int(gl_LocalInvocationID.x);
#if !SHARED_LINE
    int base = index * 2 * LINE;
#endif
#if AXIS == 0
    int n = size.x;
#else
    int n = size.y;
#endif
    int total = n + 2 * PAD;
    for (int i = lid; i < total; i += 256) {
        int k = clamp(i - PAD, 0, n - 1);
#if AXIS == 0
        V(i) = texelFetch(src, ivec2(k, index), 0).r;
#else
        V(i) = texelFetch(src, ivec2(index, k), 0).r;
#endif
    }
    SYNC();
    int blocks = (total + BLOCK - 1) / BLOCK;
    highp float result[PER_THREAD];
    for (int pass = 0; pass < PASSES; ++pass) {
        for (int b = lid; b < blocks; b += 256) {
            highp float s = 0.0;
            for (int k = b * BLOCK; k < min(total, (b + 1) * BLOCK); ++k) {
                s += V(k);
                P(k) = s;
            }
        }
        SYNC();
        for (int j = 0; j < PER_THREAD; ++j) {
            int i = lid + 256 * j;
            if (i >= total) break;
            int lo = i - r - 1, hi = i + r;
            // Near the padded ends the window leaves the line; those samples lie within the
            // padding that is cropped (the error spreads r + 1 per pass, PAD = PASSES (r + 1)).
            if (lo < 0 || hi + 1 >= total) {
                result[j] = V(i);
                continue;
            }
            highp float sum = P(hi) - P(lo);
            if (hi / BLOCK != lo / BLOCK) sum += P((hi / BLOCK) * BLOCK - 1);
            result[j] = (sum + alpha * (V(lo) + V(hi + 1))) * invNorm;
        }
        SYNC();
        for (int j = 0; j < PER_THREAD; ++j) {
            int i = lid + 256 * j;
            if (i < total) V(i) = result[j];
        }
        SYNC();
    }
    for (int i = lid; i < n; i += 256) {
#if AXIS == 0
        imageStore(dst, ivec2(i, index), vec4(V(i + PAD), 0.0, 0.0, 0.0));
#else
        imageStore(dst, ivec2(index, i), vec4(V(i + PAD), 0.0, 0.0, 0.0));
#endif
    }
}
