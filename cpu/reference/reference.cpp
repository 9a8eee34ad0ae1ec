#include "cpu/reference/reference.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>

namespace striate::reference {
namespace {

int clampIndex(int i, int n) { return std::clamp(i, 0, n - 1); }

Line taps(const std::vector<double>& half) {
    const int R = static_cast<int>(half.size()) - 1;
    Line t(2 * R + 1);
    for (int i = -R; i <= R; ++i) t[i + R] = half[std::abs(i)];
    return t;
}

template <class F>
Plane mapComplex(const CPlane& in, F f) {
    Plane out(in.width(), in.height());
    for (int y = 0; y < in.height(); ++y)
        for (int x = 0; x < in.width(); ++x) out.at(x, y) = f(in.at(x, y));
    return out;
}

} // namespace

Plane fromU8(ImageView<const std::uint8_t> in) {
    Plane out(in.width, in.height);
    for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) out.at(x, y) = in.at(x, y) / 255.0;
    return out;
}

CPlane toComplex(const Plane& in) {
    CPlane out(in.width(), in.height());
    for (int y = 0; y < in.height(); ++y)
        for (int x = 0; x < in.width(); ++x) out.at(x, y) = in.at(x, y);
    return out;
}

Plane realPart(const CPlane& in) {
    return mapComplex(in, [](Complex64 z) { return z.real(); });
}

Line directLine(const Line& in, const std::vector<Complex64>& t) {
    const int n = static_cast<int>(in.size());
    const int R = static_cast<int>(t.size()) / 2;
    Line out(n);
    for (int i = 0; i < n; ++i) {
        Complex64 acc = 0;
        for (int k = -R; k <= R; ++k) acc += in[clampIndex(i - k, n)] * t[k + R];
        out[i] = acc;
    }
    return out;
}

Line boxLine(const Line& in, const ExtendedBox& box) {
    const int n = static_cast<int>(in.size());
    Line out(n);
    for (int i = 0; i < n; ++i) {
        Complex64 acc = 0;
        for (int k = -box.r; k <= box.r; ++k) acc += in[clampIndex(i + k, n)];
        acc += box.alpha * (in[clampIndex(i - box.r - 1, n)] + in[clampIndex(i + box.r + 1, n)]);
        out[i] = acc / box.norm;
    }
    return out;
}

Line recursiveLine(const Line& in, const Recursive3& f) {
    const int n = static_cast<int>(in.size());
    // u holds u[-3..n-1] at index i + 3; v holds v[0..n+2] at index i.
    Line u(n + 3), v(n + 3);
    const Complex64 startState = f.forwardGain * in[0];
    u[0] = u[1] = u[2] = startState;
    for (int i = 0; i < n; ++i)
        u[i + 3] = f.B * in[i] + f.forward[0] * u[i + 2] + f.forward[1] * u[i + 1] + f.forward[2] * u[i];
    const Complex64 endCausal = f.forwardGain * in[n - 1];
    const Complex64 endAnticausal = f.backwardGain * endCausal;
    const Complex64 d[3] = {u[n + 2] - endCausal, u[n + 1] - endCausal, u[n] - endCausal};
    for (int j = 0; j < 3; ++j)
        v[n + j] = endAnticausal + f.border[j][0] * d[0] + f.border[j][1] * d[1] + f.border[j][2] * d[2];
    for (int i = n - 1; i >= 0; --i)
        v[i] = f.B * u[i + 3] + f.backward[0] * v[i + 1] + f.backward[1] * v[i + 2] + f.backward[2] * v[i + 3];
    v.resize(n);
    return v;
}

Line recursivePaddedLine(const Line& in, const Recursive3& f, int pad) {
    const int n = static_cast<int>(in.size());
    Line padded(n + 2 * pad);
    for (int i = 0; i < n + 2 * pad; ++i) padded[i] = in[clampIndex(i - pad, n)];
    // Plain recursion from steady states at both ends of the padded copy: the padding is long
    // enough for the start transient to vanish, so no border matrix is involved.
    const int m = n + 2 * pad;
    Line u(m + 3), v(m + 3);
    u[0] = u[1] = u[2] = f.forwardGain * padded[0];
    for (int i = 0; i < m; ++i)
        u[i + 3] = f.B * padded[i] + f.forward[0] * u[i + 2] + f.forward[1] * u[i + 1] + f.forward[2] * u[i];
    v[m] = v[m + 1] = v[m + 2] = f.backwardGain * u[m + 2];
    for (int i = m - 1; i >= 0; --i)
        v[i] = f.B * u[i + 3] + f.backward[0] * v[i + 1] + f.backward[1] * v[i + 2] + f.backward[2] * v[i + 3];
    return Line(v.begin() + pad, v.begin() + pad + n);
}

