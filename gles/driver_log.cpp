#include "gles/driver_log.h"

#include <EGL/egl.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace striate::gles {

namespace {

/// Mesa's gallium names (vc4, v3d) and TGSI's (softpipe) of one stage.
bool isStage(const StageStats& s, const char* mesa, const char* tgsi) { return s.stage == mesa || s.stage == tgsi; }

/// The integer before `label` in `text` ("52 inst" -> 52), or -1.
int numberBefore(std::string_view text, std::string_view label) {
    for (std::size_t at = text.find(label); at != std::string_view::npos; at = text.find(label, at + 1)) {
        // The label must be a whole word after a number and a space.
        if (at < 2 || text[at - 1] != ' ') continue;
        std::size_t start = at - 1;
        while (start > 0 && text[start - 1] >= '0' && text[start - 1] <= '9') --start;
        if (start == at - 1) continue;
        return std::atoi(std::string(text.substr(start, at - 1 - start)).c_str());
    }
    return -1;
}

} // namespace

bool parseStageStats(std::string_view m, StageStats* out) {
    const std::size_t colon = m.find(" shader: ");
    if (colon == std::string_view::npos || colon == 0) return false;
    StageStats s;
    // v3d prefixes nothing; a shader-db dump ("SHADER-DB-name - MESA_SHADER_...") keeps the last word.
    const std::size_t word = m.rfind(' ', colon - 1);
    s.stage = std::string(m.substr(word == std::string_view::npos ? 0 : word + 1, colon - (word == std::string_view::npos ? 0 : word + 1)));
    s.instructions = numberBefore(m, "inst,");
    if (s.instructions < 0) s.instructions = numberBefore(m, "inst");
    if (s.instructions < 0) return false;
    s.threads = numberBefore(m, "threads");
    s.loops = numberBefore(m, "loops");
    s.uniforms = numberBefore(m, "uniforms");
    s.maxTemps = numberBefore(m, "max-temps");
    s.cycles = numberBefore(m, "estimated-cycles");
    // "0:0 spills:fills"
    if (const std::size_t at = m.find(" spills:fills"); at != std::string_view::npos) {
        std::size_t start = at;
        while (start > 0 && m[start - 1] != ' ') --start;
        int spills = 0, fills = 0;
        if (std::sscanf(std::string(m.substr(start, at - start)).c_str(), "%d:%d", &spills, &fills) == 2) {
            s.spills = spills;
            s.fills = fills;
        }
    }
    *out = s;
    return true;
}

const StageStats* PassReport::passStage() const {
    for (const StageStats& s : stages)
        if (dispatch ? isStage(s, "MESA_SHADER_COMPUTE", "CS") : isStage(s, "MESA_SHADER_FRAGMENT", "FS")) return &s;
    return nullptr;
}

bool PassReport::failed() const {
    if (dispatch || passStage()) return false;
    for (const StageStats& s : stages)
        if (isStage(s, "MESA_SHADER_VERTEX", "VS")) return true;
    return false;
}

namespace {

using Callback = void(GL_APIENTRY*)(GLDEBUGPROCKHR, const void*);
using Control = void(GL_APIENTRY*)(GLenum, GLenum, GLenum, GLsizei, const GLuint*, GLboolean);
using GetPointer = void(GL_APIENTRY*)(GLenum, void**);

struct Entry {
    Callback callback = nullptr;
    Control control = nullptr;
    GetPointer getPointer = nullptr;
};

/// GLES 3.2's core entry points, else GL_KHR_debug's (suffixed KHR on GLES).
Entry entryPoints() {
    const char* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    int major = 0, minor = 0;
    if (version) std::sscanf(version, "OpenGL ES %d.%d", &major, &minor);
    Entry e;
    if (major > 3 || (major == 3 && minor >= 2)) {
        e.callback = reinterpret_cast<Callback>(eglGetProcAddress("glDebugMessageCallback"));
        e.control = reinterpret_cast<Control>(eglGetProcAddress("glDebugMessageControl"));
        e.getPointer = reinterpret_cast<GetPointer>(eglGetProcAddress("glGetPointerv"));
    }
    const char* extensions = reinterpret_cast<const char*>(glGetString(GL_EXTENSIONS));
    if ((!e.callback || !e.control) && extensions && std::strstr(extensions, "GL_KHR_debug")) {
        e.callback = reinterpret_cast<Callback>(eglGetProcAddress("glDebugMessageCallbackKHR"));
        e.control = reinterpret_cast<Control>(eglGetProcAddress("glDebugMessageControlKHR"));
        e.getPointer = reinterpret_cast<GetPointer>(eglGetProcAddress("glGetPointervKHR"));
    }
    return e;
}

void GL_APIENTRY onMessage(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length, const GLchar* text,
                           const void* self) {
    const auto* log = static_cast<const DriverLog*>(self);
    const std::string_view m = length >= 0 ? std::string_view(text, static_cast<std::size_t>(length)) : std::string_view(text);
    const_cast<DriverLog*>(log)->message(source, type, m);
    log->forward(source, type, id, severity, length, text);
}

} // namespace

