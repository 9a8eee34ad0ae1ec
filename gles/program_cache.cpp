#include "gles/program_cache.h"

#include <GLES3/gl31.h>

#include <charconv>
#include <initializer_list>
#include <sstream>

#include "gles/shader_files.h"

namespace striate::gles {

std::string glslFloat(double v) {
    // printf's "%.9g" (the standard defines this form of to_chars by it), without printf's
    // multi-precision arithmetic: a plan writes thousands of constants.
    char buf[48];
    const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 9);
    std::string s(buf, r.ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

std::string withFileName(const std::string& name, const std::string& log) {
    std::istringstream in(log);
    std::string line, out;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (line.rfind("0:", 0) == 0) {
            line = name + ":" + line.substr(2);
        } else if (const std::size_t close = line.find(')'); line.rfind("0(", 0) == 0 && close != std::string::npos &&
                                                              line.find_first_not_of("0123456789", 2) == close) {
            line = name + ":" + line.substr(2, close - 2) + line.substr(close + 1);
        }
        out += (out.empty() ? "" : "; ") + line;
    }
    return out;
}

namespace {

std::string keyOf(const std::string& name, const Defines& defines) {
    std::string key = name;
    for (const auto& [k, v] : defines) key += "|" + k + "=" + v;
    return key;
}

/// The info log of a shader or a program, as an error naming the file.
Status failure(const std::string& name, const char* what, GLuint object, bool program) {
    char log[4096] = {};
    if (program) glGetProgramInfoLog(object, sizeof log, nullptr, log);
    else glGetShaderInfoLog(object, sizeof log, nullptr, log);
    return Status::error("shader " + name + " does not " + what + ": " + withFileName(name, log));
}

} // namespace

namespace {

/// Compiles one shader stage; an error names the program and the stage.
Status compileStage(GLenum type, const std::string& name, const std::string& text, GLuint* out) {
    const GLuint shader = glCreateShader(type);
    const char* src = text.c_str();
    glShaderSource(shader, 1, &src, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        const Status s = failure(name, "compile", shader, false);
        glDeleteShader(shader);
        return s;
    }
    *out = shader;
    return {};
}

/// Links compiled shaders into a program (attribute 0 is a_position where there is one) and
/// deletes the shaders; an error names the program.
Status linkProgram(const std::string& name, std::initializer_list<GLuint> shaders, GLuint* out) {
    const GLuint p = glCreateProgram();
    for (GLuint sh : shaders) glAttachShader(p, sh);
    glBindAttribLocation(p, 0, "a_position");
    glLinkProgram(p);
    for (GLuint sh : shaders) glDeleteShader(sh);
    GLint ok = GL_FALSE;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        const Status s = failure(name, "link", p, true);
        glDeleteProgram(p);
        return s;
    }
    *out = p;
    return {};
}

const char* kFullScreenVertex100 =
    "#version 100\n"
    "attribute vec2 a_position;\n"
    "void main() { gl_Position = vec4(a_position, 0.0, 1.0); }\n";
const char* kFullScreenVertex300 =
    "#version 300 es\n"
    "in vec2 a_position;\n"
    "void main() { gl_Position = vec4(a_position, 0.0, 1.0); }\n";

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
    ++lookups_;
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
    GLuint shader = 0, p = 0;
    if (Status s = compileStage(GL_COMPUTE_SHADER, name, text, &shader); !s) return s;
    if (Status s = linkProgram(name, {shader}, &p); !s) return s;
    programs_[key] = p;
    *program = p;
    return {};
}

Status ProgramCache::fragment(const std::string& name, const std::string& source, unsigned* program) {
    ++lookups_;
    const std::string key = "fragment|" + source;
    if (auto it = programs_.find(key); it != programs_.end()) {
        *program = it->second;
        return {};
    }
    GLuint vs = 0, fs = 0;
    const bool es3 = source.rfind("#version 300 es", 0) == 0;
    if (Status s = compileStage(GL_VERTEX_SHADER, name + " (vertex)", es3 ? kFullScreenVertex300 : kFullScreenVertex100, &vs); !s)
        return s;
    if (Status s = compileStage(GL_FRAGMENT_SHADER, name, source, &fs); !s) {
        glDeleteShader(vs);
        return s;
    }
    GLuint p = 0;
    if (Status s = linkProgram(name, {vs, fs}, &p); !s) return s;
    programs_[key] = p;
    *program = p;
    return {};
}

} // namespace striate::gles
