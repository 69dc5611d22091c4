#include "attune/core/model/label_selector.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::core {
namespace {

struct SelectorCase {
    const char* name;
    const char* selector;  // JSON, or nullptr for absent
    LabelMap labels;
    bool matches;
};

TEST(LabelSelector, Table) {
    const SelectorCase cases[] = {
        {"absent selects all", nullptr, {{"a", "1"}}, true},
        {"empty selects all", "{}", {}, true},
        {"matchLabels equal", R"({"matchLabels":{"tier":"web"}})", {{"tier", "web"}, {"x", "y"}}, true},
        {"matchLabels differ", R"({"matchLabels":{"tier":"web"}})", {{"tier", "db"}}, false},
        {"matchLabels missing", R"({"matchLabels":{"tier":"web"}})", {}, false},
        {"In hit", R"({"matchExpressions":[{"key":"env","operator":"In","values":["a","b"]}]})", {{"env", "b"}}, true},
        {"In miss", R"({"matchExpressions":[{"key":"env","operator":"In","values":["a"]}]})", {{"env", "c"}}, false},
        {"In absent key", R"({"matchExpressions":[{"key":"env","operator":"In","values":["a"]}]})", {}, false},
        {"NotIn absent key", R"({"matchExpressions":[{"key":"env","operator":"NotIn","values":["a"]}]})", {}, true},
        {"NotIn hit",
         R"({"matchExpressions":[{"key":"env","operator":"NotIn","values":["a"]}]})",
         {{"env", "a"}},
         false},
        {"Exists", R"({"matchExpressions":[{"key":"env","operator":"Exists"}]})", {{"env", ""}}, true},
        {"DoesNotExist", R"({"matchExpressions":[{"key":"env","operator":"DoesNotExist"}]})", {{"env", "x"}}, false},
        {"labels AND expressions",
         R"({"matchLabels":{"tier":"web"},"matchExpressions":[{"key":"env","operator":"In","values":["prod"]}]})",
         {{"tier", "web"}, {"env", "dev"}},
         false},
    };
    for (const auto& c : cases) {
        boost::json::value v;
        if (c.selector) v = boost::json::parse(c.selector);
        auto sel = parse_label_selector(c.selector ? &v : nullptr);
        ASSERT_TRUE(sel.ok()) << c.name << ": " << sel.error().message;
        EXPECT_EQ(sel.value().matches(c.labels), c.matches) << c.name;
    }
}

TEST(LabelSelector, InvalidSelectorsAreErrors) {
    const char* bad[] = {
        R"([])",
        R"({"matchLabels":{"a":1}})",
        R"({"matchExpressions":[{"key":"a","operator":"Like","values":["x"]}]})",
        R"({"matchExpressions":[{"key":"a","operator":"In"}]})",
        R"({"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]})",
        R"({"matchExpressions":[{"operator":"Exists"}]})",
    };
    for (const char* s : bad) {
        auto v = boost::json::parse(s);
        auto sel = parse_label_selector(&v);
        ASSERT_FALSE(sel.ok()) << s;
        EXPECT_EQ(sel.error().code, "invalid_selector");
    }
}

TEST(LabelSelector, ErrorsNameTheJsonPath) {
    auto v = boost::json::parse(R"({"matchExpressions":[{"key":"a","operator":"Like"}]})");
    auto sel = parse_label_selector(&v, "spec.targetRef.selector");
    ASSERT_FALSE(sel.ok());
    EXPECT_EQ(sel.error().message,
              "spec.targetRef.selector.matchExpressions[0].operator \"Like\" is not In, NotIn, Exists or DoesNotExist");
}

TEST(LabelSelector, LabelsOfSkipsNonStrings) {
    auto obj = boost::json::parse(R"({"metadata":{"labels":{"a":"1","b":2}}})");
    EXPECT_EQ(labels_of(obj), (LabelMap{{"a", "1"}}));
    EXPECT_TRUE(labels_of(boost::json::parse("{}")).empty());
}

}  // namespace
}  // namespace attune::core
