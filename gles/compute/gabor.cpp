// gles-compute's Gabor stage and bank (docs/algorithms.md 3): each orientation's horizontal and
// vertical passes, then its tail (a combine pass, or, where a recursive stage ends in a
// magnitude, the vertical pass's own on a pair buffer: recursive_pairs.comp).
#include "gles/compute_plan.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <variant>

#include "core/spec.h"

namespace striate::gles {
namespace {

/// A mirror pair's vertical pass runs in this many strips of columns, its scratch (the mirror's
/// causal outputs, a vec2 a pixel of a strip) reused by each: 8 / 3 bytes a pixel of the frame,
/// within the 3 the frame's codes save over its unit floats.
constexpr int kMirrorStrips = 3;

} // namespace

int ComputePlanner::stage(const GaborStagePlan& plan, int in) { return gabor(plan.gabor, in); }

int ComputePlanner::gabor(const GaborPlan& plan, int in, int sector) {
    const int W = format_.width, H = format_.height;
    const bool bank = isBankSink(plan.sink);
    // A recursive stage whose output is a magnitude (a magnitude, a bank's maximum) runs on a
    // pair buffer (recursive_pairs.comp: two columns' complex values a vec4), its vertical pass
    // ending in the tail itself: no combine pass, the response never stored. Demodulated (sigma
    // up to 8, as on the cpu), its DC plane is a buffer of pairs too, in the same form.
    const bool pairs = plan.recursive && sinkTraits(plan.sink).magnitude;
    const std::size_t pairsPerRow = static_cast<std::size_t>((W + 1) / 2);
    const bool dcPairs = pairs && plan.demodulated && plan.removeDc;
    const std::string demod = plan.demodulated ? "1" : "0";
    // The frame's codes go up as they are (R8UI, a byte a pixel, read through a table of their unit
    // values) where a bank's horizontal passes on pairs are the frame's only readers. One
    // orientation's result takes over the frame's float plane instead (its horizontal pass is the
    // frame's last reader), which a byte plane would not share.
    const bool codes = codesAllowed_ && pairs && bank && in == plan_->luma && (dcPairs || !plan.removeDc);
    int units = -1;
    if (codes) {
        plan_->planes[in].format = Format::R8UI;
        const std::array<float, 256>& u = unitValues();
        units = buffer(sizeof(float) * u.size(), std::vector<float>(u.begin(), u.end()));
    }
    // The real input of a horizontal pass on pairs: the frame's codes and their table, or a plane.
    const auto source = [&](ComputePass& p) {
        sampler(p, 0, in);
        if (codes) storage(p, 1, units);
    };
    const auto frameSize = [&](ComputePass& p) {
        uniformInt(p, "width", W);
        uniformInt(p, "height", H);
    };
    // No frequency along x (90 degrees: wx = w cos 90 = 1e-17 w): a real horizontal pass.
    const auto realX = [&](const GaborOrientationPlan& o) { return plan.demodulated && std::abs(o.wx) < kNoFrequency; };
    // The DC plane's horizontal pass runs in the first visit's (WITH_DC), on the samples it reads
    // anyway, where that pass is complex and the two recursions are the same Gaussian's.
    const auto sameRecursion = [](const DemodCascade& a, const DemodCascade& b) {
        return a.B == b.B && a.d0 == b.d0 && a.a1 == b.a1 && a.a2 == b.a2;
    };
    // A maximum of magnitudes whose bank has 90 degrees (no frequency along x, bankOrder's last):
    // its horizontal pass is the DC plane's, so the DC's horizontal pass runs alone and 90
    // degrees' vertical pass (FROM_DC) reads its pairs and runs the DC plane's vertical pass beside
    // its own, visited first (the maximum of magnitudes does not depend on the order, beyond ties
    // within kTieTolerance; a sector does: the energy bank keeps bankOrder).
    std::size_t fromDc = plan.bank.size();
    for (std::size_t k = 0; k < plan.bank.size(); ++k) {
        const GaborOrientationPlan& o = plan.bank[k];
        const bool paired = o.mirrorsPrevious || (k + 1 < plan.bank.size() && plan.bank[k + 1].mirrorsPrevious);
        if (dcPairs && plan.sink == GaborSink::MaxMagnitude && realX(o) && !paired && sameRecursion(plan.dcDemod, o.dx) &&
            sameRecursion(plan.dcDemod, o.dy))
            fromDc = k;
    }
    const bool dcFused = dcPairs && fromDc == plan.bank.size() && !plan.bank.empty() && !realX(plan.bank[0]) &&
                         sameRecursion(plan.dcDemod, plan.bank[0].dx);
    int gauss = -1;
    const auto dcPass = [&](int axis) {
        Defines d = {{"AXIS", std::to_string(axis)}, {"DEMOD", "1"}, {"REAL", "1"}};
        if (axis == 0) d.push_back({"CODES", codes ? "1" : "0"});
        ComputePass& p = dispatch("recursive_pairs.comp", d, groups(axis == 0 ? H : static_cast<int>(pairsPerRow), kPairsGroup), 1,
                                  "DC pair buffer (two columns' Gaussian)");
        demodulatedCascade(p, plan.dcDemod);
        frameSize(p);
        if (axis == 0) source(p);
        storage(p, 0, gauss);
    };
    if (dcPairs) {
        gauss = buffer(sizeof(float) * 2 * pairsPerRow * H);
        if (!dcFused) dcPass(0);
        if (!dcFused && fromDc == plan.bank.size()) dcPass(1);
    } else if (plan.removeDc) {
        gauss = blur(plan.dcBlur, in);
    }
    const int out = plane(Format::R32F);
    if (sinkTraits(plan.sink).complex) {
        kept_.re = plane(Format::R32F);
        kept_.im = plane(Format::R32F);
    }
    Defines tailDefines = enumDefines("SINK", kGaborSinks, plan.sink);
    tailDefines.insert(tailDefines.end(), {{"REMOVE_DC", plan.removeDc ? "1" : "0"}, {"TIE", glslFloat(kTieTolerance)}});
    // Demodulated pairs' passes leave the Gaussian's B out (recursive_pairs.comp): a response and
    // the DC plane reach the tail over their axes' B^2, which the squared magnitude's scale and the
    // DC's gain put back.
    const auto overB = [](const DemodCascade& x, const DemodCascade& y) {
        return static_cast<double>(x.B) * x.B * y.B * y.B;
    };
    // The stage's output from orientation o's response (gabor_combine.comp's, or a recursive
    // vertical pass's tail): its inputs and outputs past the response's own.
    const auto bindTail = [&](ComputePass& p, const GaborOrientationPlan& o) {
        if (plan.removeDc) {
            if (dcPairs) storage(p, 2, gauss);
            else sampler(p, 2, gauss);
            const bool folded = pairs && plan.demodulated;
            uniform(p, "dcGain", folded ? static_cast<float>(o.dcGain * overB(plan.dcDemod, plan.dcDemod) / overB(o.dx, o.dy))
                                        : o.dcGain);
        }
        if (pairs && plan.demodulated) uniform(p, "scale2", static_cast<float>(std::pow(overB(o.dx, o.dy), 2)));
        image(p, 2, out, bank ? Access::ReadWrite : Access::Write);
        if (sinkTraits(plan.sink).sector) {
            image(p, 3, sector, Access::Write);
            uniformUint(p, "orientationSector", o.sector);
        }
    };
    const int pairBuffer = pairs ? buffer(sizeof(float) * 4 * pairsPerRow * H) : -1;
    // Demodulated, an orientation and its mirror (bankOrder) share a horizontal pass; their vertical
    // pass (MIRROR) runs in strips, the mirror's causal outputs in a strip's scratch.
    const auto mirrorOf = [&](std::size_t k) {
        return pairs && plan.demodulated && k + 1 < plan.bank.size() && plan.bank[k + 1].mirrorsPrevious;
    };
    const int stripColumns = (W + kMirrorStrips - 1) / kMirrorStrips;
    int mirrorScratch = -1;
    for (std::size_t k = 0; k < plan.bank.size() && mirrorScratch < 0; ++k)
        if (mirrorOf(k)) mirrorScratch = buffer(sizeof(float) * 2 * static_cast<std::size_t>(stripColumns) * H);
    // The recursion's coefficients; demodulated, the phase's turn from sample to sample along the
    // axis, e^{i w}, and the line's last sample's, e^{i w (n - 1)}, and along columns the
    // columns' frequency (for the DC term).
    const auto coefficients = [&](ComputePass& p, const GaborOrientationPlan& o, int axis) {
        if (!plan.demodulated) return cascade(p, axis == 0 ? o.x : o.y);
        demodulatedCascade(p, axis == 0 ? o.dx : o.dy);
        const double w = axis == 0 ? o.wx : o.wy, last = w * ((axis == 0 ? W : H) - 1);
        for (auto [name, angle] : {std::pair{"turn", w}, {"lastPhase", last}})
            p.uniforms.push_back(
                {name, ComputeUniform::Type::Vec2, {static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle))}, {}});
        if (axis == 1 && plan.removeDc) uniform(p, "wx", static_cast<float>(o.wx));
    };
    // The visits' running maximum: the first stores, the last takes the square root.
    std::size_t visited = 0;
    const auto visitDefines = [&](std::size_t orientations) {
        const bool first = visited == 0, last = (visited += orientations) == plan.bank.size();
        Defines d = {{"AXIS", "1"}, {"DEMOD", demod}, {"REAL", "0"}, {"FIRST", first ? "1" : "0"}, {"LAST", last ? "1" : "0"}};
        d.insert(d.end(), tailDefines.begin(), tailDefines.end());
        return std::pair<Defines, std::string>{d, !bank ? "R32F" : last ? "R32F (maximum)" : "R32F (running maximum, squared)"};
    };
    if (pairs && fromDc < plan.bank.size()) {
        const GaborOrientationPlan& o = plan.bank[fromDc];
        auto [d, writes] = visitDefines(1);
        d.insert(d.end(), {{"NO_WX", "1"}, {"FROM_DC", "1"}});
        ComputePass& y = dispatch("recursive_pairs.comp", d, groups(static_cast<int>(pairsPerRow), kPairsGroup), 1,
                                  writes + ", DC pair buffer's columns");
        coefficients(y, o, 1);
        frameSize(y);
        storage(y, 0, pairBuffer);
        bindTail(y, o);
        demodulatedBorders(y, plan.dcDemod, "dcG", "dcM");
    }
    for (std::size_t k = 0; k < plan.bank.size(); ++k) {
        const GaborOrientationPlan& o = plan.bank[k];
        if (pairs) {
            if (k == fromDc) continue;
            const bool mirror = mirrorOf(k);
            const bool real = realX(o) && !mirror, withDc = dcFused && k == 0;
            Defines h = {{"AXIS", "0"}, {"DEMOD", demod}, {"REAL", real ? "1" : "0"}, {"CODES", codes ? "1" : "0"}};
            if (real) h.push_back({"WIDEN", "1"});
            if (withDc) h.push_back({"WITH_DC", "1"});
            ComputePass& x = dispatch("recursive_pairs.comp", h, groups(H, kPairsGroup), 1,
                                      real     ? "pair buffer (re of two columns; im 0)"
                                      : withDc ? "pair buffer (re, im of two columns), DC pair buffer's rows"
                                               : "pair buffer (re, im of two columns)");
            coefficients(x, o, 0);
            frameSize(x);
            source(x);
            storage(x, 0, pairBuffer);
            if (withDc) {
                demodulatedBorders(x, plan.dcDemod, "dcG", "dcM");
                storage(x, 2, gauss);
                dcPass(1);
            }
            auto [d, writes] = visitDefines(mirror ? 2 : 1);
            if (!mirror) {
                if (realX(o)) d.push_back({"NO_WX", "1"});
                else if (plan.demodulated && std::abs(o.wy) < kNoFrequency) d.push_back({"NO_WY", "1"});
                ComputePass& y = dispatch("recursive_pairs.comp", d, groups(static_cast<int>(pairsPerRow), kPairsGroup), 1, writes);
                coefficients(y, o, 1);
                frameSize(y);
                storage(y, 0, pairBuffer);
                bindTail(y, o);
                continue;
            }
            // The mirror's vertical pass is its partner's (the same wy, the same DC gain).
            d.push_back({"MIRROR", "1"});
            for (int first = 0; first < W; first += stripColumns) {
                ComputePass& y = dispatch("recursive_pairs.comp", d, groups(std::min(stripColumns, W - first), kPairsGroup), 1,
                                          writes + ", a strip of " + std::to_string(stripColumns) + " columns and its mirror's");
                coefficients(y, o, 1);
                frameSize(y);
                uniformInt(y, "firstColumn", first);
                uniformInt(y, "stripColumns", stripColumns);
                storage(y, 0, pairBuffer);
                storage(y, 1, mirrorScratch);
                bindTail(y, o);
                if (sinkTraits(plan.sink).sector) uniformUint(y, "mirrorSector", plan.bank[k + 1].sector);
            }
            ++k;
            continue;
        }
        // Horizontal pass (real in), then vertical (complex in; recursive: in place).
        int re = -1, im = -1;
        for (int axis = 0; axis < 2; ++axis) {
            Defines d = {{"AXIS", std::to_string(axis)}, {"COMPLEX_IN", std::to_string(axis)}};
            if (plan.recursive) {
                const bool inPlace = axis == 1;
                d.insert(d.end(), {{"COMPLEX_OUT", "1"}, {"IN_PLACE", inPlace ? "1" : "0"}});
                ComputePass& p = dispatch("recursive_line.comp", d, groups(axis == 0 ? H : W, kLineGroup), 1,
                                          inPlace ? "2 x R32F (re, im), in place" : "2 x R32F (re, im)");
                cascade(p, axis == 0 ? o.x : o.y);
                if (!inPlace) {
                    sampler(p, 0, in);
                    re = plane(Format::R32F);
                    im = plane(Format::R32F);
                }
                image(p, 0, re, Access::ReadWrite);
                image(p, 1, im, Access::ReadWrite);
                continue;
            }
            // The plan's half taps (c_k, s_k), k = 0..R, of this orientation and axis.
            const GaborTaps& t = axis == 0 ? o.tx : o.ty;
            std::vector<float> v;
            for (std::size_t j = 0; j < t.c.size(); ++j) v.insert(v.end(), {t.c[j], t.s[j]});
            const int taps = buffer(sizeof(float) * v.size(), v);
            d.push_back({"RADIUS", std::to_string(o.tx.c.size() - 1)});
            ComputePass& p = dispatch("gabor_direct.comp", d, groups(W, kTile), groups(H, kTile), "2 x R32F (re, im)");
            storage(p, 0, taps);
            sampler(p, 0, axis == 0 ? in : re);
            if (axis == 1) sampler(p, 1, im);
            re = plane(Format::R32F);
            im = plane(Format::R32F);
            image(p, 0, re, Access::Write);
            image(p, 1, im, Access::Write);
        }
        ComputePass& p = dispatch("gabor_combine.comp", tailDefines, groups(W, kTile), groups(H, kTile),
                                  bank ? "R32F (running maximum)" : "R32F");
        sampler(p, 0, re);
        sampler(p, 1, im);
        bindTail(p, o);
        if (bank) uniformInt(p, "first", k == 0);
        if (sinkTraits(plan.sink).complex) {
            image(p, 0, kept_.re, Access::Write);
            image(p, 1, kept_.im, Access::Write);
        }
    }
    return out;
}

} // namespace striate::gles
