#include "core/chain.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <sstream>

namespace striate {
namespace {

struct Token {
    std::string_view text;
    std::size_t column;  // 1-based
};

std::vector<Token> splitWords(std::string_view text, std::size_t offset) {
    std::vector<Token> words;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        std::size_t start = i;
        while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        if (i > start) words.push_back({text.substr(start, i - start), offset + start + 1});
    }
    return words;
}

std::optional<double> parseDouble(std::string_view s) {
    // Decimal only: strtod also reads hexadecimal ("0x10" as 16) and leading spaces. "nan" and
    // "inf" parse, and validation then names them.
    std::size_t i = s.size() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (s.substr(i) != "nan" && s.substr(i) != "inf") {
        bool digits = false;
        for (; i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'); ++i) digits |= s[i] != '.';
        if (digits && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
            i += i + 1 < s.size() && (s[i + 1] == '-' || s[i + 1] == '+') ? 2 : 1;
            while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        }
        if (!digits || i != s.size()) return std::nullopt;
    }
    std::string copy(s);
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size()) return std::nullopt;
    return v;
}

std::optional<int> parseInt(std::string_view s) {
    int v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<bool> parseBool(std::string_view s) {
    if (s == "true" || s == "1" || s == "yes") return true;
    if (s == "false" || s == "0" || s == "no") return false;
    return std::nullopt;
}

template <class E, std::size_t N>
std::string nickList(const EnumName<E> (&table)[N]) {
    std::string out;
    for (const auto& e : table) out += (out.empty() ? "" : ", ") + std::string(e.nick);
    return out;
}

/// One settable parameter: its name, the accepted values (for the error), and a setter that
/// returns false when the value does not parse.
struct Param {
    const char* name;
    std::string expected;
    std::function<bool(std::string_view)> set;
};

Param number(const char* name, double* field) {
    return {name, "a number", [field](std::string_view v) {
                auto d = parseDouble(v);
                if (d) *field = *d;
                return d.has_value();
            }};
}

Param integer(const char* name, int* field) {
    return {name, "an integer", [field](std::string_view v) {
                auto d = parseInt(v);
                if (d) *field = *d;
                return d.has_value();
            }};
}

Param boolean(const char* name, bool* field) {
    return {name, "true or false", [field](std::string_view v) {
                auto d = parseBool(v);
                if (d) *field = *d;
                return d.has_value();
            }};
}

template <class E, std::size_t N>
Param enumeration(const char* name, E* field, const EnumName<E> (&table)[N]) {
    return {name, "one of " + nickList(table), [field, &table](std::string_view v) {
                auto d = fromNick(table, v);
                if (d) *field = *d;
                return d.has_value();
            }};
}

std::vector<Param> paramsOf(BlurSpec& s) {
    return {number("sigma", &s.sigma), enumeration("method", &s.method, kBlurMethods)};
}

std::vector<Param> paramsOf(GaborSpec& s) {
    return {number("sigma", &s.sigma),
            number("wavelength", &s.wavelength),
            number("orientation", &s.orientation),
            integer("orientations", &s.orientations),
            enumeration("output", &s.output, kGaborOutputs),
            boolean("remove-dc", &s.removeDc),
            number("gain", &s.gain),
            enumeration("method", &s.method, kGaborMethods)};
}

std::vector<Param> paramsOf(EdgeSpec& s) {
    return {enumeration("method", &s.method, kEdgeMethods),
            number("sigma", &s.sigma),
            number("wavelength", &s.wavelength),
            integer("orientations", &s.orientations),
            number("low-threshold", &s.lowThreshold),
            number("high-threshold", &s.highThreshold),
            enumeration("output", &s.output, kEdgeOutputs)};
}

std::string paramNames(const std::vector<Param>& params) {
    std::string out;
    for (const auto& p : params) out += (out.empty() ? "" : ", ") + std::string(p.name);
    return out;
}

std::string where(int index, std::string_view name, std::size_t column) {
    std::ostringstream s;
    s << "chain stage " << index << " '" << name << "' (column " << column << "): ";
    return s.str();
}

Status parseStage(const std::vector<Token>& words, int index, Stage* out) {
    const Token& head = words.front();
    if (head.text == "blur") *out = BlurSpec{};
    else if (head.text == "gabor") *out = GaborSpec{};
    else if (head.text == "edges") *out = EdgeSpec{};
    else
        return Status::error("chain stage " + std::to_string(index) + " (column " + std::to_string(head.column) +
                             "): unknown stage '" + std::string(head.text) + "' (expected blur, gabor or edges)");

    std::vector<Param> params = std::visit([](auto& s) { return paramsOf(s); }, *out);
    std::vector<std::string_view> given;
    for (std::size_t i = 1; i < words.size(); ++i) {
        const Token& w = words[i];
        std::size_t eq = w.text.find('=');
        if (eq == std::string_view::npos || eq == 0)
            return Status::error(where(index, head.text, w.column) + "expected name=value, got '" +
                                 std::string(w.text) + "'");
        std::string_view key = w.text.substr(0, eq);
        std::string_view value = w.text.substr(eq + 1);
        const Param* param = nullptr;
        for (const auto& p : params)
            if (key == p.name) param = &p;
        if (!param)
            return Status::error(where(index, head.text, w.column) + "unknown parameter '" + std::string(key) +
                                 "' (expected " + paramNames(params) + ")");
        if (std::find(given.begin(), given.end(), key) != given.end())
            return Status::error(where(index, head.text, w.column) + std::string(key) + " is given twice");
        given.push_back(key);
        if (!param->set(value))
            return Status::error(where(index, head.text, w.column + eq + 1) + std::string(key) + "='" +
                                 std::string(value) + "' is not " + param->expected);
    }
    if (Status s = validateStage(*out); !s) return Status::error(where(index, head.text, head.column) + s.message());
    return {};
}

std::string formatDouble(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

} // namespace

Status Chain::validate() const {
    if (stages.empty()) return Status::error("the chain has no stages");
    for (std::size_t i = 0; i < stages.size(); ++i) {
        if (Status s = validateStage(stages[i]); !s)
            return Status::error("chain stage " + std::to_string(i + 1) + " '" + stageName(stages[i]) +
                                 "': " + s.message());
        if (isComplexOutput(stages[i]) && i + 1 != stages.size())
            return Status::error("chain stage " + std::to_string(i + 1) +
                                 " 'gabor': output=complex is only allowed in the last stage");
    }
    return {};
}

Chain chromaChain(const Chain& chain) {
    Chain c = chain;
    auto& b = std::get<BlurSpec>(c.stages.front());
    b.sigma = std::max(kMinSigma, b.sigma / 2);
    if (b.method == BlurMethod::Recursive && b.sigma < kMinRecursiveSigma) b.method = BlurMethod::Auto;
    return c;
}

Status parseChain(std::string_view text, Chain* chain) {
    chain->stages.clear();
    std::size_t start = 0;
    int index = 1;
    while (true) {
        std::size_t bang = text.find('!', start);
        std::string_view part = text.substr(start, bang == std::string_view::npos ? text.size() - start : bang - start);
        std::vector<Token> words = splitWords(part, start);
        if (words.empty())
            return Status::error("chain stage " + std::to_string(index) + " (column " + std::to_string(start + 1) +
                                 "): empty stage (expected blur, gabor or edges)");
        Stage stage;
        if (Status s = parseStage(words, index, &stage); !s) return s;
        chain->stages.push_back(stage);
        if (bang == std::string_view::npos) break;
        start = bang + 1;
        ++index;
    }
    return chain->validate();
}

std::string formatStage(const Stage& stage) {
    std::ostringstream s;
    if (const auto* b = std::get_if<BlurSpec>(&stage)) {
        s << "blur sigma=" << formatDouble(b->sigma) << " method=" << nickOf(kBlurMethods, b->method);
    } else if (const auto* g = std::get_if<GaborSpec>(&stage)) {
        s << "gabor sigma=" << formatDouble(g->sigma) << " wavelength=" << formatDouble(g->wavelength)
          << " orientation=" << formatDouble(g->orientation) << " orientations=" << g->orientations
          << " output=" << nickOf(kGaborOutputs, g->output) << " remove-dc=" << (g->removeDc ? "true" : "false")
          << " gain=" << formatDouble(g->gain) << " method=" << nickOf(kGaborMethods, g->method);
    } else if (const auto* e = std::get_if<EdgeSpec>(&stage)) {
        s << "edges method=" << nickOf(kEdgeMethods, e->method) << " sigma=" << formatDouble(e->sigma)
          << " wavelength=" << formatDouble(e->wavelength) << " orientations=" << e->orientations
          << " low-threshold=" << formatDouble(e->lowThreshold)
          << " high-threshold=" << formatDouble(e->highThreshold) << " output=" << nickOf(kEdgeOutputs, e->output);
    }
    return s.str();
}

std::string formatChain(const Chain& chain) {
    std::string out;
    for (const auto& st : chain.stages) out += (out.empty() ? "" : " ! ") + formatStage(st);
    return out;
}

} // namespace striate
