#include "attune/core/model/lease_record.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

using namespace std::chrono;

const Timestamp kNow = sys_days(2026y / December / 1) + 10h;

struct Case {
    const char* name;
    const char* spec;
    bool fresh;
    std::int64_t age, duration;
};

TEST(LeaseRecord, FreshOnlyWhileHeldAndRenewedWithinItsDuration) {
    const Case cases[] = {
        {"renewed 5s ago, 15s lease",
         R"({"holderIdentity":"a","renewTime":"2026-12-01T09:59:55.000000Z",)"
         R"("leaseDurationSeconds":15})",
         true, 5, 15},
        {"renewed exactly one duration ago",
         R"({"holderIdentity":"a","renewTime":"2026-12-01T09:59:45Z",)"
         R"("leaseDurationSeconds":15})",
         true, 15, 15},
        {"renewed 16s ago, 15s lease",
         R"({"holderIdentity":"a","renewTime":"2026-12-01T09:59:44Z",)"
         R"("leaseDurationSeconds":15})",
         false, 16, 15},
        {"no duration: client-go's 15s", R"({"holderIdentity":"a","renewTime":"2026-12-01T09:59:50Z"})", true, 10, 15},
        {"renewed in the future (skew): age 0", R"({"holderIdentity":"a","renewTime":"2026-12-01T10:00:30Z"})", true, 0,
         15},
        {"released: no holder",
         R"({"holderIdentity":"","renewTime":"2026-12-01T10:00:00Z",)"
         R"("leaseDurationSeconds":1})",
         false, 0, 1},
        {"held, no renewTime", R"({"holderIdentity":"a","leaseDurationSeconds":15})", false, 0, 15},
        {"held, unreadable renewTime", R"({"holderIdentity":"a","renewTime":"yesterday"})", false, 0, 15},
    };
    for (const auto& c : cases) {
        const auto lease = boost::json::parse(std::string(R"({"spec":)") + c.spec + "}");
        const auto r = read_lease_record(lease, kNow);
        EXPECT_EQ(r.fresh, c.fresh) << c.name;
        EXPECT_EQ(r.age_seconds, c.age) << c.name;
        EXPECT_EQ(r.duration_seconds, c.duration) << c.name;
    }
}

TEST(LeaseRecord, ReadsHolderAndTransitions) {
    const auto r = read_lease_record(boost::json::parse(R"({"spec":{"holderIdentity":"attune-go-7d9f_1b2c",)"
                                                        R"("renewTime":"2026-12-01T09:59:00Z","leaseTransitions":3}})"),
                                     kNow);
    EXPECT_EQ(r.holder, "attune-go-7d9f_1b2c");
    EXPECT_EQ(r.transitions, 3);
    EXPECT_EQ(r.renewed, kNow - 60s);
}

}  // namespace
}  // namespace attune::core
