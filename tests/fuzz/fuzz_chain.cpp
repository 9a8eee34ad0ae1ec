// libFuzzer target: the chain parser (the CLI's --chain, the elements' stage settings). Any text
// either parses into a chain that validates and formats back into text that parses to the same
// chain, or is refused with a message; nothing crashes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/chain.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    striate::Chain chain;
    const striate::Status parsed = striate::parseChain(text, &chain);
    if (!parsed) {
        if (parsed.message().empty()) std::abort();  // a refusal names the problem
        return 0;
    }
    if (!chain.validate()) std::abort();
    const std::string canonical = striate::formatChain(chain);
    striate::Chain again;
    if (!striate::parseChain(canonical, &again) || striate::formatChain(again) != canonical) {
        std::fprintf(stderr, "round trip differs: '%s'\n", canonical.c_str());
        std::abort();
    }
    return 0;
}
