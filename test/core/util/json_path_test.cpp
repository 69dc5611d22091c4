#include "attune/core/util/json_path.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::core {
namespace {

const boost::json::value kDoc = boost::json::parse(R"({
  "metadata": {"name": "web", "generation": 3, "labels": {"a": "1"}, "nothing": null},
  "spec": {"replicas": 2, "paused": true, "list": [1, 2], "big": 18446744073709551615},
  "scalar": "x"})");

TEST(JsonPath, ReadsAlongObjectKeys) {
    EXPECT_EQ(string_at(kDoc, {"metadata", "name"}), "web");
    EXPECT_EQ(int_at(kDoc, {"metadata", "generation"}), 3);
    EXPECT_EQ(bool_at(kDoc, {"spec", "paused"}), true);
    ASSERT_NE(object_at(kDoc, {"metadata", "labels"}), nullptr);
    ASSERT_NE(array_at(kDoc, {"spec", "list"}), nullptr);
    EXPECT_EQ(json_at(kDoc, {}), &kDoc);
    EXPECT_EQ(string_at(kDoc.get_object(), {"metadata", "name"}), "web");
}

TEST(JsonPath, AbsentNullAndWrongTypesReadAsAbsent) {
    EXPECT_EQ(json_at(kDoc, {"metadata", "nothing"}), nullptr);      // null is absent
    EXPECT_EQ(json_at(kDoc, {"metadata", "missing"}), nullptr);
    EXPECT_EQ(json_at(kDoc, {"scalar", "deeper"}), nullptr);         // a step through a non-object
    EXPECT_EQ(string_at(kDoc, {"metadata", "generation"}), "");      // not a string
    EXPECT_EQ(int_at(kDoc, {"metadata", "name"}), std::nullopt);     // not an integer
    EXPECT_EQ(int_at(kDoc, {"spec", "big"}), std::nullopt);          // beyond int64
    EXPECT_EQ(bool_at(kDoc, {"spec", "replicas"}), std::nullopt);
    EXPECT_EQ(object_at(kDoc, {"spec", "list"}), nullptr);
    EXPECT_EQ(array_at(kDoc, {"spec"}), nullptr);
    EXPECT_EQ(json_at(kDoc.get_object(), {}), nullptr);
}

}  // namespace
}  // namespace attune::core
