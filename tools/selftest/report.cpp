#include "tools/selftest/report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "io/image_io.h"

namespace striate::selftest {
namespace {

/// A plane as the 8-bit codes the elements would output (encode8 of the chain's encoding).
Image<std::uint8_t> codes(ImageView<const float> plane, const Encoding& encoding) {
    Image<std::uint8_t> out(plane.width, plane.height);
    for (int y = 0; y < plane.height; ++y)
        for (int x = 0; x < plane.width; ++x) out.at(x, y) = encode8(plane.at(x, y), encoding);
    return out;
}

std::string escape(const std::string& s) {
    std::string e;
    for (char c : s) {
        if (c == '<') e += "&lt;";
        else if (c == '>') e += "&gt;";
        else if (c == '&') e += "&amp;";
        else if (c == '"') e += "&quot;";
        else e += c;
    }
    return e;
}

std::string number(double v) {
    char b[32];
    std::snprintf(b, sizeof b, std::isfinite(v) ? "%.3g" : "-", v);
    return b;
}

} // namespace

void HtmlReport::offer(const Row& row, const Chain& chain, const Image<std::uint8_t>& input, const ChainOutput& reference,
                       const ChainOutput& output) {
    const std::string key = row.backend + " " + row.profile + " " + row.c.chain;
    const auto it = shots_.find(key);
    if (it != shots_.end()) {
        const bool failing = !row.accuracy.pass, kept = !it->second.row.accuracy.pass;
        const bool larger = row.c.width * row.c.height > it->second.row.c.width * it->second.row.c.height;
        if (kept && !failing) return;
        if (failing == kept && !larger) return;
    }
    Shot s;
    s.row = row;
    s.input.reset(input.width(), input.height());
    for (int y = 0; y < input.height(); ++y) std::copy(input.row(y), input.row(y) + input.width(), s.input.row(y));
    const Encoding encoding = chain.encoding();
    s.reference = codes(reference.real, encoding);
    s.output = codes(output.real, encoding);
    // The error heat map: black where equal, a red ramp up to the budget, yellow beyond it.
    const int w = input.width(), h = input.height();
    s.heat.resize(std::size_t(w) * h * 3);
    const double budget = row.accuracy.budget;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double e = std::abs(double(reference.real.at(x, y)) - double(output.real.at(x, y)));
            const double r = budget > 0 && budget < 0.1 ? e / budget : e > 0 ? 2.0 : 0.0;
            std::uint8_t* p = &s.heat[(std::size_t(y) * w + x) * 3];
            if (!(r <= 1)) {
                p[0] = 255, p[1] = 230, p[2] = 0;
            } else {
                p[0] = static_cast<std::uint8_t>(20 + 235 * r), p[1] = 20, p[2] = 20;
            }
        }
    shots_[key] = std::move(s);
}

