#include "attune/core/upgrade/upgrade_reason.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

TEST(GateReason, LineIsTagSubjectMessage) {
    GateReason r;
    r.cls = BlockClass::Waiting;
    r.subject = "kyverno";
    r.message = "no released kyverno supports Kubernetes 1.36 yet";
    EXPECT_EQ(r.line(), "[WAITING] kyverno: no released kyverno supports Kubernetes 1.36 yet");
    EXPECT_FALSE(is_held(BlockClass::Actionable));
    EXPECT_TRUE(is_held(BlockClass::Waiting));
    EXPECT_TRUE(is_held(BlockClass::Pinned));
}

TEST(ParseReasonLine, TaggedLinesAndOlderUntaggedOnes) {
    struct Case {
        const char* line;
        std::optional<BlockClass> cls;
        const char* text;
    } cases[] = {
        {"[ACTIONABLE] calico: upgrade calico to >= 3.30.0", BlockClass::Actionable,
         "calico: upgrade calico to >= 3.30.0"},
        {"[WAITING] kyverno: none yet\r", BlockClass::Waiting, "kyverno: none yet"},
        {"[PINNED]  gpu-operator: pinned", BlockClass::Pinned, "gpu-operator: pinned"},
        {"kyverno 1.14 does not support 1.36", std::nullopt, "kyverno 1.14 does not support 1.36"},
        {"[BLOCKED] old tag", std::nullopt, "[BLOCKED] old tag"},
    };
    for (const auto& c : cases) {
        auto r = parse_reason_line(c.line);
        EXPECT_EQ(r.cls, c.cls) << c.line;
        EXPECT_EQ(r.text, c.text) << c.line;
    }
}

}  // namespace
}  // namespace attune::core
