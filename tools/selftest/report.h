#pragma once

#include <map>
#include <string>
#include <vector>

#include "tools/selftest/selftest.h"

namespace striate::selftest {

/// `striate selftest --report DIR`: an HTML page a person opens (no server, no network). Per
/// backend, profile and chain, one case side by side: the input, the reference, the backend's
/// output and an error heat map (PNG thumbnails), failing cases first; and an SVG chart of the ms
/// per frame of each backend on the standard chains.
class HtmlReport {
public:
    /// A case a backend ran (Options::images): kept when it is the first of its backend, profile
    /// and chain, a failure replacing a pass, or a larger frame of the same outcome.
    void offer(const Row& row, const Chain& chain, const Image<std::uint8_t>& input, const ChainOutput& reference,
               const ChainOutput& output);
    /// DIR/index.html and DIR/img/*.png.
    Status write(const std::string& dir, const Report& report) const;

private:
    struct Shot {
        Row row;
        Image<std::uint8_t> input, reference, output;
        std::vector<std::uint8_t> heat;  // RGB
    };
    std::map<std::string, Shot> shots_;
};

} // namespace striate::selftest
