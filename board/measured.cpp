#include "board/measured.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/params.h"

namespace striate {
namespace {

/// The stage kind a chain text ends in, by its name ("blur", "gabor", ...).
std::string lastKind(const std::string& chainText) {
    Chain c;
    if (!parseChain(chainText, &c) || c.stages.empty()) return "";
    return stageName(c.stages.back());
}

} // namespace

std::string measurementsPath(const std::string& board, const std::string& renderer) {
    std::string name;
    for (char ch : renderer) {
        if (std::isalnum(static_cast<unsigned char>(ch))) name += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        else if (!name.empty() && name.back() != '-') name += '-';
    }
    while (!name.empty() && name.back() == '-') name.pop_back();
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    const std::string dir = xdg && *xdg ? std::string(xdg) : std::string(home && *home ? home : ".") + "/.cache";
    return dir + "/striate/" + board + "-" + (name.empty() ? "none" : name) + ".json";
}

Status writeMeasurements(const std::string& path, const Measurements& m) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    std::ofstream f(path);
    if (!f) return Status::error("cannot write '" + path + "': " + std::strerror(errno));
    auto quoted = [](const std::string& s) {
        std::string q = "\"";
        for (char c : s) {
            if (c == '"' || c == '\\') q += '\\';
            if (static_cast<unsigned char>(c) >= 0x20) q += c;
        }
        return q + "\"";
    };
    f << "{\"board\": " << quoted(m.board) << ", \"renderer\": " << quoted(m.renderer)
      << ", \"versions\": " << quoted(m.versions) << ", \"timings\": [\n";
    for (std::size_t i = 0; i < m.timings.size(); ++i) {
        const Timing& t = m.timings[i];
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.4f", t.ms);
        f << "  {\"chain\": " << quoted(t.chain) << ", \"size\": \"" << t.width << "x" << t.height
          << "\", \"backend\": \"" << nickOf(kBackendKinds, t.backend) << "\", \"ms\": " << ms << "}"
          << (i + 1 < m.timings.size() ? "," : "") << "\n";
    }
    f << "]}\n";
    if (!f.flush()) return Status::error("cannot write '" + path + "'");
    return {};
}

bool readMeasurements(const std::string& path, Measurements* m) {
    std::ifstream f(path);
    if (!f) return false;
    *m = {};
    std::string line;
    auto field = [](const std::string& s, const std::string& name) {
        const auto at = s.find("\"" + name + "\": \"");
        if (at == std::string::npos) return std::string();
        const auto begin = at + name.size() + 5;
        return s.substr(begin, s.find('"', begin) - begin);
    };
    bool header = false;
    while (std::getline(f, line)) {
        if (!header) {
            m->board = field(line, "board");
            m->renderer = field(line, "renderer");
            m->versions = field(line, "versions");
            header = line.rfind("{\"board\": ", 0) == 0;
            continue;
        }
        if (line.find("{\"chain\": ") == std::string::npos) continue;
        Timing t;
        t.chain = field(line, "chain");
        const auto kind = fromNick(kBackendKinds, field(line, "backend"));
        const auto msAt = line.find("\"ms\": ");
        if (!kind || msAt == std::string::npos || std::sscanf(field(line, "size").c_str(), "%dx%d", &t.width, &t.height) != 2)
            return false;
        t.backend = *kind;
        t.ms = std::strtod(line.c_str() + msAt + 6, nullptr);
        m->timings.push_back(t);
    }
    return header && !m->timings.empty();
}

std::optional<BackendKind> fastestMeasured(const Measurements& m, const Chain* chain,
                                           const std::vector<BackendKind>& allowed, std::string* reason) {
    const std::string kind = chain && !chain->stages.empty() ? stageName(chain->stages.back()) : "";
    // Only (chain, size) pairs every allowed backend was timed on count, so the sums compare.
    std::map<std::string, std::set<BackendKind>> timedOn;
    for (const Timing& t : m.timings)
        if (kind.empty() || lastKind(t.chain) == kind)
            timedOn[t.chain + "@" + std::to_string(t.width) + "x" + std::to_string(t.height)].insert(t.backend);
    std::map<BackendKind, double> sums;
    for (const Timing& t : m.timings) {
        const auto& on = timedOn[t.chain + "@" + std::to_string(t.width) + "x" + std::to_string(t.height)];
        bool all = true;
        for (BackendKind b : allowed) all = all && on.count(b);
        if (all && std::find(allowed.begin(), allowed.end(), t.backend) != allowed.end()) sums[t.backend] += t.ms;
    }
    if (sums.empty()) return std::nullopt;
    std::optional<BackendKind> best;
    std::ostringstream why;
    for (const auto& [b, ms] : sums) {
        if (!best || ms < sums[*best]) best = b;
        char text[64];
        std::snprintf(text, sizeof text, "%s%s %.1f ms", why.tellp() > 0 ? ", " : "", nickOf(kBackendKinds, b), ms);
        why << text;
    }
    *reason = why.str();
    return best;
}

} // namespace striate