CPlane filterRows(const CPlane& in, const LineFilter& f) {
    CPlane out(in.width(), in.height());
    Line line(in.width());
    for (int y = 0; y < in.height(); ++y) {
        for (int x = 0; x < in.width(); ++x) line[x] = in.at(x, y);
        Line r = f(line);
        for (int x = 0; x < in.width(); ++x) out.at(x, y) = r[x];
    }
    return out;
}

CPlane filterColumns(const CPlane& in, const LineFilter& f) {
    CPlane out(in.width(), in.height());
    Line line(in.height());
    for (int x = 0; x < in.width(); ++x) {
        for (int y = 0; y < in.height(); ++y) line[y] = in.at(x, y);
        Line r = f(line);
        for (int y = 0; y < in.height(); ++y) out.at(x, y) = r[y];
    }
    return out;
}

Plane blur(const Plane& in, const BlurSpec& spec) {
    CPlane z = toComplex(in);
    switch (spec.resolvedMethod()) {
    case BlurMethod::Direct: {
        Line t = taps(gaussianTaps(spec.sigma));
        LineFilter f = [&](const Line& l) { return directLine(l, t); };
        return realPart(filterColumns(filterRows(z, f), f));
    }
    case BlurMethod::Boxes: {
        const ExtendedBox box = extendedBox(spec.sigma, kBoxPasses);
        // Replicate borders mean the padded-copy definition: pad once by what the whole cascade
        // reaches, filter, crop. (Clamping at every pass would be a different filter.)
        const int pad = kBoxPasses * (box.r + 1);
        LineFilter f = [&](const Line& l) {
            const int n = static_cast<int>(l.size());
            Line r(n + 2 * pad);
            for (int i = 0; i < n + 2 * pad; ++i) r[i] = l[clampIndex(i - pad, n)];
            for (int p = 0; p < kBoxPasses; ++p) r = boxLine(r, box);
            return Line(r.begin() + pad, r.begin() + pad + n);
        };
        return realPart(filterColumns(filterRows(z, f), f));
    }
    case BlurMethod::Recursive:
    case BlurMethod::Auto: {
        const Recursive3 r = recursive3(spec.sigma, 0);
        LineFilter f = [&](const Line& l) { return recursiveLine(l, r); };
        return realPart(filterColumns(filterRows(z, f), f));
    }
    }
    return copyOf(in.view());
}

CPlane gaborComplex(const Plane& in, const GaborSpec& spec, double orientationDegrees) {
    const AxisFrequencies w = axisFrequencies(spec.wavelength, orientationDegrees);
    const bool recursive = spec.resolvedMethod() == GaborMethod::Recursive;
    auto axisFilter = [&](double wa) -> LineFilter {
        if (recursive) {
            Recursive3 r = recursive3(spec.sigma, wa);
            return [r](const Line& l) { return recursiveLine(l, r); };
        }
        std::vector<Complex64> t = gaborTaps(spec.sigma, wa);
        return [t](const Line& l) { return directLine(l, t); };
    };
    CPlane z = filterColumns(filterRows(toComplex(in), axisFilter(w.wx)), axisFilter(w.wy));
    if (spec.removeDc) {
        const double k = gaborAxisDcGain(spec.sigma, w.wx, recursive) * gaborAxisDcGain(spec.sigma, w.wy, recursive);
        const Plane g = blur(in, BlurSpec{spec.sigma, recursive ? BlurMethod::Recursive : BlurMethod::Direct});
        for (int y = 0; y < z.height(); ++y)
            for (int x = 0; x < z.width(); ++x) z.at(x, y) -= k * g.at(x, y);
    }
    return z;
}

