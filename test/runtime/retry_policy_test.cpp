#include <attune/kube/retry_policy.hpp>

#include <gtest/gtest.h>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
using http::Failure;
using http::Verb;

RetryOptions opts() {
    RetryOptions o;
    o.max_retries = 3;
    o.retry_after_cap = 10s;
    o.backoff = {100ms, 2.0, 1s, 0.0};
    return o;
}
const RandomSource kZero = [] { return 0.0; };

AttemptOutcome status(Verb v, unsigned code, std::optional<std::string_view> ra = std::nullopt) {
    AttemptOutcome o;
    o.method = v;
    o.status = code;
    o.retry_after = ra;
    return o;
}
AttemptOutcome transport(Verb v, Failure f, bool sent) {
    AttemptOutcome o;
    o.method = v;
    o.transport = f;
    o.request_sent = sent;
    return o;
}

TEST(RetryAfter, OnlyIntegersAreHonoured) {
    EXPECT_EQ(parse_retry_after("2"), 2s);
    EXPECT_EQ(parse_retry_after(" 32 "), 32s);
    EXPECT_EQ(parse_retry_after("0"), 0s);
    EXPECT_FALSE(parse_retry_after(""));
    EXPECT_FALSE(parse_retry_after("-1"));
    EXPECT_FALSE(parse_retry_after("1.5"));
    EXPECT_FALSE(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"));
    EXPECT_FALSE(parse_retry_after("99999999999999"));
}

TEST(RetryPolicy, TooManyRequestsWaitsRetryAfterWhenLongerThanBackoff) {
    auto d = decide_retry(opts(), status(Verb::Get, 429, "2"), 0, kZero);
    EXPECT_TRUE(d.retry);
    EXPECT_EQ(d.delay, 2s);
    EXPECT_EQ(d.reason, "429");
}

TEST(RetryPolicy, RetryAfterIsCapped) {
    auto d = decide_retry(opts(), status(Verb::Get, 429, "3600"), 0, kZero);
    EXPECT_EQ(d.delay, 10s);
}

TEST(RetryPolicy, BackoffWinsOverShorterRetryAfter) {
    auto d = decide_retry(opts(), status(Verb::Get, 429, "0"), 2, kZero);
    EXPECT_EQ(d.delay, 400ms);
}

TEST(RetryPolicy, TooManyRequestsWithoutHeaderUsesBackoffForAnyVerb) {
    auto d = decide_retry(opts(), status(Verb::Post, 429), 1, kZero);
    EXPECT_TRUE(d.retry);
    EXPECT_EQ(d.delay, 200ms);
}

TEST(RetryPolicy, ServerErrorsRetryIdempotentOrWhenAsked) {
    EXPECT_TRUE(decide_retry(opts(), status(Verb::Get, 503), 0, kZero).retry);
    EXPECT_TRUE(decide_retry(opts(), status(Verb::Put, 500), 0, kZero).retry);
    EXPECT_FALSE(decide_retry(opts(), status(Verb::Post, 503), 0, kZero).retry);
    EXPECT_FALSE(decide_retry(opts(), status(Verb::Patch, 500), 0, kZero).retry);
    EXPECT_TRUE(decide_retry(opts(), status(Verb::Patch, 503, "1"), 0, kZero).retry);
    EXPECT_FALSE(decide_retry(opts(), status(Verb::Get, 501), 0, kZero).retry);
}

TEST(RetryPolicy, ClientErrorsAreNotRetried) {
    for (unsigned code : {400u, 401u, 403u, 404u, 409u, 410u, 422u}) {
        EXPECT_FALSE(decide_retry(opts(), status(Verb::Get, code), 0, kZero).retry) << code;
    }
}

TEST(RetryPolicy, TransportFailuresBeforeSendingRetryAnyVerb) {
    EXPECT_TRUE(decide_retry(opts(), transport(Verb::Post, Failure::Connect, false), 0, kZero).retry);
    EXPECT_TRUE(decide_retry(opts(), transport(Verb::Patch, Failure::PoolExhausted, false), 0, kZero).retry);
    EXPECT_TRUE(decide_retry(opts(), transport(Verb::Post, Failure::Timeout, false), 0, kZero).retry);
}

TEST(RetryPolicy, TransportFailuresAfterSendingRetryIdempotentOnly) {
    EXPECT_TRUE(decide_retry(opts(), transport(Verb::Get, Failure::ConnectionReset, true), 0, kZero).retry);
    EXPECT_TRUE(decide_retry(opts(), transport(Verb::Del, Failure::Timeout, true), 0, kZero).retry);
    EXPECT_FALSE(decide_retry(opts(), transport(Verb::Post, Failure::ConnectionReset, true), 0, kZero).retry);
    EXPECT_FALSE(decide_retry(opts(), transport(Verb::Patch, Failure::Timeout, true), 0, kZero).retry);
}

TEST(RetryPolicy, ReplaySafeCreateRetriesAfterSendingLikeAnIdempotentVerb) {
    auto named = [](Failure f) {
        auto o = transport(Verb::Post, f, true);
        o.replay_safe = true;
        return o;
    };
    EXPECT_TRUE(decide_retry(opts(), named(Failure::ConnectionReset), 0, kZero).retry);
    EXPECT_TRUE(decide_retry(opts(), named(Failure::Timeout), 0, kZero).retry);
    EXPECT_FALSE(decide_retry(opts(), named(Failure::TlsHandshake), 0, kZero).retry);
    auto unavailable = status(Verb::Post, 503);
    unavailable.replay_safe = true;
    EXPECT_TRUE(decide_retry(opts(), unavailable, 0, kZero).retry);
    auto conflict = status(Verb::Post, 409);
    conflict.replay_safe = true;
    EXPECT_FALSE(decide_retry(opts(), conflict, 0, kZero).retry);
}

TEST(RetryPolicy, PermanentTransportFailuresAreNotRetried) {
    EXPECT_FALSE(decide_retry(opts(), transport(Verb::Get, Failure::TlsHandshake, false), 0, kZero).retry);
    EXPECT_FALSE(decide_retry(opts(), transport(Verb::Get, Failure::BodyTooLarge, true), 0, kZero).retry);
    EXPECT_FALSE(decide_retry(opts(), transport(Verb::Get, Failure::Cancelled, true), 0, kZero).retry);
}

TEST(RetryPolicy, StopsAtMaxRetries) {
    EXPECT_TRUE(decide_retry(opts(), status(Verb::Get, 429, "1"), 2, kZero).retry);
    EXPECT_FALSE(decide_retry(opts(), status(Verb::Get, 429, "1"), 3, kZero).retry);
}

}  // namespace
}  // namespace attune::kube
