#include "feature_informers.hpp"

#include "informer_catalog.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <fstream>
#include <map>

namespace attune::manager {
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

// Resident set size from /proc/self/statm (0 where unreadable).
long long rss_kib() {
    std::ifstream f("/proc/self/statm");
    long long pages_total = 0, pages_resident = 0;
    if (!(f >> pages_total >> pages_resident)) return 0;
    return pages_resident * (sysconf(_SC_PAGESIZE) / 1024);
}

}  // namespace

InformersFeature::InformersFeature(ManagerContext& ctx) : ctx_(ctx), sync_wait_(ctx.io) {
    define_informers(
        ctx_.informers, ctx_.opts.watch_list, ctx_.opts.protobuf_lists,
        [this] {
            ctx_.release_free_memory_soon();
            sync_wait_.cancel();  // readiness at the last informer's sync, not at the next poll
        },
        ctx_.scope);
}

void InformersFeature::fence_namespaces(std::vector<std::string> also_allowed) {
    if (ctx_.scope.cluster_wide()) return;
    auto allowed = ctx_.scope.namespaces();
    for (auto& ns : also_allowed)
        if (!ns.empty()) allowed.push_back(std::move(ns));
    spdlog::info("watching only namespaces={} requests_allowed_in={}", join(ctx_.scope.namespaces()), join(allowed));
    ctx_.client.set_namespace_fence(
        [allowed = kube::WatchScope(std::move(allowed))](std::string_view ns) { return allowed.contains(ns); });
}

policy::CacheViews InformersFeature::need_feature_caches(std::function<bool()> vpa_synced) {
    auto& reg = ctx_.informers;
    vpa_synced_ = std::move(vpa_synced);
    // What each enabled feature reads; only these informers run.
    // Recommendations read workloads, HPAs, policies, the two defaults
    // tiers and pods (the live baseline and pod names); the webhook adds
    // namespaces. The resize executor adds nodes (its node-fit gate),
    // namespaces (opt-out annotations), LimitRanges and ResourceQuotas
    // (its admission gates).
    for (const char* name : {"deployments", "statefulsets", "replicasets", "daemonsets", "jobs", "cronjobs",
                             "horizontalpodautoscalers", "attunepolicies", "attunedefaults",
                             "attunenamespacedefaults", "pods", "nodes", "namespaces", "limitranges",
                             "resourcequotas"})
        reg.need(name);
    for (const auto& name : ctx_.opts.start_informers) reg.need(name);

    policy::CacheViews views;
    views.deployments = &reg.need("deployments").cache();
    views.statefulsets = &reg.need("statefulsets").cache();
    views.replicasets = &reg.need("replicasets").cache();
    views.daemonsets = &reg.need("daemonsets").cache();
    views.jobs = &reg.need("jobs").cache();
    views.cronjobs = &reg.need("cronjobs").cache();
    views.hpas = &reg.need("horizontalpodautoscalers").cache();
    views.policies = &reg.need("attunepolicies").cache();
    views.pods = &reg.need("pods").cache();
    views.cluster_defaults = &reg.need("attunedefaults").cache();
    views.namespace_defaults = &reg.need("attunenamespacedefaults").cache();
    views.synced = [this](std::string_view what) { return cache_synced(what); };
    return views;
}

// The informer of `what` (a workload kind, a defaults kind, the VPAs) has listed once.
bool InformersFeature::cache_synced(std::string_view what) const {
    static const std::map<std::string_view, std::string_view> kInformerOf = {{"Deployment", "deployments"},
                                                                             {"StatefulSet", "statefulsets"},
                                                                             {"ReplicaSet", "replicasets"},
                                                                             {"DaemonSet", "daemonsets"},
                                                                             {"Job", "jobs"},
                                                                             {"CronJob", "cronjobs"},
                                                                             {"AttuneDefaults", "attunedefaults"},
                                                                             {"AttuneNamespaceDefaults",
                                                                              "attunenamespacedefaults"}};
    if (what == "VerticalPodAutoscaler") return vpa_synced_ && vpa_synced_();
    auto it = kInformerOf.find(what);
    if (it == kInformerOf.end()) return true;
    const auto* inf = ctx_.informers.find(std::string(it->second));
    return inf && inf->has_synced();
}

void InformersFeature::start() {
    std::string running;
    for (const auto& [name, inf] : ctx_.informers.needed()) {
        auto* i = inf.get();
        ctx_.spawn("informer/" + name, [i] { return i->run(); });
        running += (running.empty() ? "" : ",") + name;
    }
    spdlog::info("starting informers informers={}", running);
}

asio::awaitable<void> InformersFeature::wait_for_sync() {
    auto& t = sync_wait_;
    const auto started = std::chrono::steady_clock::now();
    auto last_report = started;
    for (;;) {
        if (ctx_.stopping) co_return;
        if (ctx_.informers.all_synced()) break;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_report > 30s) {
            last_report = now;
            std::string missing;
            for (const auto& name : ctx_.informers.not_synced()) missing += (missing.empty() ? "" : ",") + name;
            spdlog::warn("informers still not synced informers={} waited_s={}", missing,
                         std::chrono::duration_cast<std::chrono::seconds>(now - started).count());
        }
        t.expires_after(1s);  // or sooner: each informer's sync cancels it
        co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    ready_ = true;
    ctx_.metrics.controller.informers_synced.Set(1);
    std::string sizes;
    for (const auto& [name, inf] : ctx_.informers.needed())
        sizes += fmt::format("{}{}={}", sizes.empty() ? "" : " ", name, inf->cache().size());
    spdlog::info("informers synced {} elapsed_ms={} rss_kib={}", sizes,
                 std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
                     .count(),
                 rss_kib());
}

std::string InformersFeature::not_ready_reason() const {
    if (ready_) return "";
    std::string body = "informers not synced:";
    for (const auto& name : ctx_.informers.not_synced()) body += " " + name;
    return body + "\n";
}

void InformersFeature::stop() {
    for (auto& [name, inf] : ctx_.informers.needed()) inf->stop();
}

}  // namespace attune::manager