Plane gabor(const Plane& in, const GaborSpec& spec) {
    if (spec.orientations > 1) {
        Plane best(in.width(), in.height());
        for (int k = 0; k < spec.orientations; ++k) {
            Plane m = mapComplex(gaborComplex(in, spec, spec.orientationOf(k)), [](Complex64 z) { return std::abs(z); });
            for (int y = 0; y < in.height(); ++y)
                for (int x = 0; x < in.width(); ++x) best.at(x, y) = k == 0 ? m.at(x, y) : std::max(best.at(x, y), m.at(x, y));
        }
        return best;
    }
    CPlane z = gaborComplex(in, spec, spec.orientation);
    switch (spec.output) {
    case GaborOutput::Real: return mapComplex(z, [](Complex64 v) { return v.real(); });
    case GaborOutput::Imaginary: return mapComplex(z, [](Complex64 v) { return v.imag(); });
    case GaborOutput::Phase: return mapComplex(z, [](Complex64 v) { return std::arg(v); });
    case GaborOutput::Magnitude:
    case GaborOutput::Complex: break;
    }
    return mapComplex(z, [](Complex64 v) { return std::abs(v); });
}

namespace {

/// Non-maximum suppression and double threshold, then hysteresis by breadth-first search.
/// `slack` > 0: neighbours within it count as tied (packed planes' departure, edgeMaps).
std::vector<std::uint8_t> suppressAndTrace(const Plane& m, const std::vector<std::uint8_t>& sector,
                                           double low, double high, double slack) {
    const int W = m.width(), H = m.height();
    // 0: none, 1: weak, 2: strong
    std::vector<std::uint8_t> cls(std::size_t(W) * H, 0);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const int s = sector[std::size_t(y) * W + x];
            const int dx = kSectorStep[s][0], dy = kSectorStep[s][1];
            const double v = m.at(x, y);
            const double before = m.at(clampIndex(x - dx, W), clampIndex(y - dy, H));
            const double after = m.at(clampIndex(x + dx, W), clampIndex(y + dy, H));
            if (!isLocalMaximum(v, before + slack, after - slack)) continue;
            if (v >= high) cls[std::size_t(y) * W + x] = 2;
            else if (v >= low) cls[std::size_t(y) * W + x] = 1;
        }
    std::vector<std::uint8_t> edges(cls.size(), 0);
    std::deque<std::pair<int, int>> queue;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            if (cls[std::size_t(y) * W + x] == 2) {
                edges[std::size_t(y) * W + x] = 1;
                queue.emplace_back(x, y);
            }
    while (!queue.empty()) {
        auto [x, y] = queue.front();
        queue.pop_front();
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int nx = x + dx, ny = y + dy;
                if (nx < 0 || ny < 0 || nx >= W || ny >= H) continue;
                const std::size_t i = std::size_t(ny) * W + nx;
                if (cls[i] >= 1 && !edges[i]) {
                    edges[i] = 1;
                    queue.emplace_back(nx, ny);
                }
            }
    }
    return edges;
}

/// Canny's strength and sector (docs/algorithms.md 4.1): central differences of the smoothed image.
void cannyStrength(const Plane& in, const EdgeSpec& spec, EdgeMaps* m) {
    EdgeMaps& maps = *m;
    const int W = in.width(), H = in.height();
    const Plane s = blur(in, spec.smoothing());
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const double gx = (s.at(clampIndex(x + 1, W), y) - s.at(clampIndex(x - 1, W), y)) / 2;
            const double gy = (s.at(x, clampIndex(y + 1, H)) - s.at(x, clampIndex(y - 1, H))) / 2;
            maps.strength.at(x, y) = std::sqrt(gx * gx + gy * gy);
            const double ax = std::abs(gx), ay = std::abs(gy);
            int sec;
            if (ay <= kTan22_5 * ax) sec = 0;
            else if (ay > kTan67_5 * ax) sec = 2;
            else sec = (gx > 0) == (gy > 0) ? 1 : 3;
            maps.sector[std::size_t(y) * W + x] = static_cast<std::uint8_t>(sec);
        }
}

/// Gabor energy's strength and sector (docs/algorithms.md 4.2): the bank's largest magnitude, the
/// first of near-equal maxima in bankOrder's order (within `slack` too).
void gaborEnergyStrength(const Plane& in, const EdgeSpec& spec, EdgeMaps* m, double slack) {
    EdgeMaps& maps = *m;
    const int W = in.width(), H = in.height();
    std::vector<double> thetas;
    for (int k = 0; k < spec.orientations; ++k) thetas.push_back(spec.bankMember(k).orientation);
    const std::vector<int> order = bankOrder(thetas);  // the first of near-equal maxima wins, in this order
    for (int k : order) {
        const GaborSpec g = spec.bankMember(k);
        const CPlane z = gaborComplex(in, g, g.orientation);
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const double e = std::abs(z.at(x, y));
                if (k == order[0] || clearlyGreater(e, maps.strength.at(x, y) + slack)) {
                    maps.strength.at(x, y) = e;
                    maps.sector[std::size_t(y) * W + x] = static_cast<std::uint8_t>(spec.bankSector(k));
                }
            }
    }
}

} // namespace

