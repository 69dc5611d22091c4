#include "doctor_rbac.hpp"

#include <gtest/gtest.h>

namespace attune::cli {
namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(DoctorRbac, ReviewsAndTheRow) {
    const auto checks = doctor_access_checks("", "attune-system", "attune-webhook");
    ASSERT_FALSE(checks.empty());
    const auto review = access_review(checks[0]);
    EXPECT_EQ(review.at("kind").as_string(), "SelfSubjectAccessReview");
    const auto& attrs = review.at("spec").at("resourceAttributes").as_object();
    EXPECT_EQ(attrs.at("verb").as_string(), "list");
    EXPECT_EQ(attrs.at("resource").as_string(), "nodes");
    EXPECT_FALSE(attrs.contains("namespace"));

    std::vector<AccessAnswer> all(checks.size());
    for (auto& a : all) a.allowed = true;
    EXPECT_EQ(rbac_row(checks, all).status, DoctorStatus::Ok);

    auto no_nodes = all;
    no_nodes[0].allowed = false;
    const auto r = rbac_row(checks, no_nodes);
    EXPECT_EQ(r.status, DoctorStatus::Warn);
    EXPECT_FALSE(r.required);
    EXPECT_TRUE(has(r.detail, "denied: list nodes (cgroup v2, pod-level resize)")) << r.detail;

    auto broken = all;
    broken[1].error = "500";
    EXPECT_TRUE(has(rbac_row(checks, broken).detail, "SelfSubjectAccessReview failed"));
}

}  // namespace
}  // namespace attune::cli
