#include "attune/core/util/merge_patch.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

// The examples of RFC 7386, appendix A, and the apiserver's use of it.
TEST(MergePatch, AppliesAsRfc7386Says) {
    struct Case {
        const char *target, *patch, *want;
    };
    const Case cases[] = {
        {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
        {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
        {R"({"a":"b"})", R"({"a":null})", R"({})"},
        {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
        {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
        {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
        {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
        {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
        {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
        {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
        {R"({"a":"foo"})", "null", "null"},
        {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
        {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
        {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
        // A pod's annotations: one removed, one added, the rest kept.
        {R"({"metadata":{"name":"p","annotations":{"x":"1","attune.io/policy":"web"}}})",
         R"({"metadata":{"annotations":{"attune.io/policy":null,"y":"2"}}})",
         R"({"metadata":{"name":"p","annotations":{"x":"1","y":"2"}}})"},
    };
    for (const auto& c : cases) {
        const auto got = apply_merge_patch(boost::json::parse(c.target), boost::json::parse(c.patch));
        EXPECT_EQ(got, boost::json::parse(c.want))
            << c.target << " + " << c.patch << " -> " << boost::json::serialize(got);
    }
}

}  // namespace
}  // namespace attune::core
