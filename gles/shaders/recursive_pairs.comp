// A recursive Gabor stage that ends in a magnitude (a magnitude, a bank's maximum), on a pair
// buffer (docs/algorithms.md, "gles-compute's Gabor on pair buffers"): the complex response of
// columns 2k and 2k+1 of a row in one vec4 of a storage buffer (re, im of the even column, re, im
// of the odd), so that one access carries two samples (GLES 3.1 has no read-write four-channel
// image). Exact replicate borders, in one of two forms:
// - the pole (cascade) form of recursive_line.comp (DEMOD 0);
// - DEMOD 1, demodulated (the cpu's form up to sigma 8, DemodCascade in core/plan.h): the
//   Gaussian's recursion on the line times e^{-i w n}, its real pole and its conjugate pair as one
//   real second-order section on each component. The response is left demodulated: its magnitude
//   is the same, and the DC term turns instead, by e^{-i (wx x + wy y)}. The phases are turned
//   from sample to sample (below): no table.
// AXIS 0: one invocation per row, from the real input (a sampler) into the pair buffer; CODES: the
// input is the frame's codes (R8UI), each read through the table of their unit values; WITH_DC:
// the DC plane's horizontal pass (REAL's, below) beside it, on the same samples.
// AXIS 1: one invocation per pair of columns, in place (each sample read before the causal pass
// overwrites it), both columns' recursions side by side; the anticausal pass hands each output to
// the Gabor stage's tail (below), a pixel at a time, instead of storing it. MIRROR: a bank's
// orientation and its mirror on one horizontal pass, an invocation per column (below).
// REAL (with DEMOD): the stage's DC plane, the Gaussian G*I (DemodCascade at w = 0), real, a
// vec2 a pair, both passes stored; the demodulated tail reads it two pixels at a time. With WIDEN
// (AXIS 0), an orientation's horizontal pass where it has no frequency along x (90 degrees): real,
// into the complex pair buffer (imaginary parts 0).
// NO_WX or NO_WY (AXIS 1, a demodulated orientation's vertical pass on pairs): its frequency has
// no x part (90 degrees: a pixel's phase is its row's) or no y part (0 degrees: its column's, and
// its samples are not turned). FROM_DC (with NO_WX): the orientation's horizontal pass is the DC
// plane's (real, the same Gaussian), so its vertical pass reads the DC's pairs as its input, its
// causal outputs going to the pair buffer, then runs the DC plane's two vertical passes over the
// column pair, replacing those pairs with the DC plane, before its anticausal pass and tail: the
// stage's first visit.
// Samples each loop runs a trip (scripts/pi_passes.py reads it: a sample costs its loops' code
// over it). An AXIS 0 trip is two pairs of a row; an AXIS 1 trip four rows of a column pair (or of
// a column and its mirror), whose samples are twice that: the count is per invocation.
#define SAMPLES_PER_TRIP 4
// Defines a program may go without.
#ifndef CODES
#define CODES 0
#endif
#ifndef MIRROR
#define MIRROR 0
#endif
#ifndef WIDEN
#define WIDEN 0
#endif
#ifndef WITH_DC
#define WITH_DC 0
#endif
#ifndef NO_WX
#define NO_WX 0
#endif
#ifndef NO_WY
#define NO_WY 0
#endif
#ifndef FROM_DC
#define FROM_DC 0
#endif
#if MIRROR && (AXIS != 1 || !DEMOD || REAL)
#error "MIRROR is a demodulated bank's vertical pass"
#endif
#if WIDEN && (AXIS != 0 || !REAL)
#error "WIDEN is a real horizontal pass into a complex pair buffer"
#endif
#if WITH_DC && (AXIS != 0 || !DEMOD || REAL)
#error "WITH_DC is a demodulated orientation's horizontal pass"
#endif
#if (NO_WX || NO_WY) && (AXIS != 1 || !DEMOD || REAL || MIRROR || (NO_WX && NO_WY))
#error "NO_WX and NO_WY are a demodulated orientation's vertical pass on pairs, one of them"
#endif
#if FROM_DC && (!NO_WX || !REMOVE_DC)
#error "FROM_DC is the vertical pass of an orientation with no frequency along x, with the DC removed"
#endif
// The samples along this pass turn (demodulated, complex, with a frequency along the pass's axis).
#define TURNS (DEMOD && !REAL && !NO_WY)
layout(local_size_x = 16) in;
#if AXIS == 0 && CODES
layout(binding = 0) uniform highp usampler2D src;
#elif AXIS == 0
layout(binding = 0) uniform highp sampler2D src;
#endif
// A sample (ONE) and a pair of them (TWO), complex or REAL; EVEN and ODD take a pair's two.
#if REAL
#define ONE float
#define TWO vec2
#define EVEN(v) v.x
#define ODD(v) v.y
#else
#define ONE vec2
#define TWO vec4
#define EVEN(v) v.xy
#define ODD(v) v.zw
#endif
// The pair buffer: row y's pair k at y * ((width + 1) / 2) + k (MIRROR: column x's value at
// y * 2 ((width + 1) / 2) + x, the same bytes).
#if AXIS == 1 && !REAL
#if MIRROR
layout(std430, binding = 0) buffer Samples { highp vec2 samples[]; };
layout(std430, binding = 1) buffer Mirrored { highp vec2 mirrored[]; };  // the strip's, y * stripColumns + its column
uniform int firstColumn, stripColumns;  // the strip this dispatch runs
#else
layout(std430, binding = 0) buffer Pairs { highp TWO pairs[]; };
#endif
#elif WIDEN
layout(std430, binding = 0) buffer Pairs { highp vec4 pairs[]; };
#else
layout(std430, binding = 0) buffer Pairs { highp TWO pairs[]; };
#endif
uniform int width, height;  // the frame's
uniform highp vec2 g[3];  // the causal states per unit first sample
#if DEMOD
// s0 = x + d0 s0, y = s0 + a2 y[n-2] + a1 y[n-1]: each direction's output is y, not the Gaussian's
// B y (two multiplies a sample and direction fewer), so a pass's output is its line's response over
// B^2 (the anticausal states start from m, the host's border matrix over B); the vertical pass's
// tail scales the squared magnitude back (`scale2`, below).
uniform highp float d0, a1, a2;
uniform highp vec2 m[12];  // anticausal states from (last sample, s0, y1, y2), row-major, over B
#if !REAL
// The phases e^{i w n} along this pass's axis: each sample's from the one before it, turned by
// `turn` = e^{i w} (and renormalised each trip), from 1 at n = 0 forward and from `lastPhase` =
// e^{i w (n - 1)} backward; both made on the host in double.
uniform highp vec2 turn, lastPhase;
#if AXIS == 1 && REMOVE_DC
uniform highp float wx;  // the columns' frequency, for the DC term's turn
#endif
#endif
#else
uniform highp float B;
uniform highp vec2 p[3];  // causal poles
uniform highp vec2 q[3];  // anticausal poles
uniform highp vec2 h[3];  // anticausal steady state per unit input
uniform highp vec2 m[9];  // border matrix, row-major
#endif
#if AXIS == 1 && !REAL
#if DEMOD
// The squared magnitude's scale: (Bx^2 By^2)^2, the two axes' passes' outputs over their B^2 (the
// DC plane's are folded into dcGain on the host).
uniform highp float scale2;
#endif
#if REMOVE_DC && DEMOD && MIRROR
layout(std430, binding = 2) readonly buffer Dc { highp float dcSamples[]; };  // REAL's, a column's an element
uniform highp float dcGain;
#elif REMOVE_DC && DEMOD && FROM_DC
layout(std430, binding = 2) buffer Dc { highp vec2 dcPairs[]; };  // the DC's horizontal pass's, then REAL's
uniform highp float dcGain;
#elif REMOVE_DC && DEMOD
layout(std430, binding = 2) readonly buffer Dc { highp vec2 dcPairs[]; };  // REAL's
uniform highp float dcGain;
#elif REMOVE_DC
layout(binding = 2) uniform highp sampler2D gauss;
uniform highp float dcGain;
#endif
#define BANK (SINK == SINK_MAX_MAGNITUDE || SINK == SINK_MAX_ENERGY)
#if BANK && !FIRST
layout(r32f, binding = 2) uniform highp image2D dst;
#else
layout(r32f, binding = 2) writeonly uniform highp image2D dst;
#endif
#if SINK == SINK_MAX_ENERGY
layout(r32ui, binding = 3) writeonly uniform highp uimage2D sector;
uniform uint orientationSector;
#if MIRROR
uniform uint mirrorSector;
#endif
#endif
#endif

