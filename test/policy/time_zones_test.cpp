#include <attune/policy/time_zones.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace attune::policy {
namespace {

// A zone database of one zone, Etc/Fixed (a TZif file of no transitions,
// offset +1h, with its footer), in a fresh directory.
struct ZoneDir {
    std::filesystem::path root = std::filesystem::temp_directory_path() /
                                 ("attune-zones-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                  "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ZoneDir() {
        std::filesystem::create_directories(root / "Etc");
        std::ofstream(root / "Etc" / "Fixed", std::ios::binary) << tzif();
    }
    ~ZoneDir() { std::filesystem::remove_all(root); }

    static std::string tzif() {
        auto be32 = [](std::uint32_t v) { return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; };
        // v2: an empty v1 block (one type), the same in the v2 block, then the footer.
        auto block = [&](bool) {
            std::string h = "TZif2" + std::string(15, '\0');
            // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
            h += be32(0) + be32(0) + be32(0) + be32(0) + be32(1) + be32(4);
            h += be32(3600) + std::string{char(0), char(0)};  // ttinfo: utoff, isdst, desigidx
            h += std::string("XXX\0", 4);
            return h;
        };
        return block(false) + block(true) + "\n<+01>-1\n";
    }
};

TEST(TimeZones, LoadSaysWhyAZoneIsRefused) {
    ZoneDir d;
    const TimeZones zones(d.root.string(), (d.root / "no-localtime").string());
    EXPECT_TRUE(zones.load("Etc/Fixed").ok()) << zones.load("Etc/Fixed").error().message;
    const auto mars = zones.load("Mars/Phobos");
    ASSERT_FALSE(mars.ok());
    EXPECT_EQ(mars.error().message, "not in the zone database (" + d.root.string() + ")");
    ASSERT_FALSE(zones.load("../Etc/Fixed").ok());
    EXPECT_EQ(zones.load("../Etc/Fixed").error().message, "not a zone name");
    EXPECT_FALSE(zones.load("Etc").ok()) << "a directory is not a zone";
    // UTC and Local mean UTC without a database entry (Go's time.Local without /etc/localtime).
    EXPECT_TRUE(zones.load("UTC").ok());
    EXPECT_TRUE(zones.load("Local").ok());
}

TEST(TimeZones, GetKeepsWhatLoadFound) {
    ZoneDir d;
    TimeZones zones(d.root.string());
    const auto& fixed = zones.get("Etc/Fixed");
    ASSERT_TRUE(fixed.has_value());
    EXPECT_EQ(&zones.get("Etc/Fixed"), &fixed);
    EXPECT_FALSE(zones.get("Mars/Phobos").has_value());
}

}  // namespace
}  // namespace attune::policy
