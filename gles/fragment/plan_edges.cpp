// gles-fragment planners: the Gabor bank and its combine, and the edge stage (gradient,
// suppression, hysteresis, output).
#include "gles/fragment/planner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <variant>

#include "core/coefficients.h"
#include "core/response.h"
#include "gles/fragment/fir_shaders.h"
#include "gles/fragment/glsl.h"

namespace striate::gles {
namespace {

/// Packed strengths closer than this many codes count as tied in non-maximum suppression.
constexpr double kPackedTieCodes = 8;
/// Canny's strength on float planes without the sector held in its two lowest mantissa bits.
const std::string kStrengthBits = "0xfffffffcu";

/// The strength of a fetched value (sectorBits: without the sector's bits).
std::string strengthBits(const std::string& fetched, bool sectorBits) {
    return sectorBits ? "uintBitsToFloat(floatBitsToUint(" + fetched + ".x) & " + kStrengthBits + ")" : fetched + ".x";
}

const char* sinkName(GaborSink s) {
    for (const auto& e : kGaborSinks)
        if (e.value == s) return e.description;
    return "?";
}

/// The NMS sectors of gradients gx, gy (vectors of `type`: vec2, vec4) held in ax, ay as their
/// magnitudes, as the per-pixel gradient assigns them. GLSL ES 1.00 mixes by a float vector
/// (`es3`: by the comparisons' bool vector).
std::string sectorsOf(const std::string& type, bool es3) {
    const auto by = [&](const std::string& b) { return es3 ? b : type + "(" + b + ")"; };
    return "mix(mix(mix(" + type + "(3.0), " + type + "(1.0), " + by("equal(greaterThan(gx, " + type + "(0.0)), greaterThan(gy, " + type + "(0.0)))") +
           "), " + type + "(2.0), " + by("greaterThan(ay, " + f(kTan67_5) + " * ax)") + "), " + type + "(0.0), " +
           by("lessThanEqual(ay, " + f(kTan22_5) + " * ax)") + ")";
}

/// An overlay copies the 8-bit input exactly: a texture unit's c / 255 may be an ulp off the
/// reference's float(c / 255), so the shader looks each code's unit value up, u_unit[c / 4][c % 4]
/// (unitValues()). Declares the table in `w` and gives its values to `uniforms`.
void unitTable(FragmentWriter& w, FragmentPlanner::Uniforms* uniforms) {
    w.uniformArray("u_unit", 64);
    const std::array<float, 256>& unit = unitValues();
    uniforms->push_back({"u_unit", std::vector<float>(unit.begin(), unit.end())});
}

/// FragmentPlanner::rowPairVertical's program: R tap pairs over the packed plane `h` (complex,
/// or real where the horizontal pass had no frequency), complex taps or real ones (`realTaps`:
/// no frequency along y), DC removed where `gauss` is given, the running maximum where `best` is.
/// `withMirror` (complex taps on a complex plane): the mirror's response too, whose taps are the
/// conjugates (GaborOrientationPlan::tyOnPartner), from the same sums: the cosine taps' part and
/// the sine taps' part apart, added for one and subtracted for the other.
FragmentShader rowPairShader(int R, const RowPairForm& form, const std::string& what, const PlaneFormat& h,
                             const PlaneFormat* gauss, const PlaneFormat* best) {
    const bool removeDc = gauss != nullptr, running = best != nullptr, realInput = !h.complex;
    const bool realTaps = form.realTaps, withMirror = form.withMirror;
    FragmentWriter w(what + " y " + std::to_string(R) + " tap pairs and the centre" +
                         (realInput ? " on a real plane" : "") + (realTaps && !form.values ? ", real taps" : "") +
                         ", two rows per fragment" + (withMirror ? ", with its mirror" : "") +
                         (form.values ? "" : ", gabor.combine bank maximum") + (running ? " (running)" : ""),
                     false);
    w.input(0, h);
    const int dcSlot = 1, bestSlot = removeDc ? 2 : 1;
    if (removeDc) w.input(dcSlot, *gauss);
    if (running) w.input(bestSlot, *best);
    // u_taps: tapsUniform's (codes' map folded in), u_offsets: rows -R .. R + 1 from row 2q,
    // u_combine: the DC gain (rowPairVertical), a code's value, its reciprocal.
    w.uniformArray("u_taps", 1 + (R + 1) / 2);
    w.uniformArray("u_offsets", (2 * R + 2 + 3) / 4);
    w.uniform("u_combine");
    w.line("vec2 tc = vec2(pos.x, 2.0 * floor(pos.y) + 0.5) * u_texel0;", 4);
    // Row 2q + j as it is first needed; each is needed by the two rows' sums within one step of
    // k, so few are live at once.
    std::vector<bool> fetched(2 * R + 2, false);
    const auto row = [&](int j) {
        const std::string name = j < 0 ? "vm" + std::to_string(-j) : "vp" + std::to_string(j);
        if (!fetched[j + R]) {
            fetched[j + R] = true;
            const std::string offset = offsetUniform(j + R);
            w.line("vec2 " + name + " = " + w.fetchCodesNormalised(0, "vec2(tc.x, tc.y + " + offset + ")") + ";", 0);
        }
        return name;
    };
    // The centres, then tap pairs k = 1 .. R in tapsShader's order (the same sums).
    // A real plane's codes are in x (the offsets of the codes' map too: the differences have none).
    w.line("vec2 z0 = u_taps[0].x * " + row(0) + ", z1 = u_taps[0].x * " + row(1) + ";", 2);
    w.line(realInput ? "z0.x += u_taps[0].y; z1.x += u_taps[0].y;" : "z0 += vec2(u_taps[0].y); z1 += vec2(u_taps[0].y);",
           realInput ? 2 : 4);
    // withMirror: z holds the cosine taps' sums, s the sine taps' (s.x of the imaginary parts).
    if (withMirror) w.line("vec2 s0 = vec2(0.0), s1 = vec2(0.0);", 0);
    for (int k = 1; k <= R; ++k) {
        const std::string t = "u_taps[" + std::to_string(1 + (k - 1) / 2) + "]" + ((k - 1) % 2 ? ".zw" : ".xy");
        for (int r = 0; r < 2; ++r) {
            const std::string z = r == 0 ? "z0" : "z1", a = row(r - k), b = row(r + k);
            if (withMirror) {
                w.line(z + " += (" + a + " + " + b + ") * " + t + ".x;", 6);
                w.line(std::string(r == 0 ? "s0" : "s1") + " += (" + a + ".yx - " + b + ".yx) * " + t + ".y;", 6);
            } else if (!realInput && !realTaps) {
                addComplexPair(w, z, a, b, t);
            } else if (!realInput) {
                w.line(z + " += (" + a + " + " + b + ") * " + t + ".x;", 6);
            } else {
                w.line(z + ".x += (" + a + ".x + " + b + ".x) * " + t + ".x;", 3);
                if (!realTaps) w.line(z + ".y += (" + a + ".x - " + b + ".x) * " + t + ".y;", 3);
            }
        }
    }
    if (form.values) return w.finish("vec2(z0.x, z1.x)", PlaneFormat{PlaneKind::RowPair, false, 1, false});
    if (withMirror) {
        // This orientation's response and the mirror's: cosine part plus or minus the sine part.
        w.line("vec2 m0 = vec2(z0.x + s0.x, z0.y - s0.y), m1 = vec2(z1.x + s1.x, z1.y - s1.y);", 4);
        w.line("z0 = vec2(z0.x - s0.x, z0.y + s0.y); z1 = vec2(z1.x - s1.x, z1.y + s1.y);", 4);
    }
    if (removeDc && gauss->kind == PlaneKind::RowPair) {
        // Both rows' DC values in one texel of a RowPair plane, the codes' map times the DC gain
        // in u_combine.xy (rowPairVertical).
        w.line("vec2 dc = " + w.fetchCodesAt(dcSlot, "pos") + " * u_combine.x - vec2(u_combine.y);", 2);
    } else if (removeDc) {
        const std::string g = "u_texel" + std::to_string(dcSlot);
        w.line("vec2 tg = vec2(pos.x, 2.0 * floor(pos.y) + 0.5) * " + g + ";", 4);
        w.line("vec2 dc = u_combine.x * vec2(" + w.fetchNormalised(dcSlot, "tg") + ".x, " +
                   w.fetchNormalised(dcSlot, "vec2(tg.x, tg.y + " + g + ".y)") + ".x);",
               2);
    }
    if (removeDc) {
        w.line("z0.x -= dc.x; z1.x -= dc.y;", 2);
        if (withMirror) w.line("m0.x -= dc.x; m1.x -= dc.y;", 2);
    }
    // The magnitudes as q / sqrt(q), their codes (not negative: a conversion to int is the
    // floor), and the first of near-equal maxima kept (kTieTolerance), as tapsShader's tail does;
    // the mirror's after this orientation's, as its own pass would.
    const auto codes = [&](const std::string& type, const std::string& q) {
        return type + "(i" + type + "(min(" + q + " * inversesqrt(max(" + q + ", " + type + "(1e-30))) * u_combine.w, " + type +
               "(65535.0)) + 0.5))";
    };
    const std::string keep = f(1 + kTieTolerance);
    if (withMirror) {
        w.line("vec4 q = vec4(dot(z0, z0), dot(z1, z1), dot(m0, m0), dot(m1, m1));", 8);
        w.line("vec4 codes = " + codes("vec4", "q") + ";", 16);
        w.line("vec2 code = codes.xy;", 0);
    } else {
        w.line("vec2 q = vec2(dot(z0, z0), dot(z1, z1));", 4);
        w.line("vec2 code = " + codes("vec2", "q") + ";", 8);
    }
    if (running) {
        w.line("vec2 was = " + w.fetchCodesAt(bestSlot, "pos") + ";", 0);
        w.line("code = mix(was, code, vec2(greaterThan(code, was * " + keep + ")));", 4);
    }
    if (withMirror) w.line("code = mix(code, codes.zw, vec2(greaterThan(codes.zw, code * " + keep + ")));", 4);
    w.line("vec2 hi = vec2(ivec2(code * 0.00390625));", 2);
    return w.finishRaw("vec4(hi.x, code.x - 256.0 * hi.x, hi.y, code.y - 256.0 * hi.y) / 255.0");
}

} // namespace

FragmentPlanner::Value FragmentPlanner::stage(const GaborStagePlan& plan, const Value& in) { return gabor(plan.gabor, in); }

FragmentPlanner::Value FragmentPlanner::gabor(const GaborPlan& plan, const Value& in) {
    if (const Value v = rowPairBank(plan, in); v.plane >= 0 || !status_) return v;
    // The DC plane reaches the output times K = K_x K_y (docs/algorithms.md 3.4): its response's
    // cut follows the largest |K| at this frequency over every orientation (GaborPlan::dcWeightBound),
    // so that a new orientation plans the same programs (a property changed while playing
    // compiles nothing; the recursion's K moves with the orientation).
    Value gauss;
    if (plan.removeDc) gauss = blur(plan.dcBlur, in, plan.dcWeightBound);
    // One bound for every orientation: the bank's running maximum is re-encoded at each step.
    double bound = 0;
    for (const GaborOrientationPlan& o : plan.bank) {
        const double axes = plan.recursive ? cascadeL1(o.x) * cascadeL1(o.y) : tapsL1(o.tx) * tapsL1(o.ty);
        bound = std::max(bound, in.format.bound * axes + (plan.removeDc ? std::abs(o.dcGain) * gauss.format.bound : 0.0));
    }
    const bool bank = isBankSink(plan.sink);
    Value best;  // bank: running maximum, and for edges the winner's sector in the imaginary part
    Value result;
    Value h;  // the last horizontal pass, which a mirror shares
    for (std::size_t k = 0; k < plan.bank.size() && status_; ++k) {
        const GaborOrientationPlan& o = plan.bank[k];
        // The stage's output from z (docs/algorithms.md 3.1, 3.4): DC removed first. u_combine: the
        // DC gain K_x K_y, this orientation's sector (scaled), the packed strength step. It ends
        // the vertical pass's last draw where that fits the budget, so z is never stored.
        Tail tail;
        tail.shader.name = std::string("gabor.combine ") + sinkName(plan.sink) + (k > 0 && bank ? " (running)" : "");
        tail.uniforms = {{"u_combine", {o.dcGain, static_cast<float>(o.sector * bound / 3), static_cast<float>(bound / 65535),
                                        static_cast<float>(65535 / bound)}}};
        if (plan.removeDc) tail.inputs.push_back(gauss);
        if (bank && k > 0) tail.inputs.push_back(best);
        PlaneFormat& format = tail.shader.format;
        std::string value = "vec2(m, 0.0)";
        format = planeFormat(false, bound, true);
        switch (plan.sink) {
        case GaborSink::Real: value = "vec2(z.x, 0.0)"; format = planeFormat(false, bound); break;
        case GaborSink::Imaginary: value = "vec2(z.y, 0.0)"; format = planeFormat(false, bound); break;
        case GaborSink::Phase:
            value = "vec2(z.x == 0.0 && z.y == 0.0 ? 0.0 : atan(z.y, z.x), 0.0)";
            format = planeFormat(false, 3.2);
            break;
        case GaborSink::Complex: value = "z"; format = planeFormat(true, bound); break;
        // The running maximum, and for edges (MaxEnergy) the winner's sector with it.
        case GaborSink::MaxMagnitude: value = "best"; break;
        case GaborSink::MaxEnergy: value = "best"; format = planeFormat(true, bound, true); break;
        default: break;
        }
        const bool removeDc = plan.removeDc, packed = packed_, running = bank && k > 0, phase = sinkTraits(plan.sink).phase;
        const PlaneFormat gaussFormat = gauss.format, bestFormat = best.format;
        tail.shader.code = [=](FragmentWriter& w, int slot) {
            w.uniform("u_combine");
            if (removeDc) {
                w.input(slot, gaussFormat);
                w.line("z.x -= u_combine.x * " + w.fetch(slot++, "") + ".x;", 1);
            }
            if (packed) {
                // q / sqrt(q): vc4 takes sqrt as the reciprocal of a reciprocal square root.
                w.line("float q = dot(z, z), m = q * inversesqrt(max(q, 1e-30));", 4);
            } else {
                w.line("float m = length(z);", 3);
            }
            if (phase) w.line("", 4);  // atan
            if (!bank) return value;
            // Compare what will be stored: equal packed strengths quantise alike, so the bank
            // keeps the first of a tie as the float backends do. (m is not negative: a
            // conversion to int is its floor; vc4 emulates floor().)
            if (packed) w.line("m = float(int(min(m * u_combine.w, 65535.0) + 0.5)) * u_combine.z;", 4);
            if (!running) {
                w.line("vec2 best = vec2(m, u_combine.y);", 0);
            } else {
                // Keep the first of near-equal maxima (kTieTolerance), as every backend does.
                w.input(slot, bestFormat);
                w.line("vec2 best = " + w.fetch(slot, "") + ";", 0);
                w.line("if (m > best.x * " + f(1 + kTieTolerance) + ") best = vec2(m, u_combine.y);", 3);
            }
            return value;
        };
        if (o.mirrorsPrevious) {
            // A mirror: its partner's horizontal pass, then the vertical pass at -wy (its response
            // conjugated; a bank takes magnitudes). The partner's pass is held through its
            // vertical pass, where z is not (the tail fused): on packed planes as on float ones
            // the bank holds no more at its peak (rpi3 at 1080p: 33.6 MiB either way).
            result = plan.recursive ? recursive(o.yOnPartner, 1, h, true, &tail)
                                    : tapsAxis(o.tyOnPartner, 1, h, true, "gabor.direct", &tail);
        } else if (plan.recursive) {
            h = recursive(o.x, 0, in, true);
            result = recursive(o.y, 1, h, true, &tail);
        } else {
            h = tapsAxis(o.tx, 0, in, true, "gabor.direct");
            result = tapsAxis(o.ty, 1, h, true, "gabor.direct", &tail);
        }
        if (bank) best = result;
    }
    return result;
}

FragmentPlanner::Value FragmentPlanner::rowPairBank(const GaborPlan& plan, const Value& in) {
    if (!packed_ || plan.sink != GaborSink::MaxMagnitude || plan.bank.size() < 2) return {};
    const std::string what = plan.recursive ? "recursive.response" : "gabor.direct";
    // Each orientation's taps (recursive: its responses). An axis free of frequency (0 or 90
    // degrees, recursive) runs the Gaussian's real taps, so the other axis takes the DC's removal,
    // K times the Gaussian's taps less (GaborOrientationPlan::along does so for the direct form):
    // no DC plane read, half the arithmetic of a complex pass. Only where that axis's response is
    // the DC blur's (the same recursion, checked tap by tap), as the folding needs.
    const auto* dcRecursion = std::get_if<RecursiveBlur>(&plan.dcBlur.method);
    GaborTaps gaussian;  // the DC blur's response at the full cut
    const bool dcGaussian = plan.removeDc && dcRecursion && response(dcRecursion->cascade, false, &gaussian);
    const auto isGaussian = [&](const GaborTaps& t) {
        if (!plan.removeDc) return true;  // no DC to fold: real taps are all it takes
        return dcGaussian && sameTaps(t, gaussian, 0.0f);  // the cosines the Gaussian's, the sines none
    };
    struct Member {
        const GaborOrientationPlan* o;
        GaborTaps x, y;  // x: unused by a mirror, which reads its partner's horizontal pass
        bool realX = false, realY = false;
    };
    std::vector<Member> members;
    bool dcPlane = false;  // some orientation reads the DC plane
    for (const GaborOrientationPlan& o : plan.bank) {
        Member m{&o, o.tx, o.mirrorsPrevious ? o.tyOnPartner : o.ty};
        if (plan.recursive &&
            !(response(o.x, false, &m.x) && response(o.mirrorsPrevious ? o.yOnPartner : o.y, false, &m.y)))
            return {};
        m.realX = plan.recursive && !o.mirrorsPrevious && std::abs(o.wx) < kNoFrequency && isGaussian(m.x);
        m.realY = plan.recursive && !m.realX && std::abs(o.wy) < kNoFrequency && isGaussian(m.y);
        const auto fold = [&](GaborTaps& along, const GaborTaps& free) {
            if (along.c.size() < free.c.size()) along.c.resize(free.c.size()), along.s.resize(free.c.size());
            for (std::size_t t = 0; t < free.c.size(); ++t) along.c[t] -= o.dcGain * free.c[t];
        };
        if (m.realX) std::fill(m.x.s.begin(), m.x.s.end(), 0.0f);
        if (m.realY) std::fill(m.y.s.begin(), m.y.s.end(), 0.0f);
        if (plan.removeDc && m.realY) fold(m.x, m.y);
        else if (plan.removeDc && m.realX) fold(m.y, m.x);
        else dcPlane = dcPlane || plan.removeDc;
        members.push_back(std::move(m));
    }
    // A real horizontal pass runs first: the DC plane's vertical pass reads it (the DC blur's
    // response, above), and it is freed once its own vertical pass has run, so the bank holds no
    // more planes than before.
    const auto shared = std::find_if(members.begin(), members.end(), [](const Member& m) { return m.realX; });
    if (shared != members.end()) std::rotate(members.begin(), shared, shared + 1);
    const bool dcShared = dcPlane && shared != members.end();
    // A mirror's vertical pass runs in its partner's program (rowPairShader's withMirror) where
    // its taps are the partner's conjugated and its DC gain the same (as the recursion makes
    // them).
    const auto conjugates = [](const Member& a, const Member& b) {
        return a.o->dcGain == b.o->dcGain && sameTaps(a.y, b.y, -1.0f);
    };
    std::vector<RowPairForm> forms(members.size());
    for (std::size_t k = 0; k < members.size(); ++k) {
        forms[k].realTaps = members[k].realY;
        forms[k].withMirror = k + 1 < members.size() && members[k + 1].o->mirrorsPrevious && !members[k].realX &&
                              !members[k].realY && conjugates(members[k], members[k + 1]);
    }
    // Every program must fit the board's budget, else the per-pixel passes run. A recursive DC
    // blur (the stage's own Gaussian, its response cut for its weight) runs its vertical pass two
    // rows a fragment too, into a RowPair plane: one fetch for both rows' values in the vertical
    // passes that read it.
    const PlaneFormat complexPacked{PlaneKind::Packed, true, 1, false}, realPacked{PlaneKind::Packed, false, 1, false},
        rows{PlaneKind::RowPair, false, 1, true};
    GaborTaps dcTaps;  // the DC blur's response at its weight's cut: its vertical pass, and its horizontal one unshared
    const bool dcResponse = dcPlane && dcRecursion && response(dcRecursion->cascade, false, &dcTaps, plan.dcWeightBound);
    const int dcR = static_cast<int>(dcTaps.c.size()) - 1;
    const bool dcRows =
        dcResponse && fits(rowPairShader(dcR, RowPairForm{true, false, true}, what, realPacked, nullptr, nullptr).cost,
                           limits_.budget);
    const PlaneFormat dcFormat = dcRows ? PlaneFormat{PlaneKind::RowPair, false, 1, false} : realPacked;
    for (std::size_t k = 0; k < members.size(); ++k) {
        const Member& m = members[k];
        const bool readsDc = dcPlane && !m.realX && !m.realY;
        const FragmentShader shader = rowPairShader(static_cast<int>(m.y.c.size()) - 1, forms[k], what,
                                                    m.realX ? realPacked : complexPacked,
                                                    readsDc ? &dcFormat : nullptr, k > 0 ? &rows : nullptr);
        if (!fits(shader.cost, limits_.budget)) return {};
    }
    // The horizontal passes from the frame read four pixels a fetch (phaseAxis: a padded Quad8
    // copy of it, a draw a phase x mod 4) where every plane the vertical passes read comes so
    // (the DC plane's too: its response's): the columns are then in phase order, which the
    // vertical passes do not see and the unpairing undoes.
    bool phases = in.format.kind == PlaneKind::Luma8 && (!dcPlane || dcResponse);
    int pad = dcShared || !dcPlane ? 0 : quadPad(dcR);
    if (phases && dcPlane && !dcShared) phases = fits(phaseShader(what, dcR, false, realPacked).cost, limits_.budget);
    for (const Member& m : members) {
        const int R = static_cast<int>(m.x.c.size()) - 1;
        pad = std::max(pad, quadPad(R));
        phases = phases && fits(phaseShader(what, R, !m.realX, m.realX ? realPacked : complexPacked).cost, limits_.budget);
    }
    Value quads;
    if (phases)
        quads = full(quadPackShader(false, in.format, pad), {in},
                     PlaneFormat{PlaneKind::Quad8, false, in.format.bound, in.format.nonNegative}, {},
                     (format_.width + 3) / 4 + 2 * pad, format_.height);
    // A real horizontal pass is named apart from the complex ones of its length.
    const std::string gaussianName = "recursive.gaussian";
    const auto horizontal = [&](const GaborTaps& taps, bool complexOut, const std::string& name) {
        return phases ? phaseAxis(taps, quads, pad, in.format.bound, complexOut, name) : tapsAxis(taps, 0, in, complexOut, name);
    };
    const auto memberHorizontal = [&](const Member& m) { return horizontal(m.x, !m.realX, m.realX ? gaussianName : what); };
    Value h, gauss;
    if (dcResponse) {
        const Value across = dcShared ? (h = memberHorizontal(members[0])) : horizontal(dcTaps, false, what);
        gauss = dcRows ? rowPairVertical(dcTaps, RowPairForm{true, false, true}, what, across, Value{}, 0, Value{},
                                         across.format.bound * tapsL1(dcTaps))
                       : tapsAxis(dcTaps, 1, across, false, what);
    } else if (dcPlane) {
        gauss = blur(plan.dcBlur, in, plan.dcWeightBound);
    }
    // One bound for every orientation: the bank's running maximum is re-encoded at each step.
    double bound = 0;
    for (const Member& m : members)
        bound = std::max(bound, in.format.bound * tapsL1(m.x) * tapsL1(m.y) +
                                    (dcPlane && !m.realX && !m.realY ? std::abs(m.o->dcGain) * gauss.format.bound : 0.0));
    Value best;
    for (std::size_t k = 0; k < members.size() && status_; ++k) {
        const Member& m = members[k];
        if (!(k == 0 && dcShared) && !m.o->mirrorsPrevious) h = memberHorizontal(m);
        const bool readsDc = dcPlane && !m.realX && !m.realY;
        best = rowPairVertical(m.y, forms[k], what, h, readsDc ? gauss : Value{}, m.o->dcGain, best, bound);
        if (forms[k].withMirror) ++k;
    }
    return status_ ? unpairRows(best, planeFormat(false, bound, true), phases) : Value{};
}

FragmentPlanner::Value FragmentPlanner::phaseAxis(const GaborTaps& taps, const Value& quads, int pad, double inBound,
                                                  bool complexOut, const std::string& what) {
    const int R = static_cast<int>(taps.c.size()) - 1, P = quadPad(R);
    const PlaneFormat out = planeFormat(complexOut, inBound * tapsL1(taps));
    const FragmentShader shader = phaseShader(what, R, complexOut, out);
    const Value target{acquire(out), out};
    DrawStep step{{}, false, -1};
    for (int k = 0; k < 4; ++k) {
        const int start = phaseStart(format_.width, k), count = phaseCount(format_.width, k);
        if (count == 0) continue;  // a frame narrower than four pixels
        Uniforms uniforms{{"u_wre", phaseWeights(taps, k, false)},
                          {"u_offsets", tapsOffsets(-P, 2 * P + 1, planes_[quads.plane].width)},
                          {"u_phase", {static_cast<float>(pad - start), 0.0f, 0.0f, 0.0f}}};
        if (complexOut) uniforms.push_back({"u_wim", phaseWeights(taps, k, true)});
        Draw d = makeDraw(shader, {quads}, target, uniforms);
        d.x = start;
        d.w = count;
        d.h = format_.height;
        step.passes.push_back(std::move(d));
    }
    passes_.push_back({shader.name, describe(out), std::to_string(step.passes.size()) + " draws; " + describe(shader.cost)});
    steps_.push_back(std::move(step));
    return target;
}

FragmentPlanner::Value FragmentPlanner::rowPairVertical(const GaborTaps& taps, const RowPairForm& form,
                                                        const std::string& what, const Value& h, const Value& gauss,
                                                        double dcGain, const Value& best, double bound) {
    const int R = static_cast<int>(taps.c.size()) - 1;
    const bool removeDc = gauss.plane >= 0, running = best.plane >= 0;
    const FragmentShader shader = rowPairShader(R, form, what, h.format, removeDc ? &gauss.format : nullptr,
                                                running ? &best.format : nullptr);
    std::vector<Value> inputs{h};
    if (removeDc) inputs.push_back(gauss);
    if (running) inputs.push_back(best);
    // u_combine: the DC gain (a RowPair DC plane: times its codes' map, x and y), a code's value,
    // its reciprocal.
    std::array<float, 2> dc = {static_cast<float>(dcGain), 0.0f};
    if (removeDc && gauss.format.kind == PlaneKind::RowPair) {
        const std::array<float, 2> m = codeUniform(gauss.format);
        dc = {static_cast<float>(dcGain * m[0]), static_cast<float>(dcGain * m[1])};
    }
    const Uniforms uniforms{{"u_taps", tapsUniform(taps, 1, R, true, h.format)},
                            {"u_offsets", tapsOffsets(-R, 2 * R + 2, planes_[h.plane].height)},
                            {"u_combine", {dc[0], dc[1], static_cast<float>(bound / 65535), static_cast<float>(65535 / bound)}}};
    // A plane of half the frame's rows: the bank's peak holds two (the maximum read and written).
    // The maximum's codes are of magnitudes (not negative); the DC plane's (form.values) of values.
    const Value v = full(shader, inputs, PlaneFormat{PlaneKind::RowPair, false, bound, !form.values}, uniforms,
                         format_.width, (format_.height + 1) / 2);
    steps_.back().passes.back().readsInputsWhole = true;
    return v;
}

FragmentPlanner::Value FragmentPlanner::unpairRows(const Value& rows, const PlaneFormat& out, bool phases) {
    // Row y's code is in texel (x, y / 2): rg where y is even, ba where odd, written as a packed
    // real plane's texel (code in rg, then 0 and 1). Columns in phase order: pixel x = 4j + k in
    // column u_starts[k] + j (phaseColumn).
    FragmentWriter w(std::string("gabor.rows unpaired") + (phases ? ", columns from phase order" : ""), false);
    w.input(0, rows.format);
    Uniforms uniforms;
    std::string x = "pos.x";
    if (phases) {
        w.uniform("u_starts");
        w.line("float j = floor(pos.x * 0.25), k = floor(pos.x) - 4.0 * j;", 4);
        w.line("float column = j + 0.5 + dot(u_starts, vec4(equal(vec4(k), vec4(0.0, 1.0, 2.0, 3.0))));", 8);
        x = "column";
        std::vector<float> starts;
        for (int k = 0; k < 4; ++k) starts.push_back(static_cast<float>(phaseStart(format_.width, k)));
        uniforms.push_back({"u_starts", starts});
    }
    w.line("vec4 t = " + w.fetchRawAt(0, "vec2(" + x + ", floor(pos.y * 0.5) + 0.5)") + ";", 2);
    const Value v = full(w.finishRaw("fract(pos.y * 0.5) < 0.5 ? vec4(t.rg, 0.0, 1.0) : vec4(t.ba, 0.0, 1.0)"), {rows}, out,
                         uniforms);
    unpaired_ = Unpaired{static_cast<int>(steps_.size()) - 1, v.plane, rows.plane, phases};
    return v;
}

FragmentPlanner::Value FragmentPlanner::stage(const EdgeStagePlan& plan, const Value& in) {
    const EdgeSpec& spec = plan.spec;
    return std::visit(Overloaded{[&](const CannyPlan& c) { return cannyClasses(spec, c, in); },
                                 [&](const GaborEnergyPlan& g) { return edgeClasses(spec, false, in, gabor(g.bank, in)); }},
                      plan.method);
}

FragmentPlanner::Value FragmentPlanner::cannyClasses(const EdgeSpec& spec, const CannyPlan& plan, const Value& in) {
    // Strength and NMS sector as one complex value (re: strength, im: sector 0..3, as Gabor
    // energy's); on float planes as one R32F value (four a texel in a Quad plane: quadGradient),
    // the sector in the strength's two lowest mantissa bits (a relative change below 4e-7, cleared
    // wherever it is read): half the memory of RG32F.
    const bool sectorBits = !packed_;
    // On packed planes the blur and the gradient two pixels a fragment into Pair planes where they
    // fit and the output takes no strengths (pairGaussian, pairGradient).
    if (packed_ && spec.output != EdgeOutput::Strength && std::holds_alternative<DirectBlur>(plan.smoothing.method))
        if (const Value pairs = pairGaussian(plan.smoothing.sigma, in); pairs.plane >= 0)
            return edgeClasses(spec, true, in, pairGradient(pairs));
    const Value smooth = blur(plan.smoothing, in);
    if (sectorBits && smooth.format.kind == PlaneKind::QuadRows) return edgeClasses(spec, true, in, quadGradient(smooth));
    Value strength;
    FragmentWriter w("edges.gradient", !packed_);
    w.input(0, smooth.format);
    const std::string r = w.fetch(0, along(0, 1)), l = w.fetch(0, along(0, -1));
    const std::string d = w.fetch(0, along(1, 1)), u = w.fetch(0, along(1, -1));
    w.line("float gx = (" + r + ".x - " + l + ".x) * 0.5;", 2);
    w.line("float gy = (" + d + ".x - " + u + ".x) * 0.5;", 2);
    w.line("float ax = abs(gx), ay = abs(gy);", 2);
    w.line("float sector = ay <= " + f(kTan22_5) + " * ax ? 0.0 : ay > " + f(kTan67_5) +
               " * ax ? 2.0 : ((gx > 0.0) == (gy > 0.0) ? 1.0 : 3.0);",
           6);
    w.line("float m = sqrt(gx * gx + gy * gy);", 3);
    // |gx|, |gy| <= bound / 2, so the magnitude is within bound / sqrt(2); packed, the sector
    // is scaled into that range.
    const double bound = smooth.format.bound / std::sqrt(2.0);
    if (sectorBits) {
        w.line("float value = uintBitsToFloat((floatBitsToUint(m) & " + kStrengthBits + ") | uint(sector));", 3);
        const PlaneFormat format = planeFormat(false, bound, true);
        strength = full(w.finish("vec2(value, 0.0)", format), {smooth}, format);
    } else {
        const PlaneFormat format = planeFormat(true, bound, true);
        strength = full(w.finish("vec2(m, sector * " + f(format.bound / 3) + ")", format), {smooth}, format);
    }
    return edgeClasses(spec, sectorBits, in, strength);
}

FragmentPlanner::Value FragmentPlanner::pairGradient(const Value& smooth) {
    // Two pixels' gradients a fragment from the blur's Pair plane, into a Pair plane of
    // strengths with the sector in the codes' two lowest bits (code 4c + sector, the strength c
    // times 4 u_code: 14 bits): texels i - 1 .. i + 1 of the row and i above and below, 5
    // fetches where two pixels took 8. The first column's left neighbour is the column itself
    // (texel -1 clamps to texel 0: pixels 0 and 1); pixels past the frame, to texel 2 ceil(W / 4)
    // (what suppression four pixels a fragment reads), hold the last column's strength and
    // sector (the fragment computes at the texel of pixel W - 1: u_frame.x).
    FragmentWriter w("edges.gradient, two pixels per fragment", false);
    w.input(0, smooth.format);
    // x: the frame's last column, y: 65535 / (4 bound): a strength's code, z: the texel of the
    // last column.
    w.uniform("u_frame");
    w.line("float i = min(floor(pos.x), u_frame.z), last = u_frame.x - 2.0 * i;", 4);
    w.line("vec2 l = " + w.fetchCodesAt(0, "vec2(i - 0.5, pos.y)") + ", c = " + w.fetchCodesAt(0, "vec2(i + 0.5, pos.y)") + ", r = " +
               w.fetchCodesAt(0, "vec2(i + 1.5, pos.y)") + ";",
           0);
    w.line("vec2 u = " + w.fetchCodesAt(0, "vec2(i + 0.5, pos.y - 1.0)") + ", d = " + w.fetchCodesAt(0, "vec2(i + 0.5, pos.y + 1.0)") + ";", 0);
    w.line("l.y = i < 0.5 ? c.x : l.y;", 1);
    // The codes' differences take the map's scale alone.
    w.line("vec2 gx = (vec2(c.y, r.x) - vec2(l.y, c.x)) * (0.5 * u_code0.x), gy = (d - u) * (0.5 * u_code0.x);", 6);
    w.line("vec2 ax = abs(gx), ay = abs(gy);", 2);
    w.line("vec2 sector = " + sectorsOf("vec2", false) + ";", 10);
    // The magnitude as q / sqrt(q): vc4 takes a square root as the reciprocal of its reciprocal
    // square root, each a special-function call and a Newton step.
    w.line("vec2 q = (gx * gx + gy * gy) * (u_frame.y * u_frame.y);", 3);
    w.line("vec2 code = vec2(ivec2(min(q * inversesqrt(max(q, 1e-20)), 16383.0) + 0.5)) * 4.0 + sector;", 10);
    // Past the frame: pixel W - 1's (the second of its texel where `last` is 1).
    w.line("code.y = last < 0.5 ? code.x : code.y;", 2);
    w.line("code = floor(pos.x) > i ? code.yy : code;", 2);
    w.line("vec2 hi = vec2(ivec2(code * 0.00390625));", 2);
    FragmentShader gradient = w.finishRaw("vec4(hi.x, code.x - 256.0 * hi.x, hi.y, code.y - 256.0 * hi.y) / 255.0");
    const PlaneFormat format{PlaneKind::Pair, false, smooth.format.bound / std::sqrt(2.0), true};
    const int pairs = 2 * ((format_.width + 3) / 4) + 1;
    const Uniforms frame{{"u_frame",
                          {static_cast<float>(format_.width - 1), static_cast<float>(65535 / (4 * format.bound)),
                           static_cast<float>((format_.width - 1) / 2), 0.0f}}};
    const Value strength = full(gradient, {smooth}, format, frame, std::max(format_.width, pairs));
    intoLeftPart(steps_.back().passes.back(), pairs);
    return strength;
}

FragmentPlanner::Value FragmentPlanner::quadGradient(const Value& smooth) {
    // Four pixels' gradients a fragment from the blur's QuadRows plane: three texels of the
    // pixel's row and one of each row beside it (replicated at the frame's edges, as the
    // per-pixel fetches clamp), into a Quad plane of strengths with the sector in their two
    // lowest mantissa bits: a quarter of the fragments, and 5 fetches where four pixels took 16.
    FragmentWriter w("edges.gradient, four pixels per fragment", true);
    w.input(0, smooth.format);
    w.uniform("u_frame");  // x: the frame's last column, y: its last row
    w.line("float x0 = 4.0 * floor(pos.x), y = floor(pos.y);", 3);
    w.line("float yu = max(y - 1.0, 0.0), yd = min(y + 1.0, u_frame.y);", 4);
    const auto texel = [&](const std::string& x, const std::string& row) {
        return w.fetchLayerAt(0, "vec2(" + x + ", floor(" + row + " * 0.25) + 0.5)", "mod(" + row + ", 4.0)");
    };
    w.line("vec4 c = " + texel("pos.x", "y") + ", l = " + texel("pos.x - 1.0", "y") + ", r = " + texel("pos.x + 1.0", "y") + ";", 6);
    w.line("vec4 u = " + texel("pos.x", "yu") + ", d = " + texel("pos.x", "yd") + ";", 4);
    // Pixels past the frame's last column (in its last texel) replicate it, then take its
    // gradient.
    w.line("bvec4 inside = lessThanEqual(vec4(x0) + vec4(0.0, 1.0, 2.0, 3.0), vec4(u_frame.x));", 2);
    w.line("vec4 last = vec4(equal(vec4(u_frame.x - x0), vec4(0.0, 1.0, 2.0, 3.0)));", 2);
    w.line("c = mix(vec4(dot(c, last)), c, inside);", 2);
    w.line("float left = x0 > 0.5 ? l.w : c.x, right = x0 + 4.0 <= u_frame.x ? r.x : c.w;", 4);
    w.line("vec4 gx = (vec4(c.yzw, right) - vec4(left, c.xyz)) * 0.5, gy = (d - u) * 0.5;", 4);
    w.line("gx = mix(vec4(dot(gx, last)), gx, inside);", 2);
    w.line("gy = mix(vec4(dot(gy, last)), gy, inside);", 2);
    w.line("vec4 ax = abs(gx), ay = abs(gy);", 2);
    w.line("vec4 sector = " + sectorsOf("vec4", true) + ";", 10);
    w.line("vec4 m = sqrt(gx * gx + gy * gy);", 6);
    FragmentShader gradient = w.finishRaw("uintBitsToFloat((floatBitsToUint(m) & uvec4(" + kStrengthBits + ")) | uvec4(sector))");
    gradient.cost.alu += 3;
    const PlaneFormat format{PlaneKind::Quad, false, smooth.format.bound / std::sqrt(2.0), true};
    const Uniforms frame{{"u_frame", {static_cast<float>(format_.width - 1), static_cast<float>(format_.height - 1), 0.0f, 0.0f}}};
    return full(gradient, {smooth}, format, frame, (format_.width + 3) / 4, format_.height);
}

FragmentPlanner::Value FragmentPlanner::edgeClasses(const EdgeSpec& spec, bool sectorBits, const Value& in,
                                                    const Value& strength) {
    // sectorBits: the strengths carry the sector in their two lowest mantissa bits (Canny's on
    // float planes; a Quad plane where quadGradient made them).
    const bool quadStrength = strength.format.kind == PlaneKind::Quad, pairStrength = strength.format.kind == PlaneKind::Pair;
    const auto strengthOf = [&](const std::string& fetched) { return strengthBits(fetched, sectorBits); };
    // Classes 0..3 (none, weak, strong, edge) as bytes c / 255, exact, four pixels' classes to an
    // RGBA8 texel (pixel 4q + j in component j of texel q): a byte a pixel, as R8 would hold, but
    // in the format llvmpipe samples and renders fastest (R8 and RG8 hysteresis ran 24% slower
    // than RGBA8 at 640x480) and GLES 2.0 renders; a quarter of the fragments, and a quarter of
    // the bytes the cpu flood reads back (on vc4 a third of Canny's frame at 720p, in the
    // transfers and the flood, moved 4 bytes a pixel). Where suppression four pixels a fragment
    // is over the board's shader budget, one pixel's class per RGBA8 texel (its red).
    const auto suppressShader = [&](bool quads) {
        // Suppression and double threshold: the neighbours along the sector are a dependent read.
        FragmentWriter n(std::string("edges.suppress") + (quads ? ", four pixels per fragment" : ""), !packed_);
        FragmentShader shader;
        n.input(0, strength.format);
        // x: high, y: low, z: the frame's width, w: class texels a row (uniforms: a threshold change
        // compiles nothing).
        n.uniform("u_thresholds");
        // Ties: within kTieTolerance, as everywhere; packed strengths also within a few codes of
        // their quantisation, which breaks exact ties apart at random (docs/algorithms.md).
        const double slack = packed_ ? kPackedTieCodes * strength.format.bound / 65535 : 0.0;
        // The class cls<k> of a pixel from its strength v<k> and its neighbours' along its sector.
        const auto classOf = [&](const std::string& k) {
            n.line("bool isMax" + k + " = v" + k + " > before" + k + " * " + f(1 + kTieTolerance) + " + " + f(slack) + " && v" + k +
                       " >= after" + k + " * " + f(1 - kTieTolerance) + " - " + f(slack) + ";",
                   6);
            n.line("float cls" + k + " = !isMax" + k + " ? 0.0 : v" + k + " >= u_thresholds.x ? 2.0 : v" + k +
                       " >= u_thresholds.y ? 1.0 : 0.0;",
                   4);
        };
        // The class of the pixel at `p` (a vec2 expression) into float cls<k>.
        const auto classAt = [&](const std::string& p, const std::string& k) {
            n.line("vec2 c" + k + " = " + n.fetchAt(0, p) + ";", 0);
            if (sectorBits) n.line("float sector" + k + " = float(floatBitsToUint(c" + k + ".x) & 3u);", 2);
            else n.line("float sector" + k + " = floor(c" + k + ".y * " + f(3 / strength.format.bound) + " + 0.5);", 2);
            const std::string s = "sector" + k;
            n.line("vec2 dir" + k + " = " + s + " < 0.5 ? vec2(1.0, 0.0) : " + s + " < 1.5 ? vec2(1.0, 1.0) : " + s +
                       " < 2.5 ? vec2(0.0, 1.0) : vec2(-1.0, 1.0);",
                   6);
            const std::string before = n.fetchAt(0, "(" + p + " - dir" + k + ")"), after = n.fetchAt(0, "(" + p + " + dir" + k + ")");
            n.line("float v" + k + " = " + strengthOf("c" + k) + ", before" + k + " = " + strengthOf(before) + ", after" + k +
                       " = " + strengthOf(after) + ";",
                   sectorBits ? 6 : 0);
            classOf(k);
        };
        if (quadStrength || pairStrength) {
            // Each row U, M, D as the six pixels 4q - 1 .. 4q + 4 around the fragment's four: R
            // the middle four's strengths, Rl and Rr the ones beside (the frame's first column
            // replicated on the left; on the right the pixels past the frame already hold its
            // last column's), the neighbours along the sector chosen among them: no dependent
            // reads. Quad strengths: the 3x3 texels around. Pair strengths (pairGradient): texels
            // 2q - 1 .. 2q + 2 of each row, a strength c times 4 u_code0.x for code 4c + sector.
            n.line("float x0 = 4.0 * floor(pos.x);", 2);
            const char* rows[3] = {"U", "M", "D"};
            for (int r = 0; r < 3; ++r) {
                const std::string R = rows[r], dy = f(r - 1);
                if (pairStrength) {
                    std::string texel[4];
                    for (int t = 0; t < 4; ++t) texel[t] = n.fetchCodesAt(0, "vec2(0.5 * x0 + " + f(t - 0.5) + ", pos.y + " + dy + ")");
                    n.line("vec2 a" + R + " = " + texel[0] + ", d" + R + " = " + texel[3] + ";", 0);
                    n.line("vec4 k" + R + " = vec4(" + texel[1] + ", " + texel[2] + ");", 0);
                    // Codes are not negative: a conversion to int is their floor (vc4 emulates floor()).
                    n.line("vec4 c" + R + " = vec4(ivec4(k" + R + " * 0.25));", 2);
                    n.line("vec4 " + R + " = c" + R + " * (4.0 * u_code0.x);", 1);
                    n.line("float " + R + "l = x0 > 0.5 ? float(int(a" + R + ".y * 0.25)) * (4.0 * u_code0.x) : " + R + ".x;", 4);
                    n.line("float " + R + "r = float(int(d" + R + ".x * 0.25)) * (4.0 * u_code0.x);", 3);
                } else {
                    n.line("vec4 t" + R + " = " + n.fetchRaw(0, "vec2(0.0, " + dy + ")") + ";", 0);
                    n.line("vec4 " + R + " = uintBitsToFloat(floatBitsToUint(t" + R + ") & uvec4(" + kStrengthBits + "));", 4);
                    // Fetched at the top level, then selected (a fetch inside a branch is a branch).
                    n.line("float " + R + "l = " + n.fetchRaw(0, "vec2(-1.0, " + dy + ")") + ".w, " + R + "r = " +
                               n.fetchRaw(0, "vec2(1.0, " + dy + ")") + ".x;",
                           0);
                    n.line(R + "l = x0 > 0.5 ? uintBitsToFloat(floatBitsToUint(" + R + "l) & " + kStrengthBits + ") : " + R + ".x;", 3);
                    n.line(R + "r = x0 + 4.0 < u_thresholds.z ? uintBitsToFloat(floatBitsToUint(" + R + "r) & " + kStrengthBits + ") : " +
                               R + ".w;",
                           4);
                }
            }
            if (pairStrength) n.line("vec4 sector = kM - 4.0 * cM;", 2);
            // Pixel k - 1 of row R's six (k = 0: 4q - 1).
            const auto six = [](const char* R, int k) {
                return k == 0 ? std::string(R) + "l" : k == 5 ? std::string(R) + "r" : std::string(R) + "." + "xyzw"[k - 1];
            };
            for (int j = 0; j < 4; ++j) {
                const std::string k = std::to_string(j), s = pairStrength ? std::string("sector.") + "xyzw"[j] : "sector" + k;
                // Sector s is c: a float of the codes, an integer of the mantissa's bits.
                const auto is = [&](int c) { return pairStrength ? s + " < " + f(c + 0.5) : s + " == " + std::to_string(c) + "u"; };
                if (!pairStrength) n.line("uint " + s + " = floatBitsToUint(tM." + "xyzw"[j] + ") & 3u;", 1);
                n.line("float v" + k + " = " + six("M", j + 1) + ";", 0);
                n.line("float before" + k + " = " + is(0) + " ? " + six("M", j) + " : " + is(1) + " ? " + six("U", j) + " : " + is(2) +
                           " ? " + six("U", j + 1) + " : " + six("U", j + 2) + ";",
                       6);
                n.line("float after" + k + " = " + is(0) + " ? " + six("M", j + 2) + " : " + is(1) + " ? " + six("D", j + 2) + " : " +
                           is(2) + " ? " + six("D", j + 1) + " : " + six("D", j) + ";",
                       3);
                classOf(k);
            }
            n.line("vec4 cls = vec4(cls0, cls1, cls2, cls3) * step(vec4(x0 + 0.5) + vec4(0.0, 1.0, 2.0, 3.0), vec4(u_thresholds.z));", 3);
            shader = n.finishRaw("cls / 255.0");
        } else if (quads) {
            n.line("float x0 = 4.0 * floor(pos.x) + 0.5;", 2);
            for (int j = 0; j < 4; ++j) classAt("vec2(x0 + " + f(j) + ", pos.y)", std::to_string(j));
            // Pixels past the frame's last column are none, so they never grow an edge.
            n.line("vec4 cls = vec4(cls0, cls1, cls2, cls3) * step(vec4(x0) + vec4(0.0, 1.0, 2.0, 3.0), vec4(u_thresholds.z));", 3);
            shader = n.finishRaw("cls / 255.0");
        } else {
            classAt("pos", "");
            shader = n.finishRaw("vec4(cls / 255.0, 0.0, 0.0, 1.0)");
        }
        shader.cost.dependentDepth = quadStrength || pairStrength ? 1 : 2;
        return shader;
    };
    FragmentShader suppress = suppressShader(true);
    const bool quads = quadStrength || pairStrength || fits(suppress.cost, limits_.budget);
    if (!quads) suppress = suppressShader(false);
    const int classWidth = quads ? (format_.width + 3) / 4 : format_.width;
    const PlaneFormat classFormat{PlaneKind::Packed, false, 1, true};
    const std::string classPlanes = quads ? "RGBA8 classes, four pixels a texel" : "RGBA8 classes";
    const std::string perFragment = quads ? ", four pixels per fragment" : "";
    const Uniforms thresholds{{"u_thresholds", {static_cast<float>(spec.highThreshold), static_cast<float>(spec.lowThreshold),
                                                static_cast<float>(format_.width), static_cast<float>(classWidth)}}};
    // On packed profiles the classes take a frame-sized RGBA8 plane, the kind the values take, and
    // fill its left part: it shares the storage of a value plane no longer read (Canny: the
    // blur's), so a frame holds no more than with one class a texel (rpi3's 1080p Canny: 17.8
    // MiB, 19.8 in a plane of their own size).
    const int classPlaneWidth = packed_ ? format_.width : classWidth;
    Value classes = into(suppress, {strength}, Value{newPlane(Plane::Storage::Rgba8, classPlaneWidth, format_.height), classFormat}, thresholds);
    intoLeftPart(steps_.back().passes.back(), classWidth);
    steps_.back().passes.back().readsInputsWhole = true;
    passes_.back().format = classPlanes;
    // Hysteresis: a weak pixel 8-connected to a strong one becomes an edge (3). CpuFlood: the
    // classes read back, flooded on the cpu and uploaded; a byte a pixel in the read-back on quads,
    // else the red of each texel.
    int floodStep = -1;
    if (options_.hysteresis == HysteresisForm::CpuFlood) {
        floodStep = static_cast<int>(steps_.size());
        DrawStep flood;
        flood.watched = classes.plane;
        flood.watchedWidth = classWidth;
        flood.cpuFloodBytesPerPixel = quads ? 1 : 4;
        steps_.push_back(flood);
        passes_.push_back({kFloodPass, classPlanes,
                           "no draw: the classes read back, flooded on the cpu from the strong pixels, uploaded"});
    } else {
        hysteresisDraws(classes, classWidth, thresholds, quads, classPlanes, perFragment);
    }
    // The stage's output. Edges (0 or 1) are the flood's classes as they stand: a frame in system
    // memory can take them from the flood, where this output is the chain's result (planChain
    // decides).
    const Value out = quadStrength ? quadRowsOutput(spec, in, classes, strength) : edgesOutput(spec, in, classes, strength, sectorBits, quads);
    if (floodStep >= 0 && spec.tracesEdges() && !spec.showsInput()) edgesFromFlood_ = {floodStep, out.plane};
    return out;
}

FragmentPlanner::Value FragmentPlanner::edgesOutput(const EdgeSpec& spec, const Value& in, const Value& classes,
                                                     const Value& strength, bool sectorBits, bool quads) {
    FragmentWriter o("edges.output", !packed_);
    o.input(0, classes.format);
    if (quads) {
        // Pixel x is lane j = x - 4q of texel q (pos.x = x + 0.5).
        o.line("float q = floor(pos.x * 0.25), j = pos.x - 4.0 * q;", 3);
        o.line("vec4 t = " + o.fetchRawAt(0, "vec2(q + 0.5, pos.y)") + ";", 0);
        o.line("float c = floor((j < 2.0 ? (j < 1.0 ? t.x : t.y) : (j < 3.0 ? t.z : t.w)) * 255.0 + 0.5);", 8);
    } else {
        o.line("float c = floor(" + o.fetchRaw(0, "") + ".r * 255.0 + 0.5);", 2);
    }
    PlaneFormat format = planeFormat(false, 1, true);
    std::vector<Value> inputs{classes};
    Uniforms uniforms;
    std::string value;
    switch (spec.output) {
    case EdgeOutput::Edges: value = "vec2(c > 1.5 ? 1.0 : 0.0, 0.0)"; break;
    case EdgeOutput::Strength:
        o.input(1, strength.format);
        value = "vec2(" + strengthBits(o.fetch(1, ""), sectorBits) + ", 0.0)";
        format = planeFormat(false, strength.format.bound, true);
        inputs.push_back(strength);
        break;
    case EdgeOutput::Overlay:
        o.input(1, in.format);
        // Fetched at the top level, then selected (a fetch inside a branch keeps vc4 at 1 thread).
        if (in.format.kind == PlaneKind::Luma8 && !packed_) {
            unitTable(o, &uniforms);
            o.line("int code = int(floor(" + o.fetchRaw(1, "") + ".r * 255.0 + 0.5));", 3);
            o.line("float image = u_unit[code / 4][code % 4];", 3);
        } else {
            o.line("float image = " + o.fetch(1, "") + ".x;", 0);
        }
        value = "vec2(c > 1.5 ? 1.0 : image, 0.0)";
        format = planeFormat(false, std::max(1.0, in.format.bound), in.format.nonNegative);
        inputs.push_back(in);
        break;
    }
    o.line("", 2);
    return full(o.finish(value, format), inputs, format, uniforms);
}

void FragmentPlanner::hysteresisDraws(const Value& classes, int classWidth, const Uniforms& thresholds, bool quads,
                                      const std::string& classPlanes, const std::string& perFragment) {
    // The two draws repeat until the classes stop changing (checked on the host once per batch).
    const PlaneFormat& classFormat = classes.format;
    FragmentWriter hw("edges.hysteresis" + perFragment, !packed_);
    hw.input(0, classFormat);
    if (quads) {
        // Each row of the 3x3 neighbourhood as the four lanes and one past each end (none past
        // the frame's first and last texel: a clamped texel would bring the wrong pixels).
        hw.uniform("u_thresholds");  // w: the texels of a row
        hw.line("vec4 c = floor(" + hw.fetchRaw(0, "") + " * 255.0 + 0.5);", 2);
        hw.line("float hasLeft = step(1.0, pos.x), hasRight = step(pos.x + 1.5, u_thresholds.w);", 3);
        hw.line("vec4 grow = vec4(0.0);", 0);
        for (int dy = -1; dy <= 1; ++dy) {
            const std::string d = f(dy), k = std::to_string(dy + 1);
            hw.line("vec4 mid" + k + " = step(1.5, " + (dy ? "floor(" + hw.fetchRaw(0, "vec2(0.0, " + d + ")") + " * 255.0 + 0.5)" : std::string("c")) +
                        ");",
                    dy ? 3 : 1);
            hw.line("float left" + k + " = hasLeft * step(1.5, floor(" + hw.fetchRaw(0, "vec2(-1.0, " + d + ")") + ".a * 255.0 + 0.5));", 4);
            hw.line("float right" + k + " = hasRight * step(1.5, floor(" + hw.fetchRaw(0, "vec2(1.0, " + d + ")") +
                        ".r * 255.0 + 0.5));",
                    4);
            hw.line("grow = max(grow, max(mid" + k + ", max(vec4(left" + k + ", mid" + k + ".xyz), vec4(mid" + k + ".yzw, right" + k +
                        "))));",
                    3);
        }
        hw.line("c = mix(c, vec4(3.0), vec4(equal(c, vec4(1.0))) * step(0.5, grow));", 4);
    } else {
        hw.line("float c = floor(" + hw.fetchRaw(0, "") + ".r * 255.0 + 0.5);", 2);
        hw.line("float grow = 0.0;", 0);
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
                if (dx || dy)
                    hw.line("grow = max(grow, step(1.5, floor(" + hw.fetchRaw(0, "vec2(" + f(dx) + ", " + f(dy) + ")") +
                                ".r * 255.0 + 0.5)));",
                            3);
        hw.line("if (c > 0.5 && c < 1.5 && grow > 0.5) c = 3.0;", 3);
    }
    const FragmentShader hysteresis = hw.finishRaw(quads ? "c / 255.0" : "vec4(c / 255.0, 0.0, 0.0, 1.0)");
    const int other = newPlane(Plane::Storage::Rgba8, planes_[classes.plane].width, format_.height);
    const Value pong{other, classFormat};
    // Only weak pixels can change: where the two planes share a stencil buffer, both start as
    // the classes and the loop's draws shade the weak pixels alone (a mark draw sets their
    // stencil; on quads, texels with a weak pixel).
    const bool stencil = options_.hysteresisStencil && caps_.stencil;
    if (stencil) {
        planes_[classes.plane].stencil = planes_[other].stencil = true;
        FragmentWriter cw("edges.classes copy", !packed_);
        cw.input(0, classFormat);
        const FragmentShader copy = cw.finishRaw(cw.fetchRaw(0, ""));
        FragmentWriter mw("edges.weak pixels mark", !packed_);
        mw.input(0, classFormat);
        if (quads) mw.line("if (!any(equal(floor(" + mw.fetchRaw(0, "") + " * 255.0 + 0.5), vec4(1.0)))) discard;", 6);
        else mw.line("if (abs(" + mw.fetchRaw(0, "") + ".r * 255.0 - 1.0) > 0.5) discard;", 3);
        const FragmentShader mark = mw.finishRaw("vec4(0.0)");
        Draw c = makeDraw(copy, {classes}, pong), m = makeDraw(mark, {classes}, pong);
        m.stencil = Stencil::Mark;  // its clear, scissored as the draw, clears the class texels' stencil
        intoLeftPart(c, classWidth);
        intoLeftPart(m, classWidth);
        steps_.push_back(DrawStep{{c, m}, false, -1});
        passes_.push_back({copy.name, classPlanes, "1 draw; " + describe(copy.cost)});
        passes_.push_back({mark.name, quads ? "stencil, four pixels a texel" : "stencil", "1 draw; " + describe(mark.cost)});
    }
    DrawStep loop;
    loop.repeatUntilStable = true;
    loop.maxRepeats = static_cast<long>(format_.width) * format_.height;  // pairs of draws
    loop.watched = classes.plane;
    loop.watchedWidth = classWidth;
    for (int i = 0; i < 2; ++i) {
        loop.passes.push_back(
            makeDraw(hysteresis, {i == 0 ? classes : pong}, i == 0 ? pong : classes, quads ? thresholds : Uniforms{}));
        intoLeftPart(loop.passes.back(), classWidth);
        if (stencil) loop.passes.back().stencil = Stencil::Test;
    }
    steps_.push_back(loop);
    passes_.push_back({hysteresis.name, classPlanes,
                       std::string("2 draws") + (stencil ? " on the weak pixels (stencil)" : "") + ", repeated until stable; " +
                           describe(hysteresis.cost)});
}


FragmentPlanner::Value FragmentPlanner::quadRowsOutput(const EdgeSpec& spec, const Value& in, const Value& classes,
                                                       const Value& strength) {
    // Four rows of four pixels a fragment, from the classes (and the strengths) four a texel, into
    // a QuadRows plane: the storage of the blur's QuadRows plane, free once the gradient has read
    // it, where an R32F result would hold a frame-sized plane more (GstGL's encode reads it per
    // pixel; a frame in system memory reads it back a layer at a time).
    FragmentWriter o("edges.output, four rows per fragment", true);
    o.input(0, classes.format);
    PlaneFormat format{PlaneKind::QuadRows, false, 1, true};
    std::vector<Value> inputs{classes};
    Uniforms uniforms;
    switch (spec.output) {
    case EdgeOutput::Edges: break;
    case EdgeOutput::Strength:
        o.input(1, strength.format);
        format.bound = strength.format.bound;
        inputs.push_back(strength);
        break;
    case EdgeOutput::Overlay:
        o.input(1, in.format);
        format.bound = std::max(1.0, in.format.bound);
        format.nonNegative = in.format.nonNegative;
        inputs.push_back(in);
        if (in.format.kind == PlaneKind::Luma8) unitTable(o, &uniforms);
        break;
    }
    std::array<std::string, 4> rows;
    for (int j = 0; j < 4; ++j) {
        const std::string k = std::to_string(j), y = "(4.0 * floor(pos.y) + " + f(j + 0.5) + ")";
        o.line("vec4 c" + k + " = floor(" + o.fetchRawAt(0, "vec2(pos.x, " + y + ")") + " * 255.0 + 0.5);", 3);
        o.line("bvec4 edge" + k + " = greaterThan(c" + k + ", vec4(1.5));", 1);
        std::string value;
        switch (spec.output) {
        case EdgeOutput::Edges: value = "vec4(edge" + k + ")"; break;
        case EdgeOutput::Strength:
            o.line("vec4 s" + k + " = uintBitsToFloat(floatBitsToUint(" + o.fetchRawAt(1, "vec2(pos.x, " + y + ")") + ") & uvec4(" +
                       kStrengthBits + "));",
                   1);
            value = "s" + k;
            break;
        case EdgeOutput::Overlay: {
            // The four pixels' input, each fetched at the top level (its row clamped by the fetch).
            std::string image = "vec4(";
            for (int i = 0; i < 4; ++i) {
                const std::string p = "vec2(4.0 * floor(pos.x) + " + f(i + 0.5) + ", " + y + ")";
                const std::string v = "i" + k + std::to_string(i);
                if (in.format.kind == PlaneKind::Luma8) {
                    o.line("int " + v + " = int(floor(" + o.fetchRawAt(1, p) + ".r * 255.0 + 0.5));", 3);
                    o.line("float u" + v + " = u_unit[" + v + " / 4][" + v + " % 4];", 3);
                    image += std::string(i ? ", " : "") + "u" + v;
                } else {
                    image += std::string(i ? ", " : "") + o.fetchAt(1, p) + ".x";
                }
            }
            value = "mix(" + image + "), vec4(1.0), edge" + k + ")";
            break;
        }
        }
        rows[j] = value;
    }
    return full(o.finishRows(rows), inputs, format, uniforms, (format_.width + 3) / 4, (format_.height + 3) / 4);
}

} // namespace striate::gles