EdgeMaps edgeMaps(const Plane& in, const EdgeSpec& spec, double tieSlack) {
    const int W = in.width(), H = in.height();
    EdgeMaps maps;
    maps.strength.reset(W, H);
    maps.sector.assign(std::size_t(W) * H, 0);
    switch (spec.method) {
    case EdgeMethod::Canny: cannyStrength(in, spec, &maps); break;
    case EdgeMethod::Gabor: gaborEnergyStrength(in, spec, &maps, tieSlack); break;
    }
    maps.edges = suppressAndTrace(maps.strength, maps.sector, spec.lowThreshold, spec.highThreshold, tieSlack);
    return maps;
}

Plane edges(const Plane& in, const EdgeSpec& spec, double tieSlack) {
    EdgeMaps maps = edgeMaps(in, spec, tieSlack);
    // 1 on an edge, elsewhere(x, y) off it.
    const auto marked = [&](auto elsewhere) {
        Plane out(in.width(), in.height());
        for (int y = 0; y < in.height(); ++y)
            for (int x = 0; x < in.width(); ++x)
                out.at(x, y) = maps.edges[std::size_t(y) * in.width() + x] ? 1.0 : elsewhere(x, y);
        return out;
    };
    switch (spec.output) {
    case EdgeOutput::Strength: return std::move(maps.strength);
    case EdgeOutput::Edges: return marked([](int, int) { return 0.0; });
    case EdgeOutput::Overlay: return marked([&](int x, int y) { return in.at(x, y); });
    }
    std::abort();  // not an EdgeOutput
}

namespace {

/// Adaptive threshold (docs/algorithms.md 4.3): 1 where the input exceeds its local mean less the
/// offset, strictly.
Plane threshold(const Plane& in, const ThresholdSpec& spec) {
    const Plane mean = blur(in, spec.mean());
    Plane out(in.width(), in.height());
    for (int y = 0; y < in.height(); ++y)
        for (int x = 0; x < in.width(); ++x) out.at(x, y) = in.at(x, y) > mean.at(x, y) - spec.offset ? 1.0 : 0.0;
    return out;
}

} // namespace

Plane runChain(const Plane& in, const Chain& chain, CPlane* complexOut) {
    Plane current = copyOf(in.view());
    for (const Stage& stage : chain.stages) {
        current = std::visit(Overloaded{[&](const BlurSpec& b) { return blur(current, b); },
                                        [&](const GaborSpec& g) {
                                            if (!g.complexOutput() || !complexOut) return gabor(current, g);
                                            *complexOut = gaborComplex(current, g, g.orientation);
                                            return mapComplex(*complexOut, [](Complex64 z) { return std::abs(z); });
                                        },
                                        [&](const EdgeSpec& e) { return edges(current, e); },
                                        [&](const ThresholdSpec& t) { return threshold(current, t); }},
                             stage);
    }
    return current;
}

Status ReferenceBackend::validate(const Chain& chain, const FrameFormat& format) const {
    if (Status s = chain.validate(); !s) return s;
    return validateFrameFormat(format);
}

Status ReferenceBackend::configure(const Chain& chain, const FrameFormat& format) {
    if (Status s = validate(chain, format); !s) return s;
    chain_ = chain;
    format_ = format;
    return {};
}

Status ReferenceBackend::process(ImageView<const std::uint8_t> luma, ChainOutput* out) {
    if (Status s = checkFrameSize(luma.width, luma.height, format_); !s) return s;
    CPlane z;
    Plane r = runChain(fromU8(luma), chain_, &z);
    real_.reset(r.width(), r.height());
    for (int y = 0; y < r.height(); ++y)
        for (int x = 0; x < r.width(); ++x) real_.at(x, y) = static_cast<float>(r.at(x, y));
    *out = ChainOutput{};
    out->real = real_.view();
    if (chain_.complexOutput()) {
        complex_.reset(z.width(), z.height());
        for (int y = 0; y < z.height(); ++y)
            for (int x = 0; x < z.width(); ++x) complex_.at(x, y) = Complex32(z.at(x, y));
        out->complex = true;
        out->complexPlane = complex_.view();
    }
    return {};
}

} // namespace striate::reference
