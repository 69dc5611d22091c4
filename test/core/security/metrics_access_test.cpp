// Who may read /metrics: the bearer header read as RFC 7235 says, the two
// reviews built and read as the apiserver writes them, and the short cache
// of decisions.
#include "attune/core/security/metrics_access.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace attune::core {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

TEST(MetricsAccess, BearerTokenIsReadFromTheAuthorizationHeader) {
    const struct {
        const char* header;
        std::optional<std::string> token;
    } cases[] = {
        {"Bearer abc.def-ghi", "abc.def-ghi"},
        {"bearer abc", "abc"},
        {"BEARER   abc  ", "abc"},
        {"  Bearer abc", "abc"},
        {"", std::nullopt},
        {"Bearer", std::nullopt},
        {"Bearer ", std::nullopt},
        {"Bearer    ", std::nullopt},
        {"Basic dXNlcjpwYXNz", std::nullopt},
        {"Bearerabc", std::nullopt},
        {"Bearer abc def", std::nullopt},
        {"Token abc", std::nullopt},
    };
    for (const auto& c : cases) EXPECT_EQ(bearer_token_of(c.header), c.token) << '"' << c.header << '"';
}

TEST(MetricsAccess, TokenReviewRequestCarriesTheTokenOnly) {
    const auto r = token_review_request("tok");
    EXPECT_EQ(json::serialize(r),
              R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"tok"}})");
}

TEST(MetricsAccess, TokenReviewAnswersAreDecoded) {
    const auto authenticated = json::parse(R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",
      "status":{"authenticated":true,"user":{"username":"system:serviceaccount:monitoring:prometheus",
      "uid":"u-1","groups":["system:serviceaccounts","system:authenticated"],
      "extra":{"authentication.kubernetes.io/pod-name":["p"]}},"audiences":["https://kubernetes.default.svc"]}})");
    auto u = decode_token_review(authenticated);
    ASSERT_TRUE(u) << u.error().message;
    ASSERT_TRUE(u.value().has_value());
    EXPECT_EQ(u.value()->username, "system:serviceaccount:monitoring:prometheus");
    EXPECT_EQ(u.value()->uid, "u-1");
    EXPECT_EQ(u.value()->groups, (std::vector<std::string>{"system:serviceaccounts", "system:authenticated"}));
    EXPECT_EQ(u.value()->extra.at("authentication.kubernetes.io/pod-name"), std::vector<std::string>{"p"});

    for (const char* unauthenticated : {
             R"({"kind":"TokenReview","status":{"authenticated":false,"error":"invalid bearer token"}})",
             R"({"kind":"TokenReview","status":{"user":{}}})",
             R"({"kind":"TokenReview"})",
         }) {
        auto r = decode_token_review(json::parse(unauthenticated));
        ASSERT_TRUE(r) << unauthenticated << ": " << r.error().message;
        EXPECT_FALSE(r.value().has_value()) << unauthenticated;
    }
    for (const char* bad : {
             R"([])",
             R"({"kind":"Status","status":"Failure"})",
             R"({"kind":"TokenReview","status":{"authenticated":"yes"}})",
             R"({"kind":"TokenReview","status":{"authenticated":true}})",
             R"({"kind":"TokenReview","status":{"authenticated":true,"user":{"uid":"x"}}})",
             R"({"kind":"TokenReview","status":{"authenticated":true,"user":{"username":"a","groups":[1]}}})",
             R"({"kind":"TokenReview","status":{"authenticated":true,"user":{"username":"a","extra":{"k":"v"}}}})",
         }) {
        auto r = decode_token_review(json::parse(bad));
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, "invalid_review") << bad;
    }
}

TEST(MetricsAccess, AccessReviewAsksForTheNonResourceUrlAsTheReviewedUser) {
    ReviewedUser u{"alice", "u-2", {"g1", "g2"}, {{"scopes", {"a", "b"}}}};
    EXPECT_EQ(json::serialize(access_review_request(u, "/metrics", "get")),
              R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"alice",)"
              R"("nonResourceAttributes":{"path":"/metrics","verb":"get"},"uid":"u-2","groups":["g1","g2"],)"
              R"("extra":{"scopes":["a","b"]}}})");
    EXPECT_EQ(json::serialize(access_review_request(ReviewedUser{"bob", "", {}, {}}, "/metrics", "get")),
              R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"bob",)"
              R"("nonResourceAttributes":{"path":"/metrics","verb":"get"}}})");
}

