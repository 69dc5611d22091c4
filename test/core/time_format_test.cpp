#include "attune/core/time_format.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

TEST(FormatRfc3339, UtcWholeSecondsAsTheApiserverWritesThem) {
    EXPECT_EQ(format_rfc3339(0), "1970-01-01T00:00:00Z");
    EXPECT_EQ(format_rfc3339(1767225600), "2026-01-01T00:00:00Z");
    EXPECT_EQ(format_rfc3339(1767225600 + 3661.9), "2026-01-01T01:01:01Z");  // fraction dropped
    EXPECT_EQ(format_rfc3339(1709164800), "2024-02-29T00:00:00Z");          // leap day
    EXPECT_EQ(format_rfc3339(-1), "1969-12-31T23:59:59Z");
}

}  // namespace
}  // namespace attune::core
