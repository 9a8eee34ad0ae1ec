// The parameter tables (core/params.h): every stage's parser, formatter, defaults and ranges come
// from one table, so these hold for every stage, present and future, without naming one.
#include "core/params.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/chain.h"

namespace striate {
namespace {

TEST(StageTables, OneTablePerKindInTheVariantsOrder) {
    ASSERT_EQ(stageInfos().size(), std::variant_size_v<Stage>);
    for (std::size_t i = 0; i < stageInfos().size(); ++i) {
        const StageInfo& s = stageInfos()[i];
        EXPECT_EQ(s.defaults.index(), i) << s.name;
        EXPECT_EQ(&stageInfo(s.defaults), &s) << s.name;
        EXPECT_EQ(findStage(s.name), &s) << s.name;
        EXPECT_FALSE(s.examples.empty()) << s.name << " has no example chains";
        EXPECT_TRUE(validateStage(s.defaults)) << s.name << "'s defaults";
    }
}

TEST(StageTables, DefaultsFormatAndParseBack) {
    for (const StageInfo& s : stageInfos()) {
        Chain c;
        const std::string text = formatStage(s.defaults);
        ASSERT_TRUE(parseChain(text, &c)) << text;
        EXPECT_EQ(formatStage(c.stages[0]), text);
        // The bare name gives the defaults too.
        ASSERT_TRUE(parseChain(s.name, &c)) << s.name;
        EXPECT_EQ(formatStage(c.stages[0]), text);
    }
}

TEST(StageTables, ExamplesParseAndRoundTrip) {
    for (const StageInfo& s : stageInfos())
        for (const char* example : s.examples) {
            Chain c, d;
            const Status st = parseChain(example, &c);
            ASSERT_TRUE(st) << example << ": " << st.message();
            EXPECT_STREQ(stageName(c.stages.back()), s.name) << example;
            ASSERT_TRUE(parseChain(formatChain(c), &d)) << formatChain(c);
            EXPECT_EQ(formatChain(d), formatChain(c));
        }
}

/// Every stage has main chains (what `striate selftest` times for `auto`, which compares backends on
/// the chains ending in the chain's kind of stage), each ending in that stage: without them `auto`
/// would never use a measurement for a chain ending in it.
TEST(StageTables, EveryStageHasTimedChainsEndingInIt) {
    for (const StageInfo& s : stageInfos()) {
        EXPECT_FALSE(s.timed.empty()) << s.name << " has no timed chains";
        for (const char* text : s.timed) {
            Chain c;
            const Status st = parseChain(text, &c);
            ASSERT_TRUE(st) << text << ": " << st.message();
            EXPECT_STREQ(stageName(c.stages.back()), s.name) << text;
        }
    }
}

/// Each numeric parameter's range ends are accepted alone (with the other parameters at their
/// defaults, as an element starts) and a step beyond them is refused with the parameter named;
/// every parameter refuses a value of the wrong type, naming what it expected.
TEST(StageTables, RangesAndTypesAreEnforcedByName) {
    for (const StageInfo& s : stageInfos())
        for (const ParamDef& p : s.params) {
            const std::string head = std::string(s.name) + " " + p.name + "=";
            Chain c;
            const Status wrong = parseChain(head + "x", &c);
            ASSERT_FALSE(wrong) << head;
            EXPECT_NE(wrong.message().find(p.expected()), std::string::npos) << wrong.message();
            if (p.type != ParamDef::Type::Number && p.type != ParamDef::Type::Integer) continue;
            for (double beyond : {p.min - 1, p.max * 2 + 1}) {
                Stage stage = s.defaults;
                p.set(stage, beyond);
                const Status st = validateStage(stage);
                ASSERT_FALSE(st) << head << beyond;
                EXPECT_NE(st.message().find(p.name), std::string::npos) << st.message();
            }
            if (p.type == ParamDef::Type::Number) {
                Stage stage = s.defaults;
                p.set(stage, std::nan(""));
                EXPECT_FALSE(validateStage(stage)) << head << "nan";
            }
        }
}

TEST(StageTables, UnknownStagesAndParametersListWhatExists) {
    Chain c;
    Status s = parseChain("blur ! sharpen", &c);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("unknown stage 'sharpen' (expected " + stageNames() + ")"), std::string::npos) << s.message();
    s = parseChain("threshold size=3", &c);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("unknown parameter 'size' (expected sigma, offset, method)"), std::string::npos) << s.message();
}

TEST(Threshold, ParsesValidatesAndEncodes) {
    Chain c;
    ASSERT_TRUE(parseChain("threshold sigma=3 offset=-0.05 method=boxes", &c));
    const auto& t = std::get<ThresholdSpec>(c.stages[0]);
    EXPECT_EQ(t.sigma, 3.0);
    EXPECT_EQ(t.offset, -0.05);
    EXPECT_EQ(t.method, BlurMethod::Boxes);
    EXPECT_EQ(t.mean().sigma, 3.0);
    EXPECT_EQ(c.encoding().scale, 1.0);
    EXPECT_EQ(c.encoding().offset, 0.0);
    Status s = parseChain("threshold offset=1.5", &c);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("offset=1.5 is outside [-1, 1]"), std::string::npos) << s.message();
    s = parseChain("threshold sigma=0.4 method=recursive", &c);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("sigma=0.4 is below 0.5"), std::string::npos) << s.message();
}

TEST(StageTables, HelpListsEveryStageAndParameter) {
    const std::string help = describeStages(2);
    for (const StageInfo& s : stageInfos()) {
        EXPECT_NE(help.find(std::string("  ") + s.name + " "), std::string::npos) << s.name;
        for (const ParamDef& p : s.params) EXPECT_NE(help.find(std::string(p.name) + "="), std::string::npos) << p.name;
    }
    for (std::size_t start = 0, end; (end = help.find('\n', start)) != std::string::npos; start = end + 1)
        EXPECT_LE(end - start, 100u) << help.substr(start, end - start);
}

} // namespace
} // namespace striate
