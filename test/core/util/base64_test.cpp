#include "attune/core/util/base64.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace attune::core {
namespace {

TEST(Base64, RoundTripAndRejects) {
    for (const std::string& s : std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x10", 3)}) {
        EXPECT_EQ(base64_decode(base64_encode(s)), s);
    }
    EXPECT_EQ(base64_decode("YWJj\nZA=="), "abcd");
    EXPECT_EQ(base64_decode("YWJjZA"), "abcd");
    EXPECT_FALSE(base64_decode("YWJjZ"));
    EXPECT_FALSE(base64_decode("YW=Jj"));
    EXPECT_FALSE(base64_decode("YW*j"));
    EXPECT_FALSE(base64_decode("YQ==="));
}

}  // namespace
}  // namespace attune::core