void DriverLog::forward(unsigned source, unsigned type, unsigned id, unsigned severity, int length, const char* text) const {
    // In a shared context the owner's callback (GstGL's) hears every message as before.
    if (previous_.callback)
        reinterpret_cast<GLDEBUGPROCKHR>(previous_.callback)(source, type, id, severity, length, text, previous_.user);
}

bool DriverLog::install(bool shared) {
    const Entry e = entryPoints();
    if (!e.callback || !e.control || (shared && !e.getPointer)) return false;
    previous_ = Previous{};
    if (shared) {
        // Someone else's context (GstGL's, which may keep a callback of its own): remember its
        // callback and switches, chain onto the callback, and put all back at uninstall().
        e.getPointer(GL_DEBUG_CALLBACK_FUNCTION_KHR, &previous_.callback);
        e.getPointer(GL_DEBUG_CALLBACK_USER_PARAM_KHR, &previous_.user);
        previous_.output = glIsEnabled(GL_DEBUG_OUTPUT_KHR);
        previous_.synchronous = glIsEnabled(GL_DEBUG_OUTPUT_SYNCHRONOUS_KHR);
    }
    glEnable(GL_DEBUG_OUTPUT_KHR);
    // Messages arrive inside the call that compiles, so begin()/end() attribute them.
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS_KHR);
    // Ours: every message. Shared: the compiler's alone, the other sources as the owner set them.
    e.control(shared ? GL_DEBUG_SOURCE_SHADER_COMPILER_KHR : GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
    e.callback(onMessage, this);
    glGetError();  // a driver that refuses a state here is no failure of ours
    installed_ = true;
    shared_ = shared;
    return true;
}

void DriverLog::uninstall() {
    if (!installed_) return;
    const Entry e = entryPoints();
    if (e.callback) e.callback(reinterpret_cast<GLDEBUGPROCKHR>(previous_.callback), previous_.user);
    if (!shared_ || !previous_.output) glDisable(GL_DEBUG_OUTPUT_KHR);
    if (shared_ && !previous_.synchronous) glDisable(GL_DEBUG_OUTPUT_SYNCHRONOUS_KHR);
    glGetError();
    previous_ = Previous{};
    installed_ = shared_ = false;
}

void DriverLog::begin(const std::string& pass, bool dispatch) {
    reports_.push_back(PassReport{pass, dispatch, {}, {}});
    current_ = static_cast<int>(reports_.size()) - 1;
}

void DriverLog::message(unsigned source, unsigned, std::string_view text) {
    if (current_ < 0 || source != GL_DEBUG_SOURCE_SHADER_COMPILER_KHR) return;
    PassReport& r = reports_[static_cast<std::size_t>(current_)];
    StageStats s;
    if (parseStageStats(text, &s)) r.stages.push_back(s);
    else r.other.emplace_back(text);
}

Status DriverLog::verdict(const char* backend) const {
    for (const PassReport& r : reports_) {
        if (!r.failed()) continue;
        std::string compiled;
        for (const StageStats& s : r.stages) compiled += (compiled.empty() ? "" : ", ") + s.stage;
        std::string why;
        for (const std::string& o : r.other) why += "; " + o;
        return Status::error(std::string(backend) + ": the GPU driver did not compile the shader of pass '" + r.pass +
                             "' (it compiled " + compiled + " only: on vc4, a register-allocation failure" + why +
                             "); its draws would be skipped");
    }
    return {};
}

std::string describeStats(const StageStats& s) {
    std::string line = s.stage + ": " + std::to_string(s.instructions) + " inst";
    auto add = [&](int v, const char* what) {
        if (v >= 0) line += ", " + std::to_string(v) + " " + what;
    };
    add(s.threads, "threads");
    add(s.loops, "loops");
    add(s.uniforms, "uniforms");
    add(s.maxTemps, "max-temps");
    add(s.cycles, "estimated-cycles");
    if (s.spills || s.fills) line += ", " + std::to_string(s.spills) + ":" + std::to_string(s.fills) + " spills:fills";
    return line;
}

std::string DriverLog::describe() const {
    std::string out;
    for (const PassReport& r : reports_) {
        out += "  " + r.pass + ": ";
        if (const StageStats* s = r.passStage()) out += describeStats(*s);
        else if (r.failed()) out += "FAILED (its vertex shader compiled, its fragment shader reported nothing)";
        else out += "no statistics (cached, or this driver reports none)";
        out += "\n";
    }
    return out;
}

} // namespace striate::gles
