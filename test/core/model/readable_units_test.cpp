// Numbers as a person reads them (docs/cli.md#numbers-in-text-output).
#include "attune/core/model/readable_units.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace attune::core {
namespace {

TEST(ReadableUnits, PercentHasTwoSignificantFigures) {
    const struct {
        double fraction;
        const char* want;
    } cases[] = {
        {4.1335978835978834e-05, "0.0041%"},
        {0.93, "93%"},
        {0.123456, "12%"},
        {0.0456, "4.6%"},
        {0.0996, "10%"},  // rounding carries into a new digit
        {0.5, "50%"},
        {5e-05, "0.005%"},  // trailing zeros dropped
        {0.999, "100%"},
        {1, "100%"},
        {1.5, "150%"},
        {0, "0%"},
        {-0.25, "-25%"},
        {1e-9, "0.0000001%"},  // never an exponent
        {0.99949, "100%"},
        {0.0995, "10%"},
        {std::numeric_limits<double>::quiet_NaN(), "n/a"},
        {std::numeric_limits<double>::infinity(), "n/a"},
        {-std::numeric_limits<double>::infinity(), "n/a"},
    };
    for (const auto& c : cases) EXPECT_EQ(readable_percent(c.fraction), c.want) << c.fraction;
}

TEST(ReadableUnits, CpuIsInMillicoresRoundedUp) {
    const struct {
        const char* text;
        const char* want;
    } cases[] = {
        {"250m", "250m"}, {"0.25", "250m"},    {"1.5", "1500m"}, {"2", "2000m"}, {"6m", "6m"},
        {"100u", "1m"},  // rounded up, never to 0m
        {"0", "0m"},      {"999.5m", "1000m"}, {"999m", "999m"}, {"1", "1000m"}, {"1n", "1m"},
    };
    for (const auto& c : cases) EXPECT_EQ(readable_quantity("cpu", c.text), c.want) << c.text;
}

TEST(ReadableUnits, MemoryIsInKiMiOrGiToThreeSignificantFigures) {
    const struct {
        const char* text;
        const char* want;
    } cases[] = {
        {"245354614", "234Mi"},  // the estimator's raw bytes
        {"256Mi", "256Mi"},
        {"1536Mi", "1.5Gi"},
        {"1Gi", "1Gi"},
        {"12.5Mi", "12.5Mi"},
        {"512Ki", "512Ki"},
        {"1000", "1000"},  // under 1Ki: bytes
        {"1M", "977Ki"},
        {"1023.9Mi", "1024Mi"},  // a whole number keeps every digit
        {"0", "0"},
        {"1Mi", "1Mi"},  // exactly 1Mi: Mi
        {"1023Ki", "1023Ki"},
        {"1048575", "1024Ki"},  // a byte short of 1Mi: still Ki
        {"1.5Gi", "1.5Gi"},
        {"1025Mi", "1Gi"},  // three significant figures
        {"1Ti", "1024Gi"},
        {"1023", "1023"},
    };
    for (const auto& c : cases) EXPECT_EQ(readable_quantity("memory", c.text), c.want) << c.text;
}

TEST(ReadableUnits, OtherResourcesAndNonQuantitiesComeBackAsTheyAre) {
    EXPECT_EQ(readable_quantity("nvidia.com/gpu", "2"), "2");
    EXPECT_EQ(readable_quantity("memory", "not a quantity"), "not a quantity");
    EXPECT_EQ(readable_quantity("cpu", ""), "");
}

}  // namespace
}  // namespace attune::core
