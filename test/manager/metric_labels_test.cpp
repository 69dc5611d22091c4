// Every metric family the manager registers (the one ManagerMetrics struct
// built at startup), and every label name the code gives its series, checked
// against an allow-list of bounded labels. A label whose values grow with the
// cluster (a workload, pod, container or object name, a uid) makes a series
// per object: per-object detail belongs in Events and status, not metrics.
#include "manager_metrics.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace attune::manager {
namespace {

// Bounded labels. namespace and policy: bounded by the AttunePolicies (a
// series exists only for a namespace or policy Attune manages, or, for
// attune_kube_informer_synced, for a namespace of --watch-namespaces). The rest are
// keywords the code spells out (verb, code, result, reason, ...) or the
// informer and query names it defines.
const std::set<std::string> kBounded = {"namespace", "policy",   "action",   "result",     "reason",
                                        "operation", "event",    "kind",     "stage",      "certificate",
                                        "verb",      "code",     "resource", "type",       "query_type",
                                        "task",      "metric_type"};

// The families docs/api.md#metrics lists per workload or container
// (namespace, workload[, container]); they predate this check and are kept
// for compatibility with the Go operator's dashboards until the lead decides.
// Keyed by the metrics member that is Add()ed; nothing else may join them.
const std::map<std::string, std::set<std::string>> kPrescribedPerWorkload = {
    {"resize_duration", {"workload"}},   {"infeasible_skipped", {"workload"}}, {"evictions", {"workload"}},
    {"template_patches", {"workload"}},  {"reverts", {"workload"}},            {"revert_failures", {"workload"}},
    {"resize_total", {"workload"}},      {"Labels", {"workload", "container"}},
    {"nan_inf_samples", {"container"}},
};

struct Use {
    std::string file, member;
    std::vector<std::string> labels;
};

// Each `member.Add({{"label", value}, ...})` and `Labels{{"label", value}, ...}`
// in the text: the member's name and the label names.
std::vector<Use> label_uses(const std::string& file, const std::string& text) {
    static const std::regex kCall(R"re((\w+)\s*\.\s*Add\(\s*\{((?:\s*\{\s*"[a-z_]+"[^{}]*\}\s*,?)+)\s*\})re");
    static const std::regex kLiteral(R"re((Labels)\{((?:\s*\{\s*"[a-z_]+"[^{}]*\}\s*,?)+)\s*\})re");
    static const std::regex kKey(R"re(\{\s*"([a-z_]+)"\s*,)re");
    std::vector<Use> out;
    for (const auto* re : {&kCall, &kLiteral})
        for (std::sregex_iterator it(text.begin(), text.end(), *re), end; it != end; ++it) {
            Use u{file, (*it)[1].str(), {}};
            const std::string inner = (*it)[2].str();
            for (std::sregex_iterator k(inner.begin(), inner.end(), kKey); k != end; ++k)
                u.labels.push_back((*k)[1].str());
            out.push_back(std::move(u));
        }
    return out;
}

std::vector<std::string> unbounded(const std::vector<Use>& uses) {
    std::vector<std::string> bad;
    for (const auto& u : uses)
        for (const auto& l : u.labels) {
            if (kBounded.count(l)) continue;
            auto ex = kPrescribedPerWorkload.find(u.member);
            if (ex != kPrescribedPerWorkload.end() && ex->second.count(l)) continue;
            bad.push_back(u.file + ": " + u.member + " {" + l + "}");
        }
    return bad;
}

std::vector<Use> manager_label_uses() {
    std::vector<Use> all;
    for (const char* dir : {"src/controller", "src/kube", "src/manager", "webhook"})
        for (const auto& e : std::filesystem::recursive_directory_iterator(std::filesystem::path(ATTUNE_SOURCE_ROOT) / dir)) {
            if (e.path().extension() != ".cpp" && e.path().extension() != ".hpp") continue;
            std::ifstream in(e.path());
            std::stringstream ss;
            ss << in.rdbuf();
            for (auto& u : label_uses(std::filesystem::relative(e.path(), ATTUNE_SOURCE_ROOT).string(), ss.str()))
                all.push_back(std::move(u));
        }
    return all;
}

TEST(MetricLabels, TheScannerFindsLabelsInEveryCallShape) {
    const auto uses = label_uses("x.cpp", R"(
        metrics.startup_boosts.Add({{"namespace", ns}, {"pod", p.name}, {"action", "applied"}}).Increment();
        metrics_.reverts
            .Add({{"namespace", c.snap.key.ns},
                  {"uid", std::string(u)}})
            .Increment();
        auto labels = [&](const std::string& c) { return Labels{{"namespace", ns}, {"name", c}}; };
        open_connections.Add({});)");
    ASSERT_EQ(uses.size(), 3u);
    EXPECT_EQ(uses[0].member, "startup_boosts");
    EXPECT_EQ(uses[0].labels, (std::vector<std::string>{"namespace", "pod", "action"}));
    EXPECT_EQ(uses[1].member, "reverts");
    EXPECT_EQ(uses[2].member, "Labels");
    // pod, uid and name are refused, even where workload is tolerated.
    EXPECT_EQ(unbounded(uses), (std::vector<std::string>{"x.cpp: startup_boosts {pod}", "x.cpp: reverts {uid}",
                                                         "x.cpp: Labels {name}"}));
}

TEST(MetricLabels, EveryLabelTheManagerUsesIsBounded) {
    const auto uses = manager_label_uses();
    ASSERT_GT(uses.size(), 30u);  // the scan did read the sources
    for (const auto& bad : unbounded(uses)) ADD_FAILURE() << "unbounded metric label: " << bad;
}

TEST(MetricLabels, TheWebhookAndTheStartupBoostHaveNoPerWorkloadLabel) {
    for (const auto& u : manager_label_uses()) {
        const bool webhook = u.file.rfind("webhook/", 0) == 0;
        const bool boost = u.member == "startup_boost" || u.member == "startup_boosts";
        if (!webhook && !boost) continue;
        for (const auto& l : u.labels) {
            EXPECT_TRUE(kBounded.count(l)) << u.file << ": " << u.member << " {" << l << "}";
        }
        if (boost) {
            EXPECT_EQ(u.labels, (std::vector<std::string>{"namespace", "policy", "action"})) << u.file;
        }
    }
}

// The family names the metrics structs register: every "attune_..." string
// in their sources.
std::set<std::string> registered_in_sources() {
    static const std::regex kName(R"re("(attune_[a-z_]+)")re");
    std::set<std::string> out;
    for (const char* file : {"src/controller/metrics.cpp", "src/controller/executor/executor_metrics.cpp",
                             "src/kube/metrics.cpp", "webhook/metrics.cpp"}) {
        std::ifstream in(std::filesystem::path(ATTUNE_SOURCE_ROOT) / file);
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string text = ss.str();
        for (std::sregex_iterator it(text.begin(), text.end(), kName), end; it != end; ++it) out.insert((*it)[1].str());
    }
    return out;
}

// The families the manager registers at startup, by name: a new one must be
// added here, which is where its labels get reviewed. A family appears in
// the registry's output only once it has a series, so the names come from
// the four metrics sources, and every family the one ManagerMetrics struct
// shows at start (those with an unlabelled series) must be among them.
TEST(MetricLabels, TheManagerRegistersExactlyTheseFamilies) {
    const std::set<std::string> names = registered_in_sources();
    ManagerMetrics m;
    std::size_t live = 0;
    for (const auto& f : m.registry->Collect()) {
        ++live;
        EXPECT_TRUE(names.count(f.name)) << f.name << " is registered outside the four metrics sources";
    }
    EXPECT_GE(live, 10u);  // the struct was built and collected
    const std::set<std::string> expected = {"attune_budget_exhausted_total",
                                            "attune_capacity_skip_total",
                                            "attune_confidence",
                                            "attune_coroutine_restarts_total",
                                            "attune_deferred_age_seconds",
                                            "attune_envelope_blocked_total",
                                            "attune_envelope_raised_total",
                                            "attune_event_queue_depth",
                                            "attune_eviction_total",
                                            "attune_gitops_pr_total",
                                            "attune_infeasible_skipped_total",
                                            "attune_informers_synced",
                                            "attune_kube_events_written_total",
                                            "attune_kube_informer_cache_bytes",
                                            "attune_kube_informer_objects",
                                            "attune_kube_informer_synced",
                                            "attune_kube_rate_limiter_wait_seconds",
                                            "attune_kube_relists_total",
                                            "attune_kube_request_duration_seconds",
                                            "attune_kube_request_queue_capacity",
                                            "attune_kube_request_queue_rejected_total",
                                            "attune_kube_request_retries_total",
                                            "attune_kube_requests_inflight",
                                            "attune_kube_requests_queued",
                                            "attune_kube_requests_total",
                                            "attune_kube_watch_events_total",
                                            "attune_kube_watch_restarts_total",
                                            "attune_leader",
                                            "attune_memory_limit_decrease_total",
                                            "attune_nan_inf_samples_total",
                                            "attune_pods_deferred",
                                            "attune_pods_infeasible",
                                            "attune_policy_events_total",
                                            "attune_policy_passes_total",
                                            "attune_policy_status_writes_total",
                                            "attune_prometheus_query_duration_seconds",
                                            "attune_prometheus_query_errors_total",
                                            "attune_recommendation_cpu_cores",
                                            "attune_recommendation_memory_bytes",
                                            "attune_reclaimed_request_cpu_cores",
                                            "attune_reclaimed_request_memory_bytes",
                                            "attune_reconciles_total",
                                            "attune_resize_duration_seconds",
                                            "attune_resize_total",
                                            "attune_revert_failures_total",
                                            "attune_reverts_total",
                                            "attune_savings_cpu_cores_total",
                                            "attune_savings_estimated_monthly_dollars",
                                            "attune_savings_memory_bytes_total",
                                            "attune_schedule_skipped_total",
                                            "attune_startup_boost_total",
                                            "attune_template_patch_total",
                                            "attune_webhook_admissions_total",
                                            "attune_webhook_certificate_expiry_timestamp_seconds",
                                            "attune_webhook_certificate_reloads_total",
                                            "attune_webhook_certificate_rotations_total",
                                            "attune_webhook_certificate_sync_errors_total",
                                            "attune_webhook_connection_events_total",
                                            "attune_webhook_duration_seconds",
                                            "attune_webhook_open_connections",
                                            "attune_webhook_skips_total",
                                            "attune_webhook_validation_total",
                                            "attune_workload_idle",
                                            "attune_workqueue_adds_total",
                                            "attune_workqueue_depth",
                                            "attune_workqueue_retries_total"};
    std::vector<std::string> missing, extra;
    for (const auto& n : expected)
        if (!names.count(n)) missing.push_back(n);
    for (const auto& n : names)
        if (!expected.count(n)) extra.push_back(n);
    EXPECT_TRUE(missing.empty()) << "not registered: " << ::testing::PrintToString(missing);
    EXPECT_TRUE(extra.empty()) << "registered but not reviewed here: " << ::testing::PrintToString(extra);
}

}  // namespace
}  // namespace attune::manager
