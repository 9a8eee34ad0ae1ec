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

void GL_APIENTRY onMessage(GLenum source, GLenum type, GLuint, GLenum, GLsizei length, const GLchar* text,
                           const void* self) {
    const std::string_view m = length >= 0 ? std::string_view(text, static_cast<std::size_t>(length)) : std::string_view(text);
    static_cast<DriverLog*>(const_cast<void*>(self))->message(source, type, m);
}

using Callback = void(GL_APIENTRY*)(GLDEBUGPROCKHR, const void*);
using Control = void(GL_APIENTRY*)(GLenum, GLenum, GLenum, GLsizei, const GLuint*, GLboolean);

struct Entry {
    Callback callback = nullptr;
    Control control = nullptr;
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
    }
    const char* extensions = reinterpret_cast<const char*>(glGetString(GL_EXTENSIONS));
    if ((!e.callback || !e.control) && extensions && std::strstr(extensions, "GL_KHR_debug")) {
        e.callback = reinterpret_cast<Callback>(eglGetProcAddress("glDebugMessageCallbackKHR"));
        e.control = reinterpret_cast<Control>(eglGetProcAddress("glDebugMessageControlKHR"));
    }
    return e;
}

} // namespace

bool DriverLog::install() {
    const Entry e = entryPoints();
    if (!e.callback || !e.control) return false;
    glEnable(GL_DEBUG_OUTPUT_KHR);
    // Messages arrive inside the call that compiles, so begin()/end() attribute them.
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS_KHR);
    e.control(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
    e.callback(onMessage, this);
    glGetError();  // a driver that refuses a state here is no failure of ours
    installed_ = true;
    return true;
}

void DriverLog::uninstall() {
    if (!installed_) return;
    const Entry e = entryPoints();
    if (e.callback) e.callback(nullptr, nullptr);
    glDisable(GL_DEBUG_OUTPUT_KHR);
    glGetError();
    installed_ = false;
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
