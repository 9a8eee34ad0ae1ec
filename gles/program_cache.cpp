#include "gles/program_cache.h"

#include <GLES3/gl31.h>

#include <sstream>

#include "gles/shader_files.h"

namespace striate::gles {
namespace {

std::string keyOf(const std::string& name, const Defines& defines) {
    std::string key = name;
    for (const auto& [k, v] : defines) key += "|" + k + "=" + v;
    return key;
}

/// Mesa and most drivers write "0:LINE(COL): error: ..."; the file name replaces the "0".
std::string withFileName(const std::string& name, const std::string& log) {
    std::istringstream in(log);
    std::string line, out;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (line.rfind("0:", 0) == 0) line = name + ":" + line.substr(2);
        out += (out.empty() ? "" : "; ") + line;
    }
    return out;
}

} // namespace

ProgramCache::~ProgramCache() {
    for (auto& [key, program] : programs_) glDeleteProgram(program);
}

Status ProgramCache::compute(const std::string& file, const Defines& defines, unsigned* program) {
    const auto text = shaderFile(file);
    if (!text) return Status::error("no shader file '" + file + "' in gles/shaders/");
    return computeFromSource(file, std::string(*text), defines, program);
}

Status ProgramCache::computeFromSource(const std::string& name, const std::string& source, const Defines& defines,
                                       unsigned* program) {
    const std::string key = keyOf(name, defines);
    if (auto it = programs_.find(key); it != programs_.end()) {
        *program = it->second;
        return {};
    }
    if (major_ < 3 || (major_ == 3 && minor_ < 1))
        return Status::error(name + ": compute shaders need GLES 3.1, this context is " + std::to_string(major_) + "." +
                             std::to_string(minor_));
    std::string text = "#version 310 es\n";
    for (const auto& [k, v] : defines) text += "#define " + k + " " + v + "\n";
    text += "#line 1\n" + source;
    const GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
    const char* src = text.c_str();
    glShaderSource(shader, 1, &src, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096] = {};
        glGetShaderInfoLog(shader, sizeof log, nullptr, log);
        glDeleteShader(shader);
        return Status::error("shader " + name + " does not compile: " + withFileName(name, log));
    }
    const GLuint p = glCreateProgram();
    glAttachShader(p, shader);
    glLinkProgram(p);
    glDeleteShader(shader);
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[4096] = {};
        glGetProgramInfoLog(p, sizeof log, nullptr, log);
        glDeleteProgram(p);
        return Status::error("shader " + name + " does not link: " + withFileName(name, log));
    }
    programs_[key] = p;
    *program = p;
    return {};
}

} // namespace striate::gles
