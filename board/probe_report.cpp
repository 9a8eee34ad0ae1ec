#include "board/probe_report.h"

#include <memory>
#include <set>

#include "board/backend_choice.h"
#include "board/estimates.h"
#include "board/probe.h"
#include "board/profile.h"
#include "core/params.h"

namespace striate {
namespace {

/// Each backend made for the chain at the size, and what it holds.
void probeMemory(const std::string& board, const Chain& chain, const FrameFormat& format, ProbeReport* out) {
    out->text += "memory of '" + formatChain(chain) + "' at " + std::to_string(format.width) + "x" +
                 std::to_string(format.height) + ":\n";
    std::string object = "{\"chain\": " + jsonString(formatChain(chain)) + ", \"width\": " + std::to_string(format.width) +
                         ", \"height\": " + std::to_string(format.height) + ", \"backends\": {";
    const BackendKind kinds[] = {BackendKind::GlesCompute, BackendKind::GlesFragment, BackendKind::Cpu};
    for (BackendKind kind : kinds) {
        const std::string name = nickOf(kBackendKinds, kind);
        std::unique_ptr<Backend> backend;
        std::string fallback;
        Status s = startBackend(kind, BackendOptions{0, board}, chain, format, &backend, &fallback);
        if (s && !fallback.empty()) s = Status::error(fallback);
        if (kind != kinds[0]) object += ", ";
        if (!s) {
            out->text += "  " + name + ": not here: " + s.message() + "\n";
            object += jsonString(name) + ": {\"unavailable\": " + jsonString(s.message()) + "}";
            continue;
        }
        const MemoryUse m = backend->memory();
        out->text += "  " + name + ": " +
                     (backend->runsOnGpu() ? describeBytes(m.gpu) + " of GPU memory, " : std::string()) +
                     describeBytes(m.host) + " of host memory\n";
        const std::string estimate = backend->boardEstimate();
        // Indented under the backend's line.
        for (std::size_t at = 0; at < estimate.size();) {
            const std::size_t end = estimate.find('\n', at);
            out->text += "    " + estimate.substr(at, end == std::string::npos ? std::string::npos : end + 1 - at);
            at = end == std::string::npos ? estimate.size() : end + 1;
        }
        object += jsonString(name) + ": {\"gpu_bytes\": " + std::to_string(m.gpu) +
                  ", \"host_bytes\": " + std::to_string(m.host) +
                  (estimate.empty() ? std::string() : ", \"board_estimate\": " + jsonString(estimate)) + "}";
    }
    out->json += ", \"memory\": " + object + "}}";
}

/// The board's estimates (board/estimates.h), one line per kind of last stage: each backend's sum
/// over the sizes estimated, and the lower, which `auto` takes on that board's own GPU.
void probeEstimates(const BoardLimits& limits, ProbeReport* out) {
    const Measurements estimates = boardEstimates(limits.profile);
    if (estimates.timings.empty()) return;
    out->text += "estimates on board '" + limits.profile +
                 "' (not measurements: a frame, summed over the sizes estimated; board/estimates.tsv, docs/boards.md):\n";
    std::string json;
    std::set<std::string> seen;
    for (const Timing& t : estimates.timings) {
        Chain chain;
        if (!parseChain(t.chain, &chain) || chain.stages.empty()) continue;
        const std::string kind = stageName(chain.stages.back());
        std::string sums;
        if (!seen.insert(kind).second) continue;
        const auto lowest = fastestMeasured(estimates, &chain, boardBackends(limits), &sums);
        if (!lowest) continue;
        out->text += "  chains ending in " + kind + ": " + sums + ": " + nickOf(kBackendKinds, *lowest) + " is the lower\n";
        json += std::string(json.empty() ? "" : ", ") + jsonString(kind) + ": {\"lower\": " +
                jsonString(nickOf(kBackendKinds, *lowest)) + ", \"sums\": " + jsonString(sums) + "}";
    }
    out->json += ", \"estimates\": {" + json + "}";
}

} // namespace

Status probeReport(const std::string& board, const Chain* chain, const FrameFormat& format, ProbeReport* out) {
    if (Status s = checkBoardName(board); !s) return s;
    const Probe p = probeMachine();
    BoardLimits limits;
    const Status boardStatus = p.gpu ? resolveBoard(board, p, &limits) : Status{};
    BackendKind kind = BackendKind::Cpu;
    std::string reason;
    const Status autoStatus = boardStatus ? autoBackend(BackendOptions{0, board}, &kind, &reason, chain) : boardStatus;
    *out = ProbeReport{formatProbe(p), "{\"probe\": " + formatProbeJson(p)};
    if (p.gpu && boardStatus) {
        out->text += formatBoardLimits(limits);
        out->json += ", \"board\": " + formatBoardLimitsJson(limits);
    }
    if (autoStatus) {
        out->text += std::string("auto backend: ") + nickOf(kBackendKinds, kind) + " (" + reason + ")\n";
        out->json += std::string(", \"auto\": ") + jsonString(nickOf(kBackendKinds, kind)) +
                     ", \"auto_reason\": " + jsonString(reason);
    }
    if (p.gpu && boardStatus) probeEstimates(limits, out);
    if (chain && boardStatus) probeMemory(board, *chain, format, out);
    out->json += "}";
    return boardStatus;
}

} // namespace striate
