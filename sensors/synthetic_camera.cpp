#include "sensors/synthetic_camera.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

namespace striate::sensors {
namespace {

/// Counter-based random numbers (SplitMix64): any pixel of any frame can be drawn independently,
/// so rendering is deterministic whatever the thread or row order.
std::uint64_t mix(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/// Standard normal deviates at 4096 equally likely quantiles, built once by inverting erf: one
/// table lookup per pixel instead of a logarithm, a square root and a cosine.
const float* normalTable() {
    static const std::vector<float> table = [] {
        std::vector<float> t(4096);
        for (std::size_t i = 0; i < t.size(); ++i) {
            const double p = (i + 0.5) / t.size();
            double lo = -10, hi = 10;
            for (int k = 0; k < 80; ++k) {
                const double mid = (lo + hi) / 2;
                (0.5 * std::erfc(-mid / std::numbers::sqrt2) < p ? lo : hi) = mid;
            }
            t[i] = static_cast<float>((lo + hi) / 2);
        }
        return t;
    }();
    return table.data();
}

/// A standard normal sample for (seed, frame, pixel).
float normal(std::uint64_t frameKey, std::uint64_t pixel) { return normalTable()[mix(frameKey ^ pixel) >> 52]; }

/// Anti-aliased coverage of a half-plane edge at signed distance d (pixels).
double coverage(double d) { return std::clamp(0.5 - d, 0.0, 1.0); }

// 5x7 glyphs for the text scene: each row is 5 bits, most significant bit on the left.
struct Glyph {
    char c;
    std::uint8_t rows[7];
};
constexpr Glyph kFont[] = {
    {'S', {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E}}, {'T', {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}},
    {'R', {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}}, {'I', {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'A', {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}}, {'E', {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F}},
    {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}}, {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}}, {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}}, {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
    {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}}, {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}}, {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
    {'V', {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04}}, {' ', {0, 0, 0, 0, 0, 0, 0}},
};

const Glyph* glyphOf(char c) {
    for (const Glyph& g : kFont)
        if (g.c == c) return &g;
    return nullptr;
}

/// How the camera sees the photo in one frame: the view covers the frame at 1.25 to 1.45 times
/// the smallest scale that fills it (1.35 at frame 0), its centre at the photo's centre at frame
/// 0 and drifting on a slow Lissajous path within the photo (periods of about 900 and 480 frames).
struct PhotoView {
    double scale = 1, cx = 0, cy = 0;  // frame pixels per photo pixel; the view's centre in the photo
    PhotoView(ImageView<const std::uint8_t> p, double t, int W, int H) {
        if (p.empty()) return;
        scale = std::max(double(W) / p.width, double(H) / p.height) * (1.35 + 0.1 * std::sin(t * 0.013));
        const double spanX = (p.width - W / scale) / 2, spanY = (p.height - H / scale) / 2;  // room to move
        cx = p.width / 2.0 + 0.9 * spanX * std::sin(t * 0.007);
        cy = p.height / 2.0 + 0.9 * spanY * std::sin(t * 0.013);
    }
};

/// The photo at frame pixel centre (x, y), bilinear, in [0, 1].
double photoRadiance(ImageView<const std::uint8_t> p, const PhotoView& v, double x, double y, int W, int H) {
    if (p.empty()) return 0.5;
    const double px = std::clamp(v.cx + (x - W / 2.0) / v.scale - 0.5, 0.0, p.width - 1.0);
    const double py = std::clamp(v.cy + (y - H / 2.0) / v.scale - 0.5, 0.0, p.height - 1.0);
    const int x0 = static_cast<int>(px), y0 = static_cast<int>(py);
    const int x1 = std::min(x0 + 1, p.width - 1), y1 = std::min(y0 + 1, p.height - 1);
    const double fx = px - x0, fy = py - y0;
    const double top = p.at(x0, y0) + (p.at(x1, y0) - p.at(x0, y0)) * fx;
    const double bottom = p.at(x0, y1) + (p.at(x1, y1) - p.at(x0, y1)) * fx;
    return (top + (bottom - top) * fy) / 255.0;
}

/// Radiance of the scene at pixel centre (x, y), in [0, 1].
double radiance(const CameraSettings& s, double t, double x, double y, int W, int H, const char* text,
                 const PhotoView& view) {
    const double cx = W / 2.0, cy = H / 2.0, scale = std::min(W, H);
    switch (s.scene) {
    case Scene::Grating: {
        // A drifting sinusoidal grating at 30 degrees, period an eighth of the short side.
        const double theta = std::numbers::pi / 6, period = std::max(4.0, scale / 8);
        const double u = (x - cx) * std::cos(theta) + (y - cy) * std::sin(theta);
        return 0.5 + 0.4 * std::sin(2 * std::numbers::pi * (u / period - t * 0.05));
    }
    case Scene::SiemensStar: {
        // 36 spokes, rotating; the centre is left grey where the spokes would alias.
        const double r = std::hypot(x - cx, y - cy);
        if (r > 0.45 * scale) return 0.5;
        if (r < 0.03 * scale) return 0.5;
        const double a = std::atan2(y - cy, x - cx) + t * 0.02;
        return std::sin(18 * a) > 0 ? 0.85 : 0.15;
    }
    case Scene::Text: {
        // Large 5x7 text (cell of 6x9 glyph pixels), scrolling horizontally.
        const int n = static_cast<int>(std::strlen(text));
        const double cell = std::max(2.0, std::floor(scale / 12));
        const double width = n * 6 * cell;
        double gx = std::fmod(x - (W - width) / 2 + t * 2, std::max(width, double(W)));
        if (gx < 0) gx += std::max(width, double(W));
        const double gy = y - (H - 9 * cell) / 2;
        if (gx >= width || gy < 0 || gy >= 7 * cell) return 0.2;
        const int col = static_cast<int>(gx / cell), row = static_cast<int>(gy / cell);
        const Glyph* g = glyphOf(text[col / 6]);
        const int bit = col % 6;
        return g && bit < 5 && (g->rows[row] >> (4 - bit) & 1) ? 0.9 : 0.2;
    }
    case Scene::Photo: return photoRadiance(s.photo, view, x, y, W, H);
    case Scene::Shapes:
        break;
    }
    // Shapes: a bright disk circling, a dark rectangle sliding, a thin diagonal bar, on a ramp.
    double v = 0.3 + 0.2 * x / W;
    const double a = t * 0.03;
    const double dx = cx + 0.25 * scale * std::cos(a), dy = cy + 0.2 * scale * std::sin(a);
    v += (0.9 - v) * coverage(std::hypot(x - dx, y - dy) - 0.12 * scale);
    const double rx = W * 0.15 + std::fmod(t * 1.5, W * 0.5), ry = H * 0.6;
    const double inside = std::max(std::abs(x - rx) - 0.1 * scale, std::abs(y - ry) - 0.07 * scale);
    v += (0.08 - v) * coverage(inside);
    const double bar = std::abs((x - W * 0.7) - (y - H * 0.2)) / std::sqrt(2.0) - 1.0;
    if (y > H * 0.2 && y < H * 0.8) v += (0.95 - v) * coverage(bar);
    return std::clamp(v, 0.0, 1.0);
}

} // namespace

void renderRows(const CameraSettings& s, std::uint64_t index, ImageView<std::uint8_t> out, int y0, int y1) {
    const double t = s.motion ? static_cast<double>(index) : 0.0;
    const NoiseModel& n = s.noise;
    const char* text = "STRIATE V1 2026";
    const std::uint64_t frameKey = mix(s.seed ^ mix(index * 0x100000001b3ull + 0x51ed27));
    const double readVariance = n.readNoise * n.readNoise;
    const PhotoView view(s.photo, t, out.width, out.height);
    for (int y = y0; y < y1; ++y) {
        std::uint8_t* row = out.row(y);
        for (int x = 0; x < out.width; ++x) {
            double v = radiance(s, t, x + 0.5, y + 0.5, out.width, out.height, text, view) * n.exposure;
            if (n.enabled) {
                const double electrons = std::min(v, 1.0) * n.fullWell;
                const std::uint64_t pixel = static_cast<std::uint64_t>(y) * out.width + x;
                v = (electrons + std::sqrt(electrons + readVariance) * normal(frameKey, pixel)) / n.fullWell;
            }
            row[x] = static_cast<std::uint8_t>(std::clamp(std::lround(v * 255), 0L, 255L));
        }
    }
}

} // namespace striate::sensors
