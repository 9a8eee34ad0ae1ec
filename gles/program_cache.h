#pragma once

#include <cctype>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/spec.h"
#include "core/status.h"

namespace striate::gles {

/// GLSL literal of a double with float precision (shader sources and defines).
std::string glslFloat(double v);

/// Preprocessor definitions prepended to a shader, in order: {"SCALE", "1.0"}.
using Defines = std::vector<std::pair<std::string, std::string>>;

/// An enum's value as named defines, from its table (core/spec.h, EnumName): NAME_NICK for every
/// value of the table (its nick in capitals, '-' as '_'), then NAME as the value's own, so a
/// shader tests `#if SINK == SINK_PHASE`, never a position.
template <class E, std::size_t N>
Defines enumDefines(const std::string& name, const EnumName<E> (&table)[N], E value) {
    const auto define = [&](const char* nick) {
        std::string d = name + "_";
        for (const char* c = nick; *c; ++c) d += *c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
        return d;
    };
    Defines d;
    std::string chosen;
    for (std::size_t i = 0; i < N; ++i) {
        d.push_back({define(table[i].nick), std::to_string(i)});
        if (table[i].value == value) chosen = d.back().first;
    }
    d.push_back({name, chosen});
    return d;
}

/// A driver's compile or link log with the shader's file name for the source string: Mesa's
/// "0:3(5): error: ..." and NVIDIA's "0(3) : error C1503: ..." both become "FILE:3...", lines
/// joined by "; ".
std::string withFileName(const std::string& file, const std::string& log);

/// Compiled programs keyed by file + defines. The `#version` line follows the
/// current context (310 es for compute; 300 es or 100 for fragment passes), then the defines, then
/// `#line 1` so compiler messages count lines of the file itself. Use and destroy it only where
/// its context is current. Backends in one context may share one (a program's uniforms are set
/// at each draw, its samplers' units at its link, the same for every user of its source).
class ProgramCache {
public:
    explicit ProgramCache(int glesMajor, int glesMinor) : major_(glesMajor), minor_(glesMinor) {}
    ~ProgramCache();
    ProgramCache(const ProgramCache&) = delete;
    ProgramCache& operator=(const ProgramCache&) = delete;

    /// A compute program from gles/shaders/FILE (GLES 3.1).
    Status compute(const std::string& file, const Defines& defines, unsigned* program);
    /// The same from source text (tests, and shaders generated at run time); `name` appears in errors.
    Status computeFromSource(const std::string& name, const std::string& source, const Defines& defines,
                             unsigned* program);
    /// A full-screen program: a fixed vertex shader (attribute 0: a_position) and a generated
    /// fragment shader whose first line is its #version (100 for GLES 2.0, 300 es), keyed by
    /// its source.
    Status fragment(const std::string& name, const std::string& source, unsigned* program);
    std::size_t size() const { return programs_.size(); }
    int glesMajor() const { return major_; }
    int glesMinor() const { return minor_; }
    /// Programs asked for by key so far (found or compiled): a frame asks for none.
    std::size_t lookups() const { return lookups_; }

private:
    int major_, minor_;
    std::size_t lookups_ = 0;
    std::map<std::string, unsigned> programs_;
};

} // namespace striate::gles
