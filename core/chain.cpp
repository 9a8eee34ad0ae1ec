#include "core/chain.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/params.h"

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

std::string where(int index, std::string_view name, std::size_t column) {
    std::ostringstream s;
    s << "chain stage " << index << " '" << name << "' (column " << column << "): ";
    return s.str();
}

Status parseStage(const std::vector<Token>& words, int index, Stage* out) {
    const Token& head = words.front();
    const StageInfo* info = findStage(head.text);
    if (!info)
        return Status::error("chain stage " + std::to_string(index) + " (column " + std::to_string(head.column) +
                             "): unknown stage '" + std::string(head.text) + "' (expected " + stageNames() + ")");
    *out = info->defaults;
    std::vector<std::string_view> given;
    for (std::size_t i = 1; i < words.size(); ++i) {
        const Token& w = words[i];
        std::size_t eq = w.text.find('=');
        if (eq == std::string_view::npos || eq == 0)
            return Status::error(where(index, head.text, w.column) + "expected name=value, got '" +
                                 std::string(w.text) + "'");
        std::string_view key = w.text.substr(0, eq);
        std::string_view value = w.text.substr(eq + 1);
        const ParamDef* param = info->param(key);
        if (!param) {
            std::string names;
            for (const ParamDef& p : info->params) names += (names.empty() ? "" : ", ") + std::string(p.name);
            return Status::error(where(index, head.text, w.column) + "unknown parameter '" + std::string(key) +
                                 "' (expected " + names + ")");
        }
        if (std::find(given.begin(), given.end(), key) != given.end())
            return Status::error(where(index, head.text, w.column) + std::string(key) + " is given twice");
        given.push_back(key);
        if (!param->parse(value, out))
            return Status::error(where(index, head.text, w.column + eq + 1) + std::string(key) + "='" +
                                 std::string(value) + "' is not " + param->expected());
    }
    if (Status s = validateStage(*out); !s) return Status::error(where(index, head.text, head.column) + s.message());
    return {};
}

} // namespace

Status Chain::validate() const {
    if (stages.empty()) return Status::error("the chain has no stages");
    for (std::size_t i = 0; i < stages.size(); ++i) {
        if (Status s = validateStage(stages[i]); !s)
            return Status::error("chain stage " + std::to_string(i + 1) + " '" + stageName(stages[i]) +
                                 "': " + s.message());
        if (isComplexOutput(stages[i]) && i + 1 != stages.size())
            return Status::error("chain stage " + std::to_string(i + 1) + " '" + stageName(stages[i]) +
                                 "': output=complex is only allowed in the last stage");
    }
    return {};
}

Chain chromaChain(const Chain& chain) {
    Chain c = chain;
    for (Stage& stage : c.stages)
        std::visit(Overloaded{[](BlurSpec& b) {
                                  b.sigma = std::max(kMinSigma, b.sigma / 2);
                                  // A method the halved sigma does not allow (recursive below
                                  // kMinRecursiveSigma) gives way to auto.
                                  if (!b.validate()) b.method = BlurMethod::Auto;
                              },
                              [](auto&) {}},  // only a blur has chroma planes
                   stage);
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
                                 "): empty stage (expected " + stageNames() + ")");
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
    const StageInfo& info = stageInfo(stage);
    std::string out = info.name;
    for (const ParamDef& p : info.params) out.append(" ").append(p.name).append("=").append(p.format(stage));
    return out;
}

std::string formatChain(const Chain& chain) {
    std::string out;
    for (const auto& st : chain.stages) out += (out.empty() ? "" : " ! ") + formatStage(st);
    return out;
}

} // namespace striate
