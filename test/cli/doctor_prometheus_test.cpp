// doctor's Prometheus rows: addresses from the effective policies (the
// defaults merge), in-cluster-only names skipped politely, probe outcomes.
#include "doctor_prometheus.hpp"

#include <gtest/gtest.h>

namespace attune::cli {
namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

core::EffectivePolicy with_prometheus(std::string ns, std::string name, std::string address) {
    core::EffectivePolicy p;
    p.namespace_ = std::move(ns);
    p.name = std::move(name);
    core::PrometheusSource src;
    src.address = std::move(address);
    p.metrics.provider = src;
    return p;
}

TEST(InClusterOnly, ServiceNamesAreSkippedAddressesAreProbed) {
    struct Case {
        const char* address;
        bool skipped;
    } cases[] = {
        {"http://prometheus.monitoring.svc:9090", true},
        {"http://prometheus.monitoring.svc.cluster.local:9090", true},
        {"http://prometheus.monitoring.svc.corp.internal:9090", true},
        {"http://prometheus:9090", true},
        {"http://prom.cluster.local", true},
        {"http://127.0.0.1:16447", false},
        {"https://prometheus.example.com/prom", false},
        {"http://[::1]:9090", false},
        {"http://localhost:9090", false},
        {"not a url", false},  // the probe reports it
    };
    for (const auto& c : cases) EXPECT_EQ(in_cluster_only(c.address).has_value(), c.skipped) << c.address;
}

TEST(PrometheusTargets, OnePerAddressWithItsPolicies) {
    std::vector<core::EffectivePolicy> ps = {with_prometheus("b", "web", "http://p:9090"),
                                             with_prometheus("a", "api", "http://p:9090"),
                                             with_prometheus("a", "db", "http://q:9090")};
    ps.push_back(core::EffectivePolicy{});  // no source: not listed
    const auto t = prometheus_targets(ps);
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].address, "http://p:9090");
    EXPECT_EQ(t[0].policies, (std::vector<std::string>{"a/api", "b/web"}));
    EXPECT_EQ(t[1].address, "http://q:9090");
}

TEST(PrometheusRows, Outcomes) {
    const std::vector<PrometheusTarget> targets =
        prometheus_targets(std::vector{with_prometheus("a", "x", "http://127.0.0.1:16447"),
                                       with_prometheus("a", "y", "http://prometheus.mon.svc:9090"),
                                       with_prometheus("a", "z", "http://10.0.0.9:9090")});
    PrometheusProbe healthy;
    healthy.healthy = true;
    healthy.took = std::chrono::milliseconds(12);
    PrometheusProbe skipped;
    skipped.skipped = true;
    skipped.skip_reason = "\"prometheus.mon.svc\" is a Service name only cluster DNS resolves";
    PrometheusProbe down;
    down.error = "prometheus http://10.0.0.9:9090 did not answer in time";
    // targets are in address order: 10.0.0.9, 127.0.0.1, prometheus.mon.svc
    const std::vector<PrometheusProbe> probes = {down, healthy, skipped};
    const auto rows = prometheus_rows(targets, probes, "");
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].status, DoctorStatus::Warn);
    EXPECT_TRUE(has(rows[0].detail, "not healthy from here")) << rows[0].detail;
    EXPECT_EQ(rows[1].status, DoctorStatus::Ok);
    EXPECT_TRUE(has(rows[1].detail, "healthy (/-/healthy in 12 ms) (policy a/x)")) << rows[1].detail;
    EXPECT_EQ(rows[2].status, DoctorStatus::Ok);
    EXPECT_TRUE(has(rows[2].detail, "skipped")) << rows[2].detail;
    for (const auto& r : rows) EXPECT_FALSE(r.required);

    // Past the probes: not probed, said so.
    const auto capped = prometheus_rows(targets, std::vector<PrometheusProbe>{down}, "");
    ASSERT_EQ(capped.size(), 3u);
    EXPECT_EQ(capped[2].status, DoctorStatus::Warn);
    EXPECT_TRUE(has(capped[2].detail, "not probed: doctor probes at most 10 addresses")) << capped[2].detail;

    const auto none = prometheus_rows({}, {}, "");
    ASSERT_EQ(none.size(), 1u);
    EXPECT_TRUE(has(none[0].detail, "no policy names a Prometheus address"));
    const auto cannot = prometheus_rows({}, {}, "403 Forbidden");
    EXPECT_EQ(cannot.at(0).status, DoctorStatus::Warn);
}

}  // namespace
}  // namespace attune::cli