highp vec2 cmul(highp vec2 a, highp vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
// Two complex values (a pair's) times one.
highp vec4 cmul(highp vec4 a, highp vec2 b) { return vec4(cmul(a.xy, b), cmul(a.zw, b)); }
// A sample, or a pair, times a coefficient (complex; REAL's have no imaginary part).
#if REAL
#if !DEMOD
#error "REAL is the demodulated form's DC plane"
#endif
highp float coef(highp float a, highp vec2 c) { return a * c.x; }
highp vec2 coef(highp vec2 a, highp vec2 c) { return a * c.x; }
#else
highp vec2 coef(highp vec2 a, highp vec2 c) { return cmul(a, c); }
highp vec4 coef(highp vec4 a, highp vec2 c) { return cmul(a, c); }
#endif
// A real first sample times a coefficient.
highp ONE scaled(highp float x, highp vec2 c) {
#if REAL
    return x * c.x;
#else
    return x * c;
#endif
}
// The phase of the next sample, and of the one before (a phase's magnitude kept at 1 by a Newton
// step for 1 / |e| each trip: the rotation's rounding would otherwise grow with the line).
#if TURNS
highp vec2 next(highp vec2 e) { return cmul(e, turn); }
highp vec2 previous(highp vec2 e) { return cmul(e, vec2(turn.x, -turn.y)); }
highp vec2 renormalised(highp vec2 e) { return e * (1.5 - 0.5 * dot(e, e)); }
highp vec2 phaseOfLast() { return lastPhase; }
#else
highp vec2 next(highp vec2 e) { return e; }
highp vec2 previous(highp vec2 e) { return e; }
highp vec2 renormalised(highp vec2 e) { return e; }
highp vec2 phaseOfLast() { return vec2(1.0, 0.0); }
#endif
// a times the conjugate of the phase e: a demodulated.
highp vec2 turnBack(highp vec2 a, highp vec2 e) { return vec2(a.x * e.x + a.y * e.y, a.y * e.x - a.x * e.y); }
highp vec4 turnBack(highp vec4 a, highp vec2 e) { return vec4(turnBack(a.xy, e), turnBack(a.zw, e)); }

// One sample of one direction (`backward`: the anticausal), its three states in place: the
// output times B. Anticausal start: the states from the last sample and the causal states.
#if DEMOD
#define RECURSION(T)                                                                            \
    T advance(T x, inout T s0, inout T y1, inout T y2, bool backward) {                       \
        s0 = x + d0 * s0;                                                                       \
        T y = s0 + a2 * y2 + a1 * y1;                                                           \
        y2 = y1;                                                                                \
        y1 = y;                                                                                 \
        return y;                                                                               \
    }                                                                                           \
    void backwardStart(T last, T s0, T s1, T s2, out T t0, out T t1, out T t2) {                \
        t0 = coef(last, m[0]) + coef(s0, m[1]) + coef(s1, m[2]) + coef(s2, m[3]);               \
        t1 = coef(last, m[4]) + coef(s0, m[5]) + coef(s1, m[6]) + coef(s2, m[7]);               \
        t2 = coef(last, m[8]) + coef(s0, m[9]) + coef(s1, m[10]) + coef(s2, m[11]);             \
    }
#else
#define RECURSION(T)                                                                            \
    T advance(T x, inout T s0, inout T s1, inout T s2, bool backward) {                       \
        s0 = x + coef(s0, backward ? q[0] : p[0]);                                              \
        s1 = s0 + coef(s1, backward ? q[1] : p[1]);                                             \
        s2 = s1 + coef(s2, backward ? q[2] : p[2]);                                             \
        return B * s2;                                                                          \
    }                                                                                           \
    void backwardStart(T last, T s0, T s1, T s2, out T t0, out T t1, out T t2) {                \
        /* The steady state for the last input plus the border matrix applied to the causal */  \
        /* states' deviations from theirs (recursive_line.comp's). */                           \
        T d0 = s0 - coef(last, g[0]), d1 = s1 - coef(last, g[1]), d2 = s2 - coef(last, g[2]);   \
        T u = B * coef(last, g[2]);                                                             \
        t0 = coef(u, h[0]) + coef(d0, m[0]) + coef(d1, m[1]) + coef(d2, m[2]);                  \
        t1 = coef(u, h[1]) + coef(d0, m[3]) + coef(d1, m[4]) + coef(d2, m[5]);                  \
        t2 = coef(u, h[2]) + coef(d0, m[6]) + coef(d1, m[7]) + coef(d2, m[8]);                  \
    }
#endif
RECURSION(highp ONE)
RECURSION(highp TWO)
#if WITH_DC || FROM_DC
// The stage's DC plane's pass along this axis (REAL's) in this orientation's program, on samples
// it reads anyway (WITH_DC: the row's, beside the orientation's recursion; FROM_DC: the column
// pair's horizontal DC, replaced in place by the DC plane in loops of their own): the Gaussian's
// recursion as the orientation's (d0, a1, a2: the planner fuses them only where they are the
// same), its own borders (dcG, dcM: real, in .x).
#if AXIS == 0
#define DC float  // a sample of the row
#else
#define DC vec2   // the column pair's two samples of a row
#endif
uniform highp vec2 dcG[3];
uniform highp vec2 dcM[12];
highp DC r0, r1, r2;  // its states
highp DC dcAdvance(highp DC x) {
    r0 = x + d0 * r0;
    highp DC y = r0 + a2 * r2 + a1 * r1;
    r2 = r1;
    r1 = y;
    return y;
}
void dcStart(highp DC head) { r0 = head * dcG[0].x; r1 = head * dcG[1].x; r2 = head * dcG[2].x; }
void dcBackwardStart(highp DC last) {
    highp DC t0 = last * dcM[0].x + r0 * dcM[1].x + r1 * dcM[2].x + r2 * dcM[3].x;
    highp DC t1 = last * dcM[4].x + r0 * dcM[5].x + r1 * dcM[6].x + r2 * dcM[7].x;
    highp DC t2 = last * dcM[8].x + r0 * dcM[9].x + r1 * dcM[10].x + r2 * dcM[11].x;
    r0 = t0;
    r1 = t1;
    r2 = t2;
}
#endif

#if AXIS == 0
#if CODES
// Each code's unit value, the host's (core/spec.h, unitValues): a table, not c / 255 or c times
// 1/255 in the shader, which round otherwise for half the codes.
layout(std430, binding = 1) readonly buffer Units { highp float unitValues[256]; };
highp float at(int line, int i) { return unitValues[texelFetch(src, ivec2(i, line), 0).r]; }
#else
highp float at(int line, int i) { return texelFetch(src, ivec2(i, line), 0).r; }
#endif
// Sample i (real) demodulated: x e^{-i wx i} (the pole form: as it is).
#if DEMOD && !REAL
highp vec2 demod(highp float x, highp vec2 e) { return x * vec2(e.x, -e.y); }
#elif REAL
highp float demod(highp float x, highp vec2 e) { return x; }
#else
highp vec2 demod(highp float x, highp vec2 e) { return vec2(x, 0.0); }
#endif
// Pair k of the row: stored, and read back for the anticausal pass.
#if WIDEN
void put(int k, highp float a, highp float b) { pairs[k] = vec4(a, 0.0, b, 0.0); }
highp vec2 pairAt(int k) { return pairs[k].xz; }
#else
void put(int k, highp ONE a, highp ONE b) { pairs[k] = TWO(a, b); }
highp TWO pairAt(int k) { return pairs[k]; }
#endif
#if WITH_DC
layout(std430, binding = 2) buffer Dc { highp vec2 dcPairs[]; };  // the DC's horizontal pass's
#endif
// Samples 2k and 2k + 1 of the row (`e` the first's phase, then the next pair's) through the
// causal pass into pair `slot`; with WITH_DC the DC plane's too.
void causalPair(int line, int slot, int k, inout highp ONE s0, inout highp ONE s1, inout highp ONE s2, inout highp vec2 e) {
    highp float x0 = at(line, 2 * k), x1 = at(line, 2 * k + 1);
    highp ONE a = advance(demod(x0, e), s0, s1, s2, false);
    e = next(e);
    highp ONE b = advance(demod(x1, e), s0, s1, s2, false);
    e = next(e);
    put(slot, a, b);
#if WITH_DC
    highp float c = dcAdvance(x0);
    dcPairs[slot] = vec2(c, dcAdvance(x1));
#endif
}
// Pair `slot` through the anticausal pass, in place (odd sample first).
void anticausalPair(int slot, inout highp ONE t0, inout highp ONE t1, inout highp ONE t2) {
    highp TWO v = pairAt(slot);
    highp ONE b = advance(ODD(v), t0, t1, t2, true), a = advance(EVEN(v), t0, t1, t2, true);
    put(slot, a, b);
#if WITH_DC
    highp vec2 d = dcPairs[slot];
    highp float c = dcAdvance(d.y);
    dcPairs[slot] = vec2(dcAdvance(d.x), c);
#endif
}

void main() {
    int n = width, line = int(gl_GlobalInvocationID.x), row = line * ((n + 1) / 2);
    if (line >= height) return;
    int full = n / 2;  // pairs holding two samples; an odd row's last pair holds one
    highp float head = at(line, 0), lastSample = at(line, n - 1);
    highp ONE last = demod(lastSample, phaseOfLast());
    highp vec2 e = vec2(1.0, 0.0);
    highp ONE s0 = scaled(head, g[0]), s1 = scaled(head, g[1]), s2 = scaled(head, g[2]);
#if WITH_DC
    dcStart(head);
#endif
    int k = 0;
    for (; k + 1 < full; k += 2) {
        causalPair(line, row + k, k, s0, s1, s2, e);
        causalPair(line, row + k + 1, k + 1, s0, s1, s2, e);
        e = renormalised(e);
    }
    if (k < full) causalPair(line, row + k, k, s0, s1, s2, e);
    if (n > 2 * full) {
        put(row + full, advance(last, s0, s1, s2, false), ONE(0.0));
#if WITH_DC
        dcPairs[row + full] = vec2(dcAdvance(lastSample), 0.0);
#endif
    }
    highp ONE t0, t1, t2;
    backwardStart(last, s0, s1, s2, t0, t1, t2);
#if WITH_DC
    dcBackwardStart(lastSample);
#endif
    if (n > 2 * full) {
        highp ONE c = EVEN(pairAt(row + full));
        put(row + full, advance(c, t0, t1, t2, true), ONE(0.0));
#if WITH_DC
        dcPairs[row + full] = vec2(dcAdvance(dcPairs[row + full].x), 0.0);
#endif
    }
    for (k = full - 1; k >= 1; k -= 2) {
        anticausalPair(row + k, t0, t1, t2);
        anticausalPair(row + k - 1, t0, t1, t2);
    }
    if (k == 0) anticausalPair(row, t0, t1, t2);
}
#else
int stride;  // pairs a row: (width + 1) / 2
#if DEMOD && !REAL && REMOVE_DC && MIRROR
highp vec2 columnPhase;  // this column's e^{i wx x} (the mirror's is its conjugate)
#elif DEMOD && !REAL && REMOVE_DC
highp vec4 columns;  // this pair's columns' phases, e^{i wx x}
// A pixel's phase e^{i (wx x + wy y)} from its column's and its row's (NO_WX: its row's; NO_WY:
// its column's, the rows' phases staying 1).
highp vec2 pixelPhase(highp vec2 column, highp vec2 row) {
#if NO_WX
    return row;
#elif NO_WY
    return column;
#else
    return cmul(column, row);
#endif
}
#endif

#if !REAL
// The squared magnitude at one pixel from its response: the K_x K_y weighted Gaussian `dc`
// subtracted with REMOVE_DC (demodulated: turned by the conjugate of the pixel's phase `e`).
highp float energy(highp vec2 z, highp vec2 e, highp float dc) {
#if REMOVE_DC && DEMOD
    z -= dc * vec2(e.x, -e.y);
#elif REMOVE_DC
    z.x -= dc;
#endif
#if DEMOD
    return scale2 * (z.x * z.x + z.y * z.y);
#else
    return z.x * z.x + z.y * z.y;
#endif
}
// The Gabor stage's output at one pixel from its squared magnitude v (MIRROR: and the mirror's,
// w, visited after it): the magnitude, or in a bank (FIRST and LAST: its first and last visit) the
// running maximum of squared magnitudes, the first of near-equal maxima kept (ties at (1 + TIE)^2,
// the cpu's rule), its square root taken by the last visit, and the winner's sector.
void tail(ivec2 at, highp float v, highp float w) {
    const highp float tie = (1.0 + TIE) * (1.0 + TIE);
#if SINK == SINK_MAX_ENERGY
    uint winner = orientationSector;
    bool changed = true;
#endif
#if BANK && !FIRST
    highp float best = imageLoad(dst, at).r;
    bool wins = v > best * tie;
#if SINK == SINK_MAX_ENERGY
    changed = wins;
#endif
    v = wins ? v : best;
#endif
#if MIRROR
    bool mirrorWins = w > v * tie;
#if SINK == SINK_MAX_ENERGY
    if (mirrorWins) winner = mirrorSector;
    changed = changed || mirrorWins;
#endif
    v = mirrorWins ? w : v;
#endif
#if SINK == SINK_MAX_ENERGY
    if (changed) imageStore(sector, at, uvec4(winner, 0u, 0u, 0u));
#endif
#if LAST
    v = sqrt(v);
#endif
    imageStore(dst, at, vec4(v, 0.0, 0.0, 0.0));
}
#endif

#if MIRROR
// MIRROR (a demodulated bank's orientation and its mirror, the next in bankOrder, frequencies
// (-wx, wy)): one invocation per column of a strip, both orientations' vertical passes on the one
// horizontal pass. On a real input the mirror's horizontal pass is the conjugate of its partner's,
// and its vertical pass is its partner's (the same wy): so it runs on the conjugated samples with
// the same coefficients and phases, its DC term turned by the column's conjugate phase. The
// partner's causal outputs go in place, the mirror's to the strip's scratch; the running maximum
// is read and written once for both.
// Row i (`e` its phase, then the next row's): `at` its sample's index in the pair buffer, `own`
// its index in the strip's scratch, both moved on to the next row's.
void causal(inout int at, inout int own, inout highp vec2 a0, inout highp vec2 a1, inout highp vec2 a2,
            inout highp vec2 b0, inout highp vec2 b1, inout highp vec2 b2, inout highp vec2 e) {
    highp vec2 x = samples[at];
    samples[at] = advance(turnBack(x, e), a0, a1, a2, false);
    mirrored[own] = advance(turnBack(vec2(x.x, -x.y), e), b0, b1, b2, false);
    at += 2 * stride;
    own += stripColumns;
    e = next(e);
}
// Row i of `column` (`e` its phase, then the row's before; `at` and `own` as causal's, moved on
// to the row's before).
void anticausal(int column, int i, inout int at, inout int own, inout highp vec2 a0, inout highp vec2 a1,
                inout highp vec2 a2, inout highp vec2 b0, inout highp vec2 b1, inout highp vec2 b2, inout highp vec2 e) {
    highp vec2 z = advance(samples[at], a0, a1, a2, true);
    highp vec2 w = advance(mirrored[own], b0, b1, b2, true);
#if REMOVE_DC
    highp float dc = dcGain * dcSamples[at];
    highp vec2 phase = cmul(columnPhase, e), mirrorPhase = cmul(vec2(columnPhase.x, -columnPhase.y), e);
    tail(ivec2(column, i), energy(z, phase, dc), energy(w, mirrorPhase, dc));
#else
    tail(ivec2(column, i), energy(z, vec2(0.0), 0.0), energy(w, vec2(0.0), 0.0));
#endif
    at -= 2 * stride;
    own -= stripColumns;
    e = previous(e);
}

void main() {
    stride = (width + 1) / 2;
    int strip = int(gl_GlobalInvocationID.x), column = firstColumn + strip, n = height;
    if (strip >= stripColumns || column >= width) return;
    highp vec2 head = samples[column], last = samples[(n - 1) * 2 * stride + column];  // row 0's phase is 1
    highp vec2 mirrorHead = vec2(head.x, -head.y), mirrorLast = turnBack(vec2(last.x, -last.y), lastPhase);
    last = turnBack(last, lastPhase);
#if REMOVE_DC
    highp float x = wx * float(column);
    columnPhase = vec2(cos(x), sin(x));
#endif
    highp vec2 e = vec2(1.0, 0.0);
    highp vec2 a0 = coef(head, g[0]), a1 = coef(head, g[1]), a2 = coef(head, g[2]);
    highp vec2 b0 = coef(mirrorHead, g[0]), b1 = coef(mirrorHead, g[1]), b2 = coef(mirrorHead, g[2]);
    int i = 0, at = column, own = strip;
    for (; i + 3 < n; i += SAMPLES_PER_TRIP) {
        causal(at, own, a0, a1, a2, b0, b1, b2, e);
        causal(at, own, a0, a1, a2, b0, b1, b2, e);
        causal(at, own, a0, a1, a2, b0, b1, b2, e);
        causal(at, own, a0, a1, a2, b0, b1, b2, e);
        e = renormalised(e);
    }
    if (i < n) causal(at, own, a0, a1, a2, b0, b1, b2, e);
    if (i + 1 < n) causal(at, own, a0, a1, a2, b0, b1, b2, e);
    if (i + 2 < n) causal(at, own, a0, a1, a2, b0, b1, b2, e);
    highp vec2 t0, t1, t2, u0, u1, u2;
    backwardStart(last, a0, a1, a2, t0, t1, t2);
    backwardStart(mirrorLast, b0, b1, b2, u0, u1, u2);
    e = phaseOfLast();
    at -= 2 * stride;
    own -= stripColumns;
    for (i = n - 1; i > 2; i -= SAMPLES_PER_TRIP) {
        anticausal(column, i, at, own, t0, t1, t2, u0, u1, u2, e);
        anticausal(column, i - 1, at, own, t0, t1, t2, u0, u1, u2, e);
        anticausal(column, i - 2, at, own, t0, t1, t2, u0, u1, u2, e);
        anticausal(column, i - 3, at, own, t0, t1, t2, u0, u1, u2, e);
        e = renormalised(e);
    }
    if (i >= 0) anticausal(column, i, at, own, t0, t1, t2, u0, u1, u2, e);
    if (i >= 1) anticausal(column, i - 1, at, own, t0, t1, t2, u0, u1, u2, e);
    if (i >= 2) anticausal(column, i - 2, at, own, t0, t1, t2, u0, u1, u2, e);
}
#else
// Row i (`e` its phase, then the next row's): `at` its pair's index, moved on to the next row's.
void causal(inout int at, inout highp TWO s0, inout highp TWO s1, inout highp TWO s2, inout highp vec2 e) {
#if FROM_DC
    highp vec2 d = dcPairs[at];
    highp TWO x = TWO(d.x, 0.0, d.y, 0.0);
#else
    highp TWO x = pairs[at];
#endif
#if TURNS
    x = turnBack(x, e);
#endif
    pairs[at] = advance(x, s0, s1, s2, false);
    at += stride;
    e = next(e);
}
#if FROM_DC
// A row's DC pair through one of the DC plane's passes, in place; `at` moved on to the next row's
// (`step` stride) or the row's before (-stride).
void dcStep(inout int at, int step) {
    dcPairs[at] = dcAdvance(dcPairs[at]);
    at += step;
}
#endif
// Row i of pair `line` (`e` its phase, then the row's before; `at` as causal's, moved on to the
// row's before).
void anticausal(int line, int i, inout int at, inout highp TWO t0, inout highp TWO t1, inout highp TWO t2, inout highp vec2 e) {
    highp TWO z = advance(pairs[at], t0, t1, t2, true);
#if REAL
    pairs[at] = z;
#else
    // The odd column of an odd-width frame's last pair lies outside the output: its image
    // accesses do nothing (a store outside an image is ignored, a load returns zero, and the
    // fetch's undefined value goes nowhere).
    ivec2 even = ivec2(2 * line, i), odd = ivec2(2 * line + 1, i);
#if REMOVE_DC && DEMOD
    highp vec2 dc = dcGain * dcPairs[at];
    tail(even, energy(z.xy, pixelPhase(columns.xy, e), dc.x), 0.0);
    tail(odd, energy(z.zw, pixelPhase(columns.zw, e), dc.y), 0.0);
#elif REMOVE_DC
    tail(even, energy(z.xy, vec2(0.0), dcGain * texelFetch(gauss, even, 0).r), 0.0);
    tail(odd, energy(z.zw, vec2(0.0), dcGain * texelFetch(gauss, odd, 0).r), 0.0);
#else
    tail(even, energy(z.xy, vec2(0.0), 0.0), 0.0);
    tail(odd, energy(z.zw, vec2(0.0), 0.0), 0.0);
#endif
#endif
    at -= stride;
    e = previous(e);
}

void main() {
    stride = (width + 1) / 2;
    int line = int(gl_GlobalInvocationID.x), n = height;
    if (line >= stride) return;
#if FROM_DC
    highp vec2 dcHead = dcPairs[line], dcLast = dcPairs[(n - 1) * stride + line];
    highp TWO head = TWO(dcHead.x, 0.0, dcHead.y, 0.0), last = TWO(dcLast.x, 0.0, dcLast.y, 0.0);
#else
    highp TWO head = pairs[line], last = pairs[(n - 1) * stride + line];  // row 0's phase is 1
#endif
#if TURNS
    last = turnBack(last, lastPhase);
#endif
#if DEMOD && !REAL && REMOVE_DC && !NO_WX
    highp float x0 = wx * float(2 * line), x1 = wx * float(2 * line + 1);
    columns = vec4(cos(x0), sin(x0), cos(x1), sin(x1));
#endif
    highp vec2 e = vec2(1.0, 0.0);
    highp TWO s0 = coef(head, g[0]), s1 = coef(head, g[1]), s2 = coef(head, g[2]);
    int i = 0, at = line;
    for (; i + 3 < n; i += SAMPLES_PER_TRIP) {
        causal(at, s0, s1, s2, e);
        causal(at, s0, s1, s2, e);
        causal(at, s0, s1, s2, e);
        causal(at, s0, s1, s2, e);
        e = renormalised(e);
    }
    if (i < n) causal(at, s0, s1, s2, e);
    if (i + 1 < n) causal(at, s0, s1, s2, e);
    if (i + 2 < n) causal(at, s0, s1, s2, e);
    highp TWO t0, t1, t2;
    backwardStart(last, s0, s1, s2, t0, t1, t2);
#if FROM_DC
    // Then the DC plane's two passes over the whole column pair, in place, so that this
    // orientation's tail reads it as the other visits' do (loops of both recursions spilled on V3D).
    int dcAt = line;
    dcStart(dcHead);
    for (i = 0; i + 3 < n; i += SAMPLES_PER_TRIP) {
        dcStep(dcAt, stride);
        dcStep(dcAt, stride);
        dcStep(dcAt, stride);
        dcStep(dcAt, stride);
    }
    if (i < n) dcStep(dcAt, stride);
    if (i + 1 < n) dcStep(dcAt, stride);
    if (i + 2 < n) dcStep(dcAt, stride);
    dcBackwardStart(dcLast);
    dcAt -= stride;
    for (i = n - 1; i > 2; i -= SAMPLES_PER_TRIP) {
        dcStep(dcAt, -stride);
        dcStep(dcAt, -stride);
        dcStep(dcAt, -stride);
        dcStep(dcAt, -stride);
    }
    if (i >= 0) dcStep(dcAt, -stride);
    if (i >= 1) dcStep(dcAt, -stride);
    if (i >= 2) dcStep(dcAt, -stride);
#endif
    e = phaseOfLast();
    at -= stride;
    for (i = n - 1; i > 2; i -= SAMPLES_PER_TRIP) {
        anticausal(line, i, at, t0, t1, t2, e);
        anticausal(line, i - 1, at, t0, t1, t2, e);
        anticausal(line, i - 2, at, t0, t1, t2, e);
        anticausal(line, i - 3, at, t0, t1, t2, e);
        e = renormalised(e);
    }
    if (i >= 0) anticausal(line, i, at, t0, t1, t2, e);
    if (i >= 1) anticausal(line, i - 1, at, t0, t1, t2, e);
    if (i >= 2) anticausal(line, i - 2, at, t0, t1, t2, e);
}
#endif
#endif
