// controller::DatadogClients: one client per endpoint and key pair, the
// request budget per key, and nothing sent while Datadog's 429 holds.
#include <attune/controller/datadog_clients.hpp>

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {
using namespace std::chrono_literals;
using Clock = DatadogClients::Clock;

core::DatadogSource source(const char* site = "datadoghq.com") {
    core::DatadogSource s;
    s.site = site;
    s.api_key_secret_ref = {"dd", "api-key"};
    return s;
}

TEST(DatadogClients, TheEndpointIsTheSitesUnlessTheManagerSetsOne) {
    DatadogClientsOptions o;
    EXPECT_EQ(datadog_endpoint(o, "datadoghq.com"), "https://api.datadoghq.com");
    EXPECT_EQ(datadog_endpoint(o, "us5.datadoghq.com"), "https://api.us5.datadoghq.com");
    EXPECT_EQ(datadog_endpoint(o, "ddog-gov.com"), "https://api.ddog-gov.com");
    o.url = "https://dd-proxy.monitoring:8443";
    EXPECT_EQ(datadog_endpoint(o, "datadoghq.eu"), "https://dd-proxy.monitoring:8443");
}

TEST(DatadogClients, OneClientPerEndpointAndKeys) {
    boost::asio::io_context io;
    DatadogClients clients(io.get_executor(), {});
    const auto now = Clock::now();
    auto a = clients.get(source(), "key-1", "app-1", now);
    ASSERT_TRUE(a.ok()) << a.error().message;
    EXPECT_EQ(a.value()->base_url(), "https://api.datadoghq.com");
    EXPECT_EQ(clients.get(source(), "key-1", "app-1", now).value(), a.value());
    EXPECT_NE(clients.get(source(), "key-2", "app-1", now).value(), a.value());
    EXPECT_NE(clients.get(source("datadoghq.eu"), "key-1", "app-1", now).value(), a.value());
    EXPECT_EQ(clients.size(), 3u);
    auto bad = clients.get(source(), "", "", now);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "invalid_config");
    clients.shutdown();
    EXPECT_FALSE(clients.get(source(), "key-1", "", now).ok());
}

TEST(DatadogClients, TheBudgetSpacesQueriesAndRefusesLongWaits) {
    boost::asio::io_context io;
    DatadogClientsOptions o;  // 0.08/s, bursts of 3: one every 12.5 s
    DatadogClients clients(io.get_executor(), o);
    const auto t0 = Clock::now();
    auto c = clients.get(source(), "k", "", t0).value();
    const struct {
        Clock::duration at;
        std::chrono::nanoseconds max_wait;
        std::optional<std::chrono::milliseconds> want;  // nullopt: refused
    } rows[] = {
        {0s, 30s, 0ms},         {0s, 30s, 0ms}, {0s, 30s, 0ms},  // the burst
        {0s, 1s, std::nullopt},                                  // the next token is 12.5 s away
        {0s, 30s, 12500ms},                                      // waits for it (reserved)
    };
    for (std::size_t i = 0; i < std::size(rows); ++i) {
        const auto& r = rows[i];
        const auto a = clients.admit(c, t0 + r.at, r.max_wait);
        if (!r.want) {
            EXPECT_FALSE(a.wait.has_value()) << i;
            EXPECT_NE(a.why.find("request budget of this API key (3 at once, then one every 13 s) is spent"),
                      std::string::npos)
                << a.why;
            continue;
        }
        ASSERT_TRUE(a.wait.has_value()) << i << ": " << a.why;
        const double waited_ms = std::chrono::duration<double, std::milli>(*a.wait).count();
        EXPECT_NEAR(waited_ms, static_cast<double>(r.want->count()), 1.0) << i;
    }
    // Reservations queue: the one after waits 25 s, within a 30 s budget.
    const auto later = clients.admit(c, t0, 30s);
    ASSERT_TRUE(later.wait.has_value());
    EXPECT_NEAR(std::chrono::duration<double>(*later.wait).count(), 25.0, 0.01);
    // Refill: a minute on, the burst is back.
    EXPECT_EQ(clients.admit(c, t0 + 90s, 0s).wait, std::chrono::nanoseconds(0));
}

TEST(DatadogClients, NothingIsSentWhileA429Holds) {
    boost::asio::io_context io;
    DatadogClientsOptions o;
    o.qps = 100;
    DatadogClients clients(io.get_executor(), o);
    const auto t0 = Clock::now();
    auto c = clients.get(source(), "k", "", t0).value();
    clients.note_rate_limited(c, 25s, "datadog https://api.datadoghq.com rate-limited the query (429): slow down", t0);
    auto held = clients.admit(c, t0 + 10s, 30s);
    EXPECT_FALSE(held.wait.has_value());
    EXPECT_EQ(held.why,
              "datadog https://api.datadoghq.com rate-limited the query (429): slow down (not asked again for 15 s)");
    EXPECT_FALSE(clients.admit(c, t0 + 24s, 30s).wait.has_value());
    EXPECT_TRUE(clients.admit(c, t0 + 25s, 30s).wait.has_value());
    // An unanswered query holds the key for hold_after_failure; an answer lifts it.
    clients.note_unanswered(c, "datadog unreachable", t0 + 30s);
    EXPECT_FALSE(clients.admit(c, t0 + 31s, 30s).wait.has_value());
    clients.note_answered(c);
    EXPECT_TRUE(clients.admit(c, t0 + 31s, 30s).wait.has_value());
}

}  // namespace
}  // namespace attune::controller
