// Recursive Gaussian or Gabor along one axis (AXIS 0: rows, 1: columns) in pole (cascade) form:
// three first-order complex sections causal, then three anticausal, with exact replicate borders
// (docs/algorithms.md 2.3, 3.2, 3.3; docs/algorithms.md for the cascade form). One invocation per
// line. COMPLEX_IN reads an imaginary input plane too; COMPLEX_OUT writes one (a Gaussian's
// output is real). The causal output is stored and read back by the same invocation, which the
// GLSL memory model orders. IN_PLACE: the input is the output images' own contents (COMPLEX_IN
// equal to COMPLEX_OUT); each sample is read before the causal pass overwrites it. (A Gabor stage
// that ends in a magnitude runs on recursive_pairs.comp instead.)
// Samples each loop runs a trip (scripts/pi_passes.py reads it: a sample costs its loops' code
// over it).
#define SAMPLES_PER_TRIP 4
layout(local_size_x = 64) in;
#if !IN_PLACE
layout(binding = 0) uniform highp sampler2D srcRe;
#if COMPLEX_IN
layout(binding = 1) uniform highp sampler2D srcIm;
#endif
#endif
layout(r32f, binding = 0) uniform highp image2D dstRe;
#if COMPLEX_OUT
layout(r32f, binding = 1) uniform highp image2D dstIm;
#endif
uniform highp float B;
uniform highp vec2 p[3];   // causal poles
uniform highp vec2 q[3];   // anticausal poles
uniform highp vec2 g[3];   // causal steady state per unit input, section k
uniform highp vec2 h[3];   // anticausal steady state per unit input
uniform highp vec2 m[9];   // border matrix, row-major

highp vec2 cmul(highp vec2 a, highp vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

#if AXIS == 0
#define AT(i) ivec2(i, line)
#else
#define AT(i) ivec2(line, i)
#endif

void store(int line, int i, highp vec2 v) {
    imageStore(dstRe, AT(i), vec4(v.x, 0.0, 0.0, 0.0));
#if COMPLEX_OUT
    imageStore(dstIm, AT(i), vec4(v.y, 0.0, 0.0, 0.0));
#endif
}

highp vec2 stored(int line, int i) {
#if COMPLEX_OUT
    return vec2(imageLoad(dstRe, AT(i)).r, imageLoad(dstIm, AT(i)).r);
#else
    return vec2(imageLoad(dstRe, AT(i)).r, 0.0);
#endif
}

#if IN_PLACE
highp vec2 sampleAt(int line, int i) { return stored(line, i); }
#else
highp vec2 sampleAt(int line, int i) {
#if COMPLEX_IN
    return vec2(texelFetch(srcRe, AT(i), 0).r, texelFetch(srcIm, AT(i), 0).r);
#else
    return vec2(texelFetch(srcRe, AT(i), 0).r, 0.0);
#endif
}
#endif

// One sample of each direction's three sections (their states in place): the causal from the
// input, the anticausal from the causal output, which it replaces with the result.
void causal(int line, int i, inout highp vec2 s0, inout highp vec2 s1, inout highp vec2 s2) {
    s0 = sampleAt(line, i) + cmul(s0, p[0]);
    s1 = s0 + cmul(s1, p[1]);
    s2 = s1 + cmul(s2, p[2]);
    store(line, i, B * s2);
}
void anticausal(int line, int i, inout highp vec2 t0, inout highp vec2 t1, inout highp vec2 t2) {
    t0 = stored(line, i) + cmul(t0, q[0]);
    t1 = t0 + cmul(t1, q[1]);
    t2 = t1 + cmul(t2, q[2]);
    store(line, i, B * t2);
}

void main() {
    ivec2 size = imageSize(dstRe);
    int line = int(gl_GlobalInvocationID.x);
#if AXIS == 0
    int n = size.x;
    if (line >= size.y) return;
#else
    int n = size.y;
    if (line >= size.x) return;
#endif
    highp vec2 head = sampleAt(line, 0), last = sampleAt(line, n - 1);
    highp vec2 s0 = cmul(head, g[0]), s1 = cmul(head, g[1]), s2 = cmul(head, g[2]);
    // Four samples a trip (a loop's control and its waits for the texture unit shared by four),
    // up to three after.
    int i = 0;
    for (; i + 3 < n; i += SAMPLES_PER_TRIP) {
        causal(line, i, s0, s1, s2);
        causal(line, i + 1, s0, s1, s2);
        causal(line, i + 2, s0, s1, s2);
        causal(line, i + 3, s0, s1, s2);
    }
    if (i < n) causal(line, i, s0, s1, s2);
    if (i + 1 < n) causal(line, i + 1, s0, s1, s2);
    if (i + 2 < n) causal(line, i + 2, s0, s1, s2);
    // Anticausal start: steady state for the last input plus the border matrix applied to the
    // causal states' deviations from theirs.
    highp vec2 d0 = s0 - cmul(last, g[0]), d1 = s1 - cmul(last, g[1]), d2 = s2 - cmul(last, g[2]);
    highp vec2 u = B * cmul(last, g[2]);
    highp vec2 t0 = cmul(u, h[0]) + cmul(d0, m[0]) + cmul(d1, m[1]) + cmul(d2, m[2]);
    highp vec2 t1 = cmul(u, h[1]) + cmul(d0, m[3]) + cmul(d1, m[4]) + cmul(d2, m[5]);
    highp vec2 t2 = cmul(u, h[2]) + cmul(d0, m[6]) + cmul(d1, m[7]) + cmul(d2, m[8]);
    for (i = n - 1; i > 2; i -= SAMPLES_PER_TRIP) {
        anticausal(line, i, t0, t1, t2);
        anticausal(line, i - 1, t0, t1, t2);
        anticausal(line, i - 2, t0, t1, t2);
        anticausal(line, i - 3, t0, t1, t2);
    }
    if (i >= 0) anticausal(line, i, t0, t1, t2);
    if (i >= 1) anticausal(line, i - 1, t0, t1, t2);
    if (i >= 2) anticausal(line, i - 2, t0, t1, t2);
}
