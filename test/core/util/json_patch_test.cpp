#include "attune/core/util/json_patch.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {
namespace json = boost::json;

json::value j(const char* text) { return json::parse(text); }

TEST(JsonPointerToken, EscapesTildeThenSlash) {
    EXPECT_EQ(escape_json_pointer_token("attune.io/initial-sizing"), "attune.io~1initial-sizing");
    EXPECT_EQ(escape_json_pointer_token("a~b/c"), "a~0b~1c");
    EXPECT_EQ(escape_json_pointer_token("~1"), "~01");  // never read back as "/"
    EXPECT_EQ(escape_json_pointer_token(""), "");
}

struct DiffCase {
    const char* name;
    const char* before;
    const char* after;
    const char* patch;
};

class JsonPatchDiff : public ::testing::TestWithParam<DiffCase> {};

TEST_P(JsonPatchDiff, ProducesTheExpectedOperationsAndRoundTrips) {
    const auto& c = GetParam();
    const auto before = j(c.before);
    const auto after = j(c.after);
    const auto patch = json_patch_diff(before, after);
    EXPECT_EQ(json::value(patch), j(c.patch)) << json::serialize(patch);
    auto applied = apply_json_patch(before, patch);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
    EXPECT_EQ(applied.value(), after);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, JsonPatchDiff,
    ::testing::Values(
        DiffCase{"equal", R"({"a":1,"b":[1,2]})", R"({"a":1,"b":[1,2]})", "[]"},
        // An absent map is added whole: "replace" on a missing target is refused by RFC 6902.
        DiffCase{"absent_annotations_added_whole", R"({"metadata":{"name":"p"}})",
                 R"({"metadata":{"name":"p","annotations":{"attune.io/initial-sizing":"applied"}}})",
                 R"([{"op":"add","path":"/metadata/annotations","value":{"attune.io/initial-sizing":"applied"}}])"},
        DiffCase{"key_with_slash_escaped", R"({"metadata":{"annotations":{"x":"1"}}})",
                 R"({"metadata":{"annotations":{"x":"1","attune.io/skip":"true"}}})",
                 R"([{"op":"add","path":"/metadata/annotations/attune.io~1skip","value":"true"}])"},
        DiffCase{"key_with_tilde_escaped", R"({"a~b":1})", R"({"a~b":2})",
                 R"([{"op":"replace","path":"/a~0b","value":2}])"},
        DiffCase{"changed_value_replaced",
                 R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1"}}}]}})",
                 R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"250m"}}}]}})",
                 R"([{"op":"replace","path":"/spec/containers/0/resources/requests/cpu","value":"250m"}])"},
        DiffCase{"removed_key", R"({"a":1,"b":2})", R"({"a":1})", R"([{"op":"remove","path":"/b"}])"},
        DiffCase{"array_length_changed_replaced_whole", R"({"a":[1]})", R"({"a":[1,2]})",
                 R"([{"op":"replace","path":"/a","value":[1,2]}])"},
        DiffCase{"type_changed", R"({"a":{"x":1}})", R"({"a":[1]})", R"([{"op":"replace","path":"/a","value":[1]}])"},
        DiffCase{"null_to_object", R"({"a":null})", R"({"a":{"x":1}})",
                 R"([{"op":"replace","path":"/a","value":{"x":1}}])"},
        DiffCase{"root_scalar", "1", "2", R"([{"op":"replace","path":"","value":2}])"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

struct ApplyCase {
    const char* name;
    const char* doc;
    const char* patch;
    const char* want;  // nullptr: must fail
};

class JsonPatchApply : public ::testing::TestWithParam<ApplyCase> {};

TEST_P(JsonPatchApply, FollowsRfc6902) {
    const auto& c = GetParam();
    auto r = apply_json_patch(j(c.doc), j(c.patch).as_array());
    if (!c.want) {
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().code, "invalid_patch");
        return;
    }
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r.value(), j(c.want));
}

// RFC 6902 appendix A cases, and the failures it requires.
INSTANTIATE_TEST_SUITE_P(
    Cases, JsonPatchApply,
    ::testing::Values(
        ApplyCase{"a1_add_member", R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])",
                  R"({"baz":"qux","foo":"bar"})"},
        ApplyCase{"a2_add_array_element", R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])",
                  R"({"foo":["bar","qux","baz"]})"},
        ApplyCase{"a3_remove_member", R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])",
                  R"({"foo":"bar"})"},
        ApplyCase{"a4_remove_element", R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])",
                  R"({"foo":["bar","baz"]})"},
        ApplyCase{"a6_move", R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
                  R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
                  R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
        ApplyCase{"a8_test_ok", R"({"baz":"qux","foo":["a",2,"c"]})",
                  R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
                  R"({"baz":"qux","foo":["a",2,"c"]})"},
        ApplyCase{"a9_test_fails", R"({"baz":"qux"})", R"([{"op":"test","path":"/baz","value":"bar"}])", nullptr},
        ApplyCase{"a10_add_nested", R"({"foo":"bar"})", R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
                  R"({"foo":"bar","child":{"grandchild":{}}})"},
        ApplyCase{"a12_add_to_missing_parent", R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])",
                  nullptr},
        ApplyCase{"a14_escape", R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":10}])",
                  R"({"/":9,"~1":10})"},
        ApplyCase{"a16_append", R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
                  R"({"foo":["bar",["abc","def"]]})"},
        ApplyCase{"copy", R"({"a":{"b":1}})", R"([{"op":"copy","from":"/a","path":"/c"}])", R"({"a":{"b":1},"c":{"b":1}})"},
        ApplyCase{"replace_missing_fails", R"({"a":1})", R"([{"op":"replace","path":"/b","value":2}])", nullptr},
        ApplyCase{"bad_escape_fails", R"({"a":1})", R"([{"op":"remove","path":"/~2"}])", nullptr},
        ApplyCase{"leading_zero_index_fails", R"({"a":[1,2]})", R"([{"op":"remove","path":"/a/01"}])", nullptr},
        ApplyCase{"unknown_op_fails", R"({})", R"([{"op":"frobnicate","path":"/a"}])", nullptr},
        ApplyCase{"missing_value_fails", R"({})", R"([{"op":"add","path":"/a"}])", nullptr},
        ApplyCase{"move_into_child_fails", R"({"a":{"b":1}})", R"([{"op":"move","from":"/a","path":"/a/c"}])", nullptr},
        ApplyCase{"not_an_object_fails", R"({})", R"([1])", nullptr}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace attune::core
