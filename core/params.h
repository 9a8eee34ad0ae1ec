#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/spec.h"

/// The parameter tables: each stage's parameters written once (name, field, range, default,
/// nicks, description, whether it may change while playing). The chain parser and formatter,
/// the CLI help, the GStreamer element properties and their GEnums are all made from them
/// (core/chain.cpp, pipeline/stage_elements.cpp), so a parameter cannot be spelled two ways.
namespace striate {

/// An enumeration as the tables, the chain syntax and GStreamer see it.
struct EnumInfo {
    struct Value {
        int value;
        const char* nick;
        const char* description;
    };
    const char* typeName;  ///< the GEnum's type name ("GstStriateBlurMethod")
    std::vector<Value> values;
    int hidden = -1;  ///< a value that has no element-property form (gabor output=complex), or -1

    /// "auto|direct|boxes" (help) or "auto, direct, boxes" (errors).
    std::string nicks(const char* separator) const;
    const Value* find(std::string_view nick) const;
    const Value* find(int value) const;
};

template <class E, std::size_t N>
EnumInfo enumInfo(const char* typeName, const EnumName<E> (&table)[N], int hidden = -1) {
    EnumInfo info{typeName, {}, hidden};
    for (const auto& e : table) info.values.push_back({static_cast<int>(e.value), e.nick, e.description});
    return info;
}

/// One parameter of a stage. Values travel as doubles (integers, booleans and enumeration values
/// are exact in one).
struct ParamDef {
    enum class Type { Number, Integer, Boolean, Enum };
    const char* name;   ///< chain syntax and element property ("low-threshold")
    const char* title;  ///< the property's nick ("Low threshold")
    const char* blurb;  ///< what it does: the property's blurb and the help
    Type type = Type::Number;
    double min = 0, max = 0;             ///< Number and Integer
    const EnumInfo* values = nullptr;    ///< Enum
    const char* unit = "";               ///< the help's unit after the range ("degrees")
    bool playing = true;                 ///< may change while playing (the next frame takes it)
    double (*get)(const Stage&) = nullptr;
    void (*set)(Stage&, double) = nullptr;

    /// The value as the chain syntax writes it.
    std::string format(const Stage& stage) const;
    /// Sets the value from its chain-syntax text; false where the text is not of the type (the
    /// range is the stage's validate()'s to check, with the other parameters in view).
    bool parse(std::string_view text, Stage* stage) const;
    /// What a value must be, for errors: "a number", "true or false", "one of auto, direct".
    std::string expected() const;
};

/// A kind of stage: its chain-syntax name, what it does, its defaults and its parameters.
struct StageInfo {
    const char* name;     ///< "blur"
    const char* summary;  ///< one line for the help
    Stage defaults;
    std::vector<ParamDef> params;
    /// The stage's example chains: every method and output, the first the one a quick check runs.
    /// The conformance tests, `striate selftest` (and its goldens) and the benchmark run these.
    std::vector<const char*> examples;
    /// The stage's main chains: what `striate selftest` times for `auto` (which compares backends
    /// on the chains ending in the same kind of stage) and the boards' estimates cover.
    std::vector<const char*> timed;
    /// Its GStreamer element, striate<name> of type GstStriate<Name> (pipeline/stage_elements.cpp
    /// registers one per stage): gst-inspect-1.0's metadata, and whether colour passes through.
    struct Element {
        const char* longName;
        const char* classification;
        const char* description;
        /// Colour formats pass through with every plane filtered (striateblur); others output grey.
        bool keepsFormat = false;
    } element;

    const ParamDef* param(std::string_view key) const;
};

/// Every kind of stage, in the order of the Stage variant.
const std::vector<StageInfo>& stageInfos();
const StageInfo& stageInfo(const Stage& stage);
const StageInfo* findStage(std::string_view name);
/// Every stage's name, for errors: "blur, gabor, edges or ...".
std::string stageNames();
/// The stage's name in the chain syntax ("blur", "gabor", ...).
inline const char* stageName(const Stage& stage) { return stageInfo(stage).name; }
/// The help's list of stages and parameters: one block per stage, ranges and defaults.
std::string describeStages(int indent);

} // namespace striate
