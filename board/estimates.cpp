#include "board/estimates.h"

#include <string>
#include <vector>

namespace striate {
namespace {

struct Row {
    const char* board;
    const char* chain;
    int width, height;
    BackendKind backend;
    double ms;
};

/// board/estimates.tsv, one row a line (board/CMakeLists.txt writes it at configure time).
const std::vector<Row>& rows() {
    static const std::vector<Row> table = {
#include "estimates_table.inc"
    };
    return table;
}

} // namespace

Measurements boardEstimates(std::string_view board) {
    Measurements m;
    m.board = std::string(board);
    m.renderer = "estimates (board/estimates.tsv, docs/boards.md)";
    for (const Row& r : rows())
        if (board == r.board) m.timings.push_back(Timing{r.chain, r.width, r.height, r.backend, r.ms});
    return m;
}

} // namespace striate
