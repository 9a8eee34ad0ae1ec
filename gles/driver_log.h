#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

/// What the GPU driver's shader compiler says about our programs, heard through KHR_debug
/// (docs/boards.md, "The real Pi GPU compilers"). Mesa's vc4 (Pi 0-3) and v3d (Pi 4/5) compile a
/// program's shaders at its first draw or dispatch and report each compiled stage as one
/// GL_DEBUG_SOURCE_SHADER_COMPILER message of statistics. vc4 says nothing else when a fragment
/// shader fails to register-allocate: the link succeeded, there is no GL error, and the draw is
/// skipped. A draw that compiled its other stages but reported no fragment statistics is therefore
/// a failed fragment shader. vc4 reports statistics only with VC4_DEBUG=shaderdb, which
/// EglContext::create sets for the process when VC4_DEBUG is unset (docs/boards.md).
namespace striate::gles {

/// One stage's statistics, as Mesa 22.3.6 and 25.0.7 word them: vc4's "MESA_SHADER_FRAGMENT
/// shader: 140 inst, 2 threads, 81 uniforms, 5 max-temps, 1727 estimated-cycles" (its other
/// stages MESA_SHADER_VERTEX and MESA_SHADER_COORD), v3d's "MESA_SHADER_COMPUTE shader: 58 inst, 4
/// threads, 0 loops, 12 uniforms, 6 max-temps, 0:0 spills:fills, ...", softpipe's TGSI "CS shader:
/// 18 inst, 0 loops, 2 temps, 0 const, 2 imm" (FS, VS). -1: not reported by this driver.
struct StageStats {
    std::string stage;
    int instructions = -1, threads = -1, uniforms = -1, maxTemps = -1, cycles = -1;
    int loops = -1;  ///< loops the compiled program kept (v3d reports them): its count is one trip's
    int spills = 0, fills = 0;
};

/// Parses one statistics message; false where the message is not one.
bool parseStageStats(std::string_view message, StageStats* out);

/// What one of our passes (a program's first draw or dispatch) brought. A driver may also compile
/// programs of its own inside that call (softpipe's blitter does, at the first dispatch after an
/// upload): their stages are heard too, so a verdict looks only at the stages our program has.
struct PassReport {
    std::string pass;
    bool dispatch = false;  ///< a compute dispatch; else a draw (a vertex and a fragment shader)
    std::vector<StageStats> stages;
    std::vector<std::string> other;  ///< the compiler's other messages (warnings, errors)
    /// Statistics of the pass's own stage (fragment for a draw, compute for a dispatch), when the
    /// driver reported any.
    const StageStats* passStage() const;
    /// A draw whose vertex shader the driver compiled without its fragment shader: vc4's
    /// register-allocation failure. A compute program has no other stage to judge it by, and a
    /// driver that reports nothing (a cache hit, llvmpipe) is no evidence.
    bool failed() const;
};

/// Listens to the driver's compiler in one context: ours, or one we share (GstGL's), where the
/// callback already installed there hears every message still. Messages between begin() and end()
/// belong to that pass.
class DriverLog {
public:
    DriverLog() = default;
    DriverLog(const DriverLog&) = delete;
    DriverLog& operator=(const DriverLog&) = delete;

    /// Installs the callback in the current context: GLES 3.2's or GL_KHR_debug's entry points,
    /// synchronous output, every message enabled. `shared`: the context is someone else's; the
    /// compiler's messages are enabled and every message goes on to the callback found there,
    /// which uninstall() puts back with the debug switches as they were. False where the context
    /// offers neither.
    bool install(bool shared = false);
    /// Removes it (the context current); the destructor of the owner calls it.
    void uninstall();
    bool installed() const { return installed_; }

    /// Messages from now until end() are the first draw (or dispatch) of `pass`'s program.
    void begin(const std::string& pass, bool dispatch);
    void end() { current_ = -1; }

    const std::vector<PassReport>& reports() const { return reports_; }
    /// An error naming the first failed pass and what the driver compiled instead, or ok.
    Status verdict(const char* backend) const;
    /// One line per pass: the driver's statistics (--explain).
    std::string describe() const;

    /// Called from the GL callback.
    void message(unsigned source, unsigned type, std::string_view text);
    /// Hands a message on to the callback install(shared) found, if any.
    void forward(unsigned source, unsigned type, unsigned id, unsigned severity, int length, const char* text) const;

private:
    /// What install(shared) found in the context, put back by uninstall().
    struct Previous {
        void* callback = nullptr;  // GLDEBUGPROCKHR
        void* user = nullptr;
        bool output = false, synchronous = false;
    };
    Previous previous_;
    bool installed_ = false, shared_ = false;
    int current_ = -1;
    std::vector<PassReport> reports_;
};

/// "inst 52, threads 2, uniforms 9, temps 14, cycles 60, spills 0:0" for one stage.
std::string describeStats(const StageStats& s);

} // namespace striate::gles
