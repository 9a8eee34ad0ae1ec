// The table `auto` follows on a Pi (board/estimates.h): the rows compiled in are board/estimates.tsv's,
// and on each Pi board's own GPU (simulated: this machine's context under the board's profile,
// taken as hardware) `auto` picks, for each main chain, the backend with the lower estimate, as
// counted here from the file itself. A verdict that changed with the frame size would make the
// sum over sizes the wrong rule: that fails too.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "board/backend_choice.h"
#include "board/estimates.h"
#include "board/probe.h"
#include "board/profile.h"
#include "core/chain.h"
#include "core/params.h"

namespace striate {
namespace {

struct FileRow {
    std::string board, chain, size, backend;
    double ms = 0;
};

std::vector<FileRow> fileRows() {
    std::ifstream in(STRIATE_ESTIMATES_TSV);
    EXPECT_TRUE(in) << STRIATE_ESTIMATES_TSV;
    std::vector<FileRow> rows;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#' || line.rfind("board\t", 0) == 0) continue;
        std::istringstream fields(line);
        FileRow r;
        std::string ms;
        std::getline(fields, r.board, '\t');
        std::getline(fields, r.chain, '\t');
        std::getline(fields, r.size, '\t');
        std::getline(fields, r.backend, '\t');
        std::getline(fields, ms, '\t');
        r.ms = std::stod(ms);
        rows.push_back(r);
    }
    return rows;
}

TEST(Estimates, TheCompiledRowsAreTheFilesRows) {
    const std::vector<FileRow> file = fileRows();
    ASSERT_FALSE(file.empty());
    std::map<std::string, int> perBoard;
    for (const FileRow& r : file) ++perBoard[r.board];
    for (const char* board : {"rpi3", "rpi4", "rpi5"}) EXPECT_GT(perBoard[board], 0) << board << " has no estimates";
    for (const auto& [board, n] : perBoard) {
        const Measurements m = boardEstimates(board);
        ASSERT_EQ(static_cast<int>(m.timings.size()), n) << board;
        int i = 0;
        for (const FileRow& r : file) {
            if (r.board != board) continue;
            const Timing& t = m.timings[i++];
            EXPECT_EQ(t.chain, r.chain);
            EXPECT_EQ(std::to_string(t.width) + "x" + std::to_string(t.height), r.size);
            EXPECT_STREQ(nickOf(kBackendKinds, t.backend), r.backend.c_str());
            EXPECT_DOUBLE_EQ(t.ms, r.ms);
        }
    }
    EXPECT_TRUE(boardEstimates("host").timings.empty());
    EXPECT_TRUE(boardEstimates("rpi0").timings.empty());
}

TEST(Estimates, AutoOnEachPiGpuPicksTheLowerEstimateForEachMainChain) {
    const Probe probe = probeMachine();
    if (!probe.gpu) GTEST_SKIP() << "no GLES context to apply the Pi profiles to: " << probe.gpuError;
    Probe hardware = probe;
    hardware.softwareRenderer = false;  // the board's own GPU, as its profile describes it
    const std::vector<FileRow> file = fileRows();
    for (const char* board : {"rpi3", "rpi4", "rpi5"}) {
        BoardLimits limits;
        if (Status s = resolveBoard(board, hardware, &limits); !s) {
            // Under MESA_GLES_VERSION_OVERRIDE (test_gles_es3, test_gles_es2) the context lacks
            // what rpi4 and rpi5 need; test_gles checks them on GLES 3.1.
            if (probe.glesMajor * 10 + probe.glesMinor < 31) continue;
            ADD_FAILURE() << board << ": " << s.message();
            continue;
        }
        std::vector<std::string> chains;
        std::map<std::string, std::map<std::string, std::map<std::string, double>>> ms;  // chain, size, backend
        for (const FileRow& r : file) {
            if (r.board != board) continue;
            if (r.backend == "gles-compute" && !limits.compute) continue;
            if (ms[r.chain].empty()) chains.push_back(r.chain);
            ms[r.chain][r.size][r.backend] = r.ms;
        }
        for (const std::string& text : chains) {
            Chain chain;
            ASSERT_TRUE(parseChain(text, &chain)) << text;
            // The lower at every size, and the lower of the sums over the sizes, over this chain's
            // rows and those of the other main chains that end in the same kind of stage.
            std::map<std::string, double> sums;
            for (const FileRow& r : file) {
                Chain other;
                if (r.board != board || (r.backend == "gles-compute" && !limits.compute)) continue;
                ASSERT_TRUE(parseChain(r.chain, &other));
                if (stageName(other.stages.back()) == std::string(stageName(chain.stages.back()))) sums[r.backend] += r.ms;
            }
            std::string lowest;
            for (const auto& [backend, sum] : sums)
                if (lowest.empty() || sum < sums[lowest]) lowest = backend;
            for (const auto& [size, byBackend] : ms[text]) {
                std::string lowerHere;
                for (const auto& [backend, t] : byBackend)
                    if (lowerHere.empty() || t < byBackend.at(lowerHere)) lowerHere = backend;
                EXPECT_EQ(lowerHere, lowest) << board << " '" << text << "' at " << size
                                             << ": the lower estimate changes with the size; auto sums over sizes";
            }
            std::string reason;
            const BackendKind picked = autoRule(hardware, limits, &chain, &reason);
            EXPECT_STREQ(nickOf(kBackendKinds, picked), lowest.c_str()) << board << " '" << text << "': " << reason;
            EXPECT_NE(reason.find("the lower estimate on board '" + std::string(board) + "'"), std::string::npos) << reason;
        }
    }
}

} // namespace
} // namespace striate
