// gles-fragment planners: the direct Gaussian (cascaded to fit the budget), boxes (taps or the
// sum pyramid), and the FIR on Quad planes.
#include "gles/fragment/planner.h"

#include <algorithm>
#include <cmath>
#include <variant>

#include "gles/fragment/glsl.h"

namespace striate::gles {
namespace {

/// The most passes a direct Gaussian may be cascaded into per axis.
constexpr int kMaxCascadePasses = 64;
/// The fewest frame rows of a band of a tiled quad pass (FragmentPlanner::quadBlur).
constexpr int kBandRows = 256;

} // namespace

FragmentPlanner::Value FragmentPlanner::directGaussian(double sigma, int axis, const Value& in) {
    // Positive taps: L1 norm 1, and a non-negative input stays non-negative.
    const PlaneFormat out = planeFormat(false, in.format.bound, in.format.nonNegative);
    const int R = gaussianRadius(sigma);
    if (fits(directShader(!packed_, sigma, R, axis, in.format, out, 0).cost, limits_.budget))
        return full(directShader(!packed_, sigma, R, axis, in.format, out, 0), {in}, out);
    // Too many taps for one shader: the cascade identity G_a G_b = G_sqrt(a^2 + b^2) splits sigma
    // into n equal passes whose radius fits (docs/algorithms.md 2.1), reading planes of the output's
    // format (the costlier decode when packed).
    const int fitting = largestFitting(1, R - 1, [&](int radius) {
        return fits(directShader(!packed_, radius / kGaussianTruncation, radius, axis, out, out, 0).cost, limits_.budget);
    });
    if (fitting < 1) {
        fail("gles-fragment: not even one Gaussian tap pair fits the board's budget");
        return in;
    }
    int n = static_cast<int>(std::ceil(std::pow(sigma / (fitting / kGaussianTruncation), 2)));
    while (gaussianRadius(sigma / std::sqrt(n)) > fitting) ++n;
    if (n > kMaxCascadePasses) {
        // n grows with sigma squared; past this the 16-bit re-quantisation of every pass adds up
        // beyond the packed budget (8e-3 after 1820 passes) and the frame costs thousands of draws.
        fail("gles-fragment: blur sigma=" + f(sigma) + " method=direct needs " + std::to_string(n) +
             " passes per axis within this board's shader budget (at most " + std::to_string(kMaxCascadePasses) +
             "); use method=recursive or method=boxes");
        return in;
    }
    const double part = sigma / std::sqrt(n);
    // The identity holds on the replicate-extended line, not with a clamp at every pass: the
    // passes run on a padded copy (the first pass pads, the last crops), so the borders match the
    // single-pass reference. The clamp at the copy's ends reaches in by one radius per pass but is
    // weighted by the cascade's Gaussian tail, which beyond 6 sigma is below 1e-8: the pad is the
    // smaller of the two.
    const int pad = std::min(n * gaussianRadius(part), static_cast<int>(std::ceil(6 * sigma)) + gaussianRadius(part));
    const int padW = format_.width + (axis == 0 ? 2 * pad : 0), padH = format_.height + (axis == 1 ? 2 * pad : 0);
    Value v = in;
    for (int i = 0; i < n && status_; ++i) {
        const int shift = i == 0 ? -pad : i == n - 1 ? pad : 0;
        const FragmentShader shader = directShader(!packed_, part, gaussianRadius(part), axis, v.format, out, shift);
        const Value next = i == n - 1 ? full(shader, {v}, out) : full(shader, {v}, out, {}, padW, padH);
        v = next;
    }
    return v;
}

FragmentPlanner::Value FragmentPlanner::pairGaussian(double sigma, const Value& in) {
    if (!packed_ || in.format.kind == PlaneKind::Pair) return {};
    const int R = gaussianRadius(sigma);
    // Positive taps: L1 norm 1, and a non-negative input stays non-negative.
    PlaneFormat out = planeFormat(false, in.format.bound, in.format.nonNegative);
    out.kind = PlaneKind::Pair;
    const FragmentShader x = pairShader(false, sigma, R, 0, in.format, out), y = pairShader(false, sigma, R, 1, out, out);
    if (!fits(x.cost, limits_.budget) || !fits(y.cost, limits_.budget)) return {};
    // Texels 0 .. W / 2 of each row: pixel W, past the frame, holds its last column's value (the
    // horizontal pass's), so a reader finds the right border's replicate there. Frame-sized
    // planes (the kind the packed values take, so that they share storage), each pass drawn into
    // their left part (intoLeftPart); the horizontal pass reads its input whole.
    const int pairs = format_.width / 2 + 1;
    const Uniforms frame{{"u_frame", {static_cast<float>(format_.width - 1), 0.0f, 0.0f, 0.0f}},
                         {"u_offsets", tapsOffsets(-R, 2 * R + 2, planes_[in.plane].width)}};
    const Value h = full(x, {in}, out, frame);
    intoLeftPart(steps_.back().passes.back(), pairs);
    steps_.back().passes.back().readsInputsWhole = true;
    const Value v = full(y, {h}, out, {{"u_offsets", tapsOffsets(-R, 2 * R + 1, planes_[h.plane].height)}});
    intoLeftPart(steps_.back().passes.back(), pairs);
    return v;
}

void FragmentPlanner::intoLeftPart(Draw& d, int width) const {
    if (width < planes_[d.target].width) {
        d.w = width;
        d.h = format_.height;
    }
}

FragmentPlanner::Value FragmentPlanner::pyramidBox(const ExtendedBox& box, int axis, const Value& in, int length, int shift,
                                                   int outShift, int outWidth, int outHeight) {
    const Pyramid p = pyramidOf(length);
    const PlaneFormat out = planeFormat(false, in.format.bound, in.format.nonNegative);
    const PlaneFormat atlasFormat = planeFormat(false, in.format.bound * length);
    const int across = axis == 0 ? format_.height : format_.width;
    Value atlas[2];
    for (int parity = 0; parity < 2; ++parity) {
        const int along = std::max(1, p.atlasSize[parity]);
        atlas[parity] = Value{axis == 0 ? acquire(atlasFormat, along, across) : acquire(atlasFormat, across, along), atlasFormat};
    }
    for (int k = 1; k <= p.levels && status_; ++k) {
        const Value& target = atlas[k % 2];
        const FragmentShader shader = pyramidLevelShader(!packed_, axis, k, shift, p.offset[k - 1], p.offset[k],
                                                         k == 1 ? in.format : atlasFormat, atlasFormat);
        Draw d = makeDraw(shader, {k == 1 ? in : atlas[(k - 1) % 2]}, target);
        if (axis == 0) d.x = p.offset[k], d.y = 0, d.w = p.size[k], d.h = across;
        else d.x = 0, d.y = p.offset[k], d.w = across, d.h = p.size[k];
        steps_.push_back(DrawStep{{d}, false, -1});
        passes_.push_back({shader.name, describe(atlasFormat), "1 draw of " + std::to_string(p.size[k]) + " blocks; " +
                                                                   describe(shader.cost)});
    }
    const FragmentShader shader =
        pyramidBoxShader(!packed_, axis, box, p, length, shift, outShift, in.format, atlasFormat, out);
    const Value result = full(shader, {in, atlas[0], atlas[1]}, out, {}, outWidth, outHeight);
    return result;
}

FragmentPlanner::Value FragmentPlanner::boxes(const BoxBlur& plan, int axis, const Value& in) {
    // The padded-copy definition (docs/algorithms.md): the first box pads the line by
    // passes (r + 1) replicated samples, the last crops it, so every pass clamps where the
    // reference's padded line ends. Each box is the sum pyramid's difference of two prefixes
    // (docs/algorithms.md 2.4), or a direct sum of its 2r + 3 taps split into accumulating draws when
    // they exceed the budget.
    const ExtendedBox& box = plan.box;
    const int pad = plan.pad, taps = 2 * box.r + 3;
    const int padW = format_.width + (axis == 0 ? 2 * pad : 0), padH = format_.height + (axis == 1 ? 2 * pad : 0);
    const PlaneFormat out = planeFormat(false, in.format.bound, in.format.nonNegative);
    // Float planes take the sum pyramid where it needs under half the taps' fetches: its prefixes
    // cost a fetch per level and about as much again in ALU and level draws (measured on
    // llvmpipe: sigma 16 at 720p 256 ms against the taps' 186, sigma 32 274 against 348), and its
    // float sums lose what the line's total loses in the last bit, which a wide box divides away
    // (docs/algorithms.md). Packed planes keep the taps: 16-bit codes cannot hold sums of 2^k
    // samples within docs/algorithms.md 8.
    const int length = (axis == 0 ? format_.width : format_.height) + 2 * pad;
    const Pyramid lines = pyramidOf(length);
    pyramidApplies_ = pyramidApplies_ || !packed_;
    const bool pyramid =
        !packed_ && options_.boxPyramid != PyramidUse::Never &&
        (options_.boxPyramid == PyramidUse::Always || 2 * (2 * lines.levels + 6) < taps) &&
        fits(pyramidBoxShader(!packed_, axis, box, lines, length, 0, 0, in.format, in.format, in.format).cost, limits_.budget);
    Value v = in;
    for (int pass = 0; pass < kBoxPasses && status_; ++pass) {
        const int shift = pass == 0 ? -pad : pass == kBoxPasses - 1 ? pad : 0;
        const bool last = pass == kBoxPasses - 1;
        if (pyramid) {
            // The line is the padded one: the first pass reads the input shifted by -pad
            // (clamped), the others the padded planes; the last writes the frame's size.
            const Value next = pyramidBox(box, axis, v, length, pass == 0 ? -pad : 0, last ? pad : 0, last ? 0 : padW,
                                          last ? 0 : padH);
            v = next;
            continue;
        }
        Value acc;
        for (int first = 0; first < taps && status_;) {
            const int end = largestFitting(first + 1, taps - 1, [&](int e) {
                return fits(boxTapsShader(!packed_, box, first, e, axis, shift, v.format, out).cost, limits_.budget);
            });  // first alone where no more fit
            const FragmentShader shader = boxTapsShader(!packed_, box, first, end, axis, shift, v.format, out);
            std::vector<Value> inputs{v};
            if (first > 0) inputs.push_back(acc);
            const Value next = last ? full(shader, inputs, out) : full(shader, inputs, out, {}, padW, padH);
            acc = next;
            first = end + 1;
        }
        v = acc;
    }
    return v;
}

FragmentPlanner::Value FragmentPlanner::quadBlur(const QuadWeights& q, const std::string& what, const Value& in) {
    // Float planes whose QuadRows render (GLES 3.0), a real input, and each axis in one shader
    // within budget; otherwise the per-pixel passes (Value{}: not taken). The input is packed
    // into quads with a border first (read per pixel, whatever its kind; the 8-bit input into
    // RGBA8, exactly).
    if (packed_ || !caps_.quadRows || in.format.complex) return {};
    const int R = q.radius(), H = format_.height, quads = (format_.width + 3) / 4, rowsOut = (H + 3) / 4;
    const Bands bands = bandsFor(rowsOut, 4, R);
    const bool tiled = bands.tiled;
    const FragmentShader rows = quadRowsShader(!packed_, what, q, tiled);
    if (!fits(rows.cost, limits_.budget)) return {};
    // The vertical pass in as few draws as fit: each the most input rows that fit (the cost
    // grows with them; found by bisection).
    std::vector<FragmentShader> columns;
    for (int e0 = -R; e0 <= R + 3;) {
        const int hi = largestFitting(e0, R + 3, [&](int row) {
            return fits(quadRowsColumnsShader(!packed_, what, q, e0, row, tiled).cost, limits_.budget);
        });
        if (hi < e0) return {};
        columns.push_back(quadRowsColumnsShader(!packed_, what, q, e0, hi, tiled));
        e0 = hi + 1;
    }
    const int pad = quadPad(R);
    const PlaneFormat packedIn{in.format.kind == PlaneKind::Luma8 ? PlaneKind::Quad8 : PlaneKind::Quad, false,
                               in.format.bound, in.format.nonNegative};
    const Value src = full(quadPackShader(!packed_, in.format, pad), {in}, packedIn, {}, quads + 2 * pad, H);
    // Bounds as the per-pixel passes: the L1 norm of the taps (1 for the normalised Gaussian).
    double l1 = 1;
    if (!q.direct()) {
        l1 = q.taps[0];
        for (std::size_t k = 1; k < q.taps.size(); ++k) l1 += 2 * std::abs(q.taps[k]);
    }
    const PlaneFormat mid{PlaneKind::Quad, false, in.format.bound * l1, in.format.nonNegative && q.direct()};
    const PlaneFormat out{PlaneKind::QuadRows, false, mid.bound * l1, mid.nonNegative};
    const Value h{acquire(mid, quads, bands.tileRows), mid};
    std::vector<Value> sums;
    for (std::size_t i = 0; i < columns.size(); ++i) sums.push_back(Value{acquire(out, quads, rowsOut), out});
    return banded(bands, rows, src, h, columns, sums);
}

FragmentPlanner::Bands FragmentPlanner::bandsFor(int outputRows, int rowsPerOutput, int R) {
    // The horizontal pass's output lives between the two passes only, so on a tall frame it
    // is made a band of output rows at a time into a tile (bands of at least kBandRows frame
    // rows, and of 16 R so the 2 R rows each tile repeats stay within an eighth), each band's
    // vertical pass following its tile: a tile instead of a frame-sized plane (1080p quads:
    // 1.7 MiB instead of 7.9 at R = 8; docs/performance-history.md). Only where the tile is at most
    // half the frame: the repeated rows and the draws cost time (a bank's wide low-pass at
    // 640x480 ran 4% slower tiled) for less memory saved.
    Bands b;
    b.outputRows = outputRows;
    b.rowsPerOutput = rowsPerOutput;
    b.R = R;
    const int least = std::max(1, std::max(kBandRows, 16 * R) / rowsPerOutput);
    b.count = (outputRows + least - 1) / least;
    b.rows = (outputRows + b.count - 1) / b.count;
    b.tileRows = rowsPerOutput * b.rows + 2 * R;
    const bool tileable = b.count > 1 && 2 * b.tileRows <= format_.height;
    tilesWouldApply_ = tilesWouldApply_ || tileable;
    b.tiled = options_.tiles != TileUse::Never && tileable;
    if (!b.tiled) b.count = 1, b.rows = outputRows, b.tileRows = format_.height;  // one band, the frame's plane
    return b;
}

FragmentPlanner::Value FragmentPlanner::banded(const Bands& b, const FragmentShader& rows, const Value& in, const Value& tile,
                                               const std::vector<FragmentShader>& columns, const std::vector<Value>& sums) {
    // Band [Y0, Y1) of output rows needs frame rows k Y0 - R .. k Y1 - 1 + R (k frame rows an
    // output row); its tile holds tileRows rows from s, moved inside the frame where the band's
    // rows run past its edges, so the tile's clamp replicates the frame's first and last rows
    // exactly where the frame's would.
    // Untiled: one band, no shift and no scissor, the frame-sized plane as the tile.
    const int H = format_.height, k = b.rowsPerOutput;
    const auto shift = [&](float s) { return b.tiled ? Uniforms{{"u_shift0", {0.0f, s, 0.0f, 0.0f}}} : Uniforms{}; };
    for (int Y0 = 0; Y0 < b.outputRows; Y0 += b.rows) {
        const int Y1 = std::min(b.outputRows, Y0 + b.rows);
        const float s = static_cast<float>(std::clamp(k * Y0 - b.R, 0, H - b.tileRows));
        DrawStep step;
        step.passes.push_back(makeDraw(rows, {in}, tile, shift(s)));
        for (std::size_t i = 0; i < columns.size(); ++i) {
            Draw d = makeDraw(columns[i], i ? std::vector<Value>{tile, sums[i - 1]} : std::vector<Value>{tile}, sums[i], shift(-s));
            if (b.tiled) d.x = 0, d.y = Y0, d.w = planes_[sums[i].plane].width, d.h = Y1 - Y0;
            step.passes.push_back(std::move(d));
        }
        steps_.push_back(std::move(step));
    }
    const std::string draws =
        b.tiled ? std::to_string(b.count) + " draws, a band of " + std::to_string(k * b.rows) + " rows each; " : "1 draw; ";
    passes_.push_back({rows.name, describe(tile.format) + (b.tiled ? ", a tile of " + std::to_string(b.tileRows) + " rows" : ""),
                       draws + describe(rows.cost)});
    for (std::size_t i = 0; i < columns.size(); ++i)
        passes_.push_back({columns[i].name, describe(sums[i].format), draws + describe(columns[i].cost)});
    return sums.back();
}

FragmentPlanner::Value FragmentPlanner::tiledDirect(double sigma, const Value& in) {
    const int R = gaussianRadius(sigma);
    const Bands b = bandsFor(format_.height, 1, R);
    if (!b.tiled) return {};
    // The formats directGaussian gives each axis (positive taps: the bound and sign carry over).
    const PlaneFormat out = planeFormat(false, in.format.bound, in.format.nonNegative);
    const FragmentShader x = directShader(!packed_, sigma, R, 0, in.format, out, 0, true);
    const FragmentShader y = directShader(!packed_, sigma, R, 1, out, out, 0, true);
    if (!fits(x.cost, limits_.budget) || !fits(y.cost, limits_.budget)) return {};
    const Value tile{acquire(out, format_.width, b.tileRows), out};
    return banded(b, x, in, tile, {y}, {Value{acquire(out), out}});
}

FragmentPlanner::Value FragmentPlanner::stage(const BlurStagePlan& plan, const Value& in) { return blur(plan.blur, in); }

FragmentPlanner::Value FragmentPlanner::blur(const BlurPlan& plan, const Value& in, double weight) {
    return std::visit(Overloaded{[&](const DirectBlur&) {
                                     if (const Value q = quadBlur(QuadWeights{plan.sigma, {}}, "blur.direct", in); q.plane >= 0)
                                         return q;
                                     if (const Value t = tiledDirect(plan.sigma, in); t.plane >= 0) return t;
                                     const Value h = directGaussian(plan.sigma, 0, in);
                                     return directGaussian(plan.sigma, 1, h);
                                 },
                                 [&](const BoxBlur& b) {
                                     const Value h = boxes(b, 0, in);
                                     return boxes(b, 1, h);
                                 },
                                 [&](const RecursiveBlur& r) {
                                     GaborTaps taps;
                                     if (response(r.cascade, true, &taps, weight))
                                         if (const Value q = quadBlur(QuadWeights{0, taps.c}, "recursive.response", in);
                                             q.plane >= 0)
                                             return q;
                                     const Value h = recursive(r.cascade, 0, in, false, nullptr, weight);
                                     return recursive(r.cascade, 1, h, false, nullptr, weight);
                                 }},
                      plan.method);
}

} // namespace striate::gles
