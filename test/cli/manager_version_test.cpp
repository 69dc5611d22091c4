#include "manager_version.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::cli {
namespace {

TEST(ManagerVersionFrom, LabelThenManagerImageTag) {
    struct Case {
        const char* name;
        const char* deployment;
        std::string version, source_or_error;
    } cases[] = {
        {"label wins",
         R"({"metadata":{"labels":{"app.kubernetes.io/version":"v0.2.0"}},"spec":{"template":{"spec":{"containers":[{"name":"manager","image":"attune/attune-manager:dev"}]}}}})",
         "v0.2.0", "label app.kubernetes.io/version"},
        {"image tag of the manager container",
         R"({"metadata":{},"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"x:1"},{"name":"manager","image":"reg:5000/attune/attune-manager:v0.1.0@sha256:ab"}]}}}})",
         "v0.1.0", "image reg:5000/attune/attune-manager:v0.1.0@sha256:ab"},
        {"untagged image", R"({"spec":{"template":{"spec":{"containers":[{"name":"manager","image":"reg:5000/attune"}]}}}})",
         "", "image reg:5000/attune has no tag"},
        {"no manager container", R"({"spec":{"template":{"spec":{"containers":[]}}}})", "",
         "no app.kubernetes.io/version label and no \"manager\" container"},
        {"not an object", R"([])", "", "not a Deployment object"},
    };
    for (const auto& c : cases) {
        auto p = manager_version_from(boost::json::parse(c.deployment));
        EXPECT_EQ(p.version, c.version) << c.name;
        EXPECT_EQ(p.version.empty() ? p.error : p.source, c.source_or_error) << c.name;
    }
}

}  // namespace
}  // namespace attune::cli
