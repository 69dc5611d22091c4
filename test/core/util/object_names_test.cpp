// Kubernetes' name rules, row by row: what passes, and the reason for what
// does not.
#include "attune/core/util/object_names.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace attune::core {
namespace {

struct Case {
    std::string label;
    std::function<std::string(std::string_view)> check;
    std::string text;
    std::string error;  // "" = valid
};

std::vector<Case> cases() {
    const std::string long63(63, 'a');
    return {
        {"label ok", dns1123_label_error, "team-a", ""},
        {"label empty", dns1123_label_error, "", "is empty"},
        {"label 64 long", dns1123_label_error, long63 + "a", "is longer than 63 characters"},
        {"label upper case", dns1123_label_error, "Team", "may contain only lowercase letters, digits and '-'"},
        {"label dot", dns1123_label_error, "a.b", "may contain only lowercase letters, digits and '-'"},
        {"label dash end", dns1123_label_error, "team-", "must start and end with a lowercase letter or digit"},
        {"subdomain ok", dns1123_subdomain_error, "web.v2-attune", ""},
        {"subdomain 254 long", dns1123_subdomain_error, std::string(254, 'a'), "is longer than 253 characters"},
        {"subdomain underscore", dns1123_subdomain_error, "bad_name",
         "may contain only lowercase letters, digits, '-' and '.'"},
        {"subdomain empty part", dns1123_subdomain_error, "a..b",
         "must start and end with a lowercase letter or digit, around each '.' too"},
        {"subdomain dash before dot", dns1123_subdomain_error, "a-.b",
         "must start and end with a lowercase letter or digit, around each '.' too"},
        {"key ok", label_key_error, "app.kubernetes.io/name", ""},
        {"key plain", label_key_error, "Tier_1", ""},
        {"key empty", label_key_error, "", "is empty"},
        {"key bad prefix", label_key_error, "Example.com/x",
         "has a prefix that may contain only lowercase letters, "
         "digits, '-' and '.'"},
        {"key nothing after slash", label_key_error, "example.com/", "has nothing after its '/'"},
        {"key bad char", label_key_error, "a b", "may contain only letters, digits, '-', '_' and '.'"},
        {"key dash start", label_key_error, "-a", "must start and end with a letter or digit"},
        {"value empty ok", label_value_error, "", ""},
        {"value ok", label_value_error, "v1.2_x", ""},
        {"value 64 long", label_value_error, long63 + "b", "is longer than 63 characters"},
        {"value slash", label_value_error, "a/b", "may contain only letters, digits, '-', '_' and '.'"},
    };
}

TEST(ObjectNames, EachRuleAcceptsValidNamesAndSaysWhatIsWrongOtherwise) {
    for (const auto& c : cases()) EXPECT_EQ(c.check(c.text), c.error) << c.label;
}

}  // namespace
}  // namespace attune::core