Status HtmlReport::write(const std::string& dir, const Report& report) const {
    std::error_code ec;
    std::filesystem::create_directories(dir + "/img", ec);
    if (ec) return Status::error("cannot create '" + dir + "/img': " + ec.message());
    std::vector<const Shot*> order;
    for (const auto& [key, shot] : shots_) order.push_back(&shot);
    std::stable_sort(order.begin(), order.end(), [](const Shot* a, const Shot* b) { return !a->row.accuracy.pass && b->row.accuracy.pass; });

    std::ofstream html(dir + "/index.html");
    if (!html) return Status::error("cannot write '" + dir + "/index.html'");
    html << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>striate selftest</title>\n"
            "<style>body{font:14px sans-serif;margin:1.5em;background:#fafafa}figure{display:inline-block;margin:0 .6em "
            ".6em 0}img{width:200px;image-rendering:pixelated;border:1px solid #999;background:#fff}figcaption{font-size:"
            "12px}section{margin-bottom:1.2em}h3{font-size:14px;margin:.3em 0}.FAIL h3{color:#b00}.PASS h3{color:#060}"
            "</style></head><body>\n";
    html << "<h1>striate selftest</h1>\n<p>" << report.rows.size() << " rows, " << report.failures()
         << " failed; board " << escape(report.profiles.empty() ? "" : report.profiles.front()) << "; "
         << escape(report.measurements.versions) << "; renderer " << escape(report.measurements.renderer) << "</p>\n";

    // The chart: per chain and size, one bar per backend (ms per frame, the longest bar full width).
    const auto& timings = report.measurements.timings;
    if (!timings.empty()) {
        std::vector<std::string> groups;
        for (const Timing& t : timings) {
            const std::string g = t.chain + " " + std::to_string(t.width) + "x" + std::to_string(t.height);
            if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
        }
        const double most = std::max_element(timings.begin(), timings.end(), [](const Timing& a, const Timing& b) {
                                return a.ms < b.ms;
                            })->ms;
        const int barH = 14, left = 330, width = 520;
        const int height = static_cast<int>(timings.size() + groups.size()) * (barH + 4) + 30;
        html << "<h2>Time per frame</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + width + 90
             << "\" height=\"" << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
        int y = 10;
        const char* colours[] = {"#4477aa", "#ee6677", "#228833"};
        for (const std::string& g : groups) {
            html << "<text x=\"0\" y=\"" << y + barH - 3 << "\" font-weight=\"bold\">" << escape(g) << "</text>\n";
            y += barH + 4;
            for (const Timing& t : timings) {
                if (t.chain + " " + std::to_string(t.width) + "x" + std::to_string(t.height) != g) continue;
                const int bar = std::max(1, static_cast<int>(width * t.ms / most));
                html << "<text x=\"20\" y=\"" << y + barH - 3 << "\">" << nickOf(kBackendKinds, t.backend) << "</text>"
                     << "<rect x=\"" << left << "\" y=\"" << y << "\" width=\"" << bar << "\" height=\"" << barH
                     << "\" fill=\"" << colours[static_cast<int>(t.backend) % 3] << "\"/>"
                     << "<text x=\"" << left + bar + 4 << "\" y=\"" << y + barH - 3 << "\">" << number(t.ms) << " ms</text>\n";
                y += barH + 4;
            }
        }
        html << "</svg>\n";
    }

    // The elements: what ran, and each failure with its reason (their frames are compared in
    // output codes; no images).
    int elementRows = 0, elementFailures = 0;
    std::ostringstream failed;
    for (const Row& r : report.rows) {
        if (r.check != "element") continue;
        ++elementRows;
        if (!r.ran || r.accuracy.pass) continue;
        ++elementFailures;
        failed << "<li>" << escape(r.backend) << " (board " << escape(r.profile) << "): " << escape(r.c.chain) << ", "
               << escape(r.c.input) << " " << r.c.width << "x" << r.c.height << ": " << escape(r.note) << "</li>\n";
    }
    if (elementRows)
        html << "<h2>Elements</h2>\n<p class=\"" << (elementFailures ? "FAIL" : "PASS") << "\">" << elementRows
             << " pipelines (appsrc ! element ! appsink, every 8-bit input format but packed 4:2:2, odd strides) against the same backend's "
                "direct result, " << elementFailures << " failed; plugin " << escape(report.plugin) << "</p>\n<ul>"
             << failed.str() << "</ul>\n";

    html << "<h2>Cases (failing first)</h2>\n";
    int index = 0;
    for (const Shot* s : order) {
        const Row& r = s->row;
        const std::string stem = "img/" + std::to_string(index++);
        const std::pair<const char*, const Image<std::uint8_t>*> planes[] = {
            {"input", &s->input}, {"reference", &s->reference}, {"output", &s->output}};
        for (const auto& [name, image] : planes)
            if (Status st = io::writeGray(dir + "/" + stem + "-" + name + ".png", image->view()); !st) return st;
        if (Status st = io::writeRgbPng(dir + "/" + stem + "-error.png", s->input.width(), s->input.height(), s->heat); !st)
            return st;
        const char* verdict = r.accuracy.pass ? "PASS" : "FAIL";
        html << "<section class=\"" << verdict << "\"><h3>" << verdict << " " << escape(r.backend) << " (board "
             << escape(r.profile) << ") &mdash; " << escape(r.c.chain) << " &mdash; " << escape(r.c.input) << " "
             << r.c.width << "x" << r.c.height << " &mdash; error " << number(r.accuracy.error) << ", budget "
             << number(r.accuracy.budget) << ", " << number(r.ms) << " ms</h3>\n";
        for (const char* name : {"input", "reference", "output", "error"})
            html << "<figure><img src=\"" << stem << "-" << name << ".png\" alt=\"" << name << "\"><figcaption>"
                 << (std::string(name) == "error" ? "error (red: within budget, yellow: beyond)" : name)
                 << "</figcaption></figure>";
        html << "</section>\n";
    }
    html << "</body></html>\n";
    if (!html.flush()) return Status::error("cannot write '" + dir + "/index.html'");
    return {};
}

} // namespace striate::selftest