TEST(MetricsAccess, AccessReviewAnswersAreDecoded) {
    const struct {
        const char* body;
        bool allowed;
    } cases[] = {
        {R"({"kind":"SubjectAccessReview","status":{"allowed":true,"reason":"RBAC: allowed by ClusterRoleBinding"}})", true},
        {R"({"kind":"SubjectAccessReview","status":{"allowed":false}})", false},
        {R"({"kind":"SubjectAccessReview","status":{}})", false},
        {R"({"kind":"SubjectAccessReview"})", false},
        {R"({"kind":"SubjectAccessReview","status":{"allowed":true,"denied":true}})", false},
    };
    for (const auto& c : cases) {
        auto r = decode_access_review(json::parse(c.body));
        ASSERT_TRUE(r) << c.body << ": " << r.error().message;
        EXPECT_EQ(r.value(), c.allowed) << c.body;
    }
    for (const char* bad : {R"("x")", R"({"kind":"TokenReview","status":{"allowed":true}})",
                            R"({"kind":"SubjectAccessReview","status":{"allowed":"true"}})"}) {
        auto r = decode_access_review(json::parse(bad));
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, "invalid_review");
    }
}

TEST(MetricsAccess, DecisionsAnswerWithTheirHttpStatus) {
    EXPECT_EQ(http_status_of(MetricsAccess::Allowed), 200u);
    EXPECT_EQ(http_status_of(MetricsAccess::Unauthenticated), 401u);
    EXPECT_EQ(http_status_of(MetricsAccess::Forbidden), 403u);
}

TEST(MetricsAccessCache, AllowedIsKeptLongerThanDenied) {
    MetricsAccessCache::Options o;
    o.allow_ttl = 60s;
    o.deny_ttl = 10s;
    MetricsAccessCache cache(o);
    const auto t0 = MetricsAccessCache::Clock::time_point{} + 1000s;
    cache.store("ok", MetricsAccess::Allowed, t0);
    cache.store("no", MetricsAccess::Forbidden, t0);
    cache.store("who", MetricsAccess::Unauthenticated, t0);
    const struct {
        std::chrono::seconds after;
        const char* token;
        std::optional<MetricsAccess> want;
    } cases[] = {
        {0s, "ok", MetricsAccess::Allowed},
        {0s, "no", MetricsAccess::Forbidden},
        {9s, "who", MetricsAccess::Unauthenticated},
        {9s, "no", MetricsAccess::Forbidden},
        {10s, "no", std::nullopt},
        {59s, "ok", MetricsAccess::Allowed},
        {60s, "ok", std::nullopt},
        {0s, "never-seen", std::nullopt},
    };
    for (const auto& c : cases)
        EXPECT_EQ(cache.lookup(c.token, t0 + c.after), c.want) << c.token << " after " << c.after.count() << " s";
}

TEST(MetricsAccessCache, CapacityIsHeldByEvictingWhatExpiresFirst) {
    MetricsAccessCache::Options o;
    o.capacity = 2;
    MetricsAccessCache cache(o);
    const auto t0 = MetricsAccessCache::Clock::time_point{} + 1000s;
    cache.store("denied", MetricsAccess::Forbidden, t0);  // expires at +10 s
    cache.store("a", MetricsAccess::Allowed, t0);         // +60 s
    cache.store("b", MetricsAccess::Allowed, t0 + 1s);    // full: "denied" goes
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_EQ(cache.lookup("denied", t0 + 1s), std::nullopt);
    EXPECT_EQ(cache.lookup("a", t0 + 1s), MetricsAccess::Allowed);
    EXPECT_EQ(cache.lookup("b", t0 + 1s), MetricsAccess::Allowed);
    cache.store("a", MetricsAccess::Forbidden, t0 + 2s);  // a known token is replaced, nothing evicted
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_EQ(cache.lookup("a", t0 + 2s), MetricsAccess::Forbidden);
    cache.store("c", MetricsAccess::Allowed, t0 + 100s);  // both expired: swept, not evicted by age
    EXPECT_EQ(cache.size(), 1u);

    MetricsAccessCache::Options none;
    none.capacity = 0;
    MetricsAccessCache zero(none);
    zero.store("x", MetricsAccess::Allowed, t0);
    EXPECT_EQ(zero.lookup("x", t0), std::nullopt);
}

}  // namespace
}  // namespace attune::core
