// Manual smoke check of the runtime against a real kube-apiserver:
//   runtime_apiserver_smoke --kubeconfig PATH [--context NAME]
// Exercises TLS + auth from a kubeconfig, discovery, the verbs, paging, the
// informer (list + watch), the Event writer and leader election, in a
// throwaway namespace it deletes at the end. Exits non-zero on the first
// unexpected result. Not part of the unit suite (needs a cluster).
#include <attune/kube/client.hpp>
#include <attune/kube/discovery.hpp>
#include <attune/kube/event_recorder.hpp>
#include <attune/kube/informer.hpp>
#include <attune/kube/kubeconfig.hpp>
#include <attune/kube/leader_election.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace attune::kube;

namespace {
int failures = 0;
void check(bool ok, const std::string& what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
    if (!ok) ++failures;
}
template <class T>
std::string err(const ApiResult<T>& r) {
    return r.ok() ? std::string() : " (" + r.error().describe() + ")";
}

ResourceType configmaps() { return {"", "v1", "configmaps", "ConfigMap", true}; }

asio::awaitable<void> sleep_ms(int ms) {
    asio::steady_timer t(co_await asio::this_coro::executor, std::chrono::milliseconds(ms));
    co_await t.async_wait(asio::use_awaitable);
}

asio::awaitable<void> smoke(Client& c) {
    // A fresh namespace per run: without a controller-manager a deleted one
    // stays Terminating forever.
    const std::string ns = "attune-runtime-smoke-" + std::to_string(std::time(nullptr));
    auto probes = co_await probe_all(c);
    check(probes.version.error.empty(), "GET /version -> " + probes.version.git_version + " " + probes.version.error);
    check(probes.resources.error.empty() && !probes.resources.core_v1_resources.empty(),
          "GET /api/v1 lists " + std::to_string(probes.resources.core_v1_resources.size()) + " resources");
    bool has_resize = false;
    for (auto& r : probes.resources.core_v1_resources) has_resize |= r == "pods/resize";
    std::printf("     pods/resize advertised: %s\n", has_resize ? "yes" : "no");
    check(probes.openapi.error.empty(), "OpenAPI v3 api/v1 fetched; PodSpec.resources=" +
                                            std::string(probes.openapi.pod_spec_has_resources ? "yes" : "no") + " " +
                                            probes.openapi.error);
    check(probes.nodes.error.empty(), "nodes listed: " + std::to_string(probes.nodes.nodes.size()));

    json::value nsobj = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}};
    auto created_ns = co_await c.create(resources::namespaces(), "", nsobj);
    check(created_ns.ok() || created_ns.error().is_already_exists(), "create namespace" + err(created_ns));

    // Informer on configmaps in the namespace, started before the writes.
    InformerOptions io;
    io.type = configmaps();
    io.namespace_ = ns;
    io.fsm.page_size = 2;
    io.fsm.watch_timeout_base = std::chrono::seconds(5);  // exercise server-side watch timeouts
    Informer inf(c, io);
    int added = 0, updated = 0, deleted = 0;
    inf.add_handler([&](const ObjectCache::Delta& d) {
        if (d.what == ObjectCache::Delta::Kind::Added) ++added;
        if (d.what == ObjectCache::Delta::Kind::Updated) ++updated;
        if (d.what == ObjectCache::Delta::Kind::Deleted) ++deleted;
    });
    asio::co_spawn(co_await asio::this_coro::executor, inf.run(), asio::detached);

    for (int i = 0; i < 5; ++i) {
        json::value cm = {{"apiVersion", "v1"},
                          {"kind", "ConfigMap"},
                          {"metadata", {{"name", "cm-" + std::to_string(i)}, {"labels", {{"smoke", "yes"}}}}},
                          {"data", {{"i", std::to_string(i)}}}};
        auto r = co_await c.create(configmaps(), ns, cm);
        check(r.ok(), "create configmap cm-" + std::to_string(i) + err(r));
    }
    ListOptions lo;
    lo.limit = 2;
    lo.label_selector = "smoke=yes";
    auto page = co_await c.list(configmaps(), ns, lo);
    check(page.ok() && page->items.size() == 2 && !page->continue_token.empty(), "list page of 2 with continue" + err(page));
    auto all = co_await c.list_all(configmaps(), ns, lo);
    check(all.ok() && all->items.size() == 5, "list_all follows continue: " + (all.ok() ? std::to_string(all->items.size()) : "") + err(all));

    auto got = co_await c.get(configmaps(), ns, "cm-0");
    check(got.ok(), "get cm-0" + err(got));
    auto merge = co_await c.patch(configmaps(), ns, "cm-0", PatchType::JsonMerge, R"({"data":{"merged":"1"}})");
    check(merge.ok(), "merge patch" + err(merge));
    auto strategic = co_await c.patch(configmaps(), ns, "cm-0", PatchType::StrategicMerge, R"({"data":{"smp":"1"}})");
    check(strategic.ok(), "strategic merge patch" + err(strategic));
    auto jp = co_await c.patch(configmaps(), ns, "cm-0", PatchType::JsonPatch,
                               R"([{"op":"add","path":"/data/jp","value":"1"}])");
    check(jp.ok(), "JSON patch" + err(jp));
    WriteOptions wo;
    wo.field_manager = "attune-smoke";
    wo.force = true;
    auto applied =
        co_await c.patch(configmaps(), ns, "cm-applied", PatchType::Apply,
                         R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-applied"},"data":{"a":"1"}})",
                         "", wo);
    check(applied.ok(), "server-side apply (create)" + err(applied));

    // Optimistic concurrency: an update with the stale resourceVersion is a 409.
    if (got.ok()) {
        json::value stale = got.value();
        stale.as_object()["data"].as_object()["stale"] = "1";
        auto conflict = co_await c.update(configmaps(), ns, "cm-0", stale);
        check(!conflict.ok() && conflict.error().is_conflict(),
              "stale update surfaces 409 " + (conflict.ok() ? std::string("(succeeded!)") : conflict.error().reason));
    }
    auto missing = co_await c.get(configmaps(), ns, "nope");
    check(!missing.ok() && missing.error().is_not_found(), "404 is typed NotFound");
    auto removed = co_await c.remove(configmaps(), ns, "cm-4");
    check(removed.ok(), "delete cm-4" + err(removed));

    // Let the informer see everything, including a server-side watch timeout.
    co_await sleep_ms(7000);
    check(inf.has_synced(), "informer synced");
    check(inf.cache().size() == 5, "informer cache holds 5 configmaps (has " + std::to_string(inf.cache().size()) + ")");
    check(added >= 6 && updated >= 3 && deleted >= 1,
          "informer handlers: added=" + std::to_string(added) + " updated=" + std::to_string(updated) +
              " deleted=" + std::to_string(deleted));
    auto cm0 = inf.cache().get(ns + "/cm-0");
    check(cm0 && cm0->at("data").as_object().contains("jp"), "cache has the JSON-patched cm-0");
    check(cm0 && !cm0->at("metadata").as_object().contains("managedFields"), "managedFields stripped");
    inf.stop();

    // Events: the second identical emit becomes a series patch.
    EventRecorder rec(c, "attune.io/smoke", "smoke-0", {std::chrono::seconds(360), std::chrono::seconds(0), 100});
    ObjectReference ref{"v1", "ConfigMap", ns, "cm-0", ""};
    co_await rec.emit(K8sEvent{ref, "Normal", "Smoke", "Check", "runtime smoke"});
    co_await rec.emit(K8sEvent{ref, "Normal", "Smoke", "Check", "runtime smoke"});
    ListOptions elo;
    auto evs = co_await c.list(resources::events(), ns, elo);
    bool series = false;
    if (evs.ok())
        for (auto& e : evs->items)
            if (auto* s = e.as_object().if_contains("series")) series |= s->at("count").as_int64() == 2;
    check(series, "event series.count == 2" + err(evs));

    // Leader election: acquire, then release cleanly.
    LeaderElector le(c, {ns, "smoke-lease", "smoke-0", std::chrono::seconds(15), std::chrono::seconds(10),
                         std::chrono::seconds(2)});
    co_await le.step();
    auto lease = co_await c.get(resources::leases(), ns, "smoke-lease");
    check(lease.ok() && lease->at("spec").at("holderIdentity").as_string() == "smoke-0", "lease acquired" + err(lease));
    co_await le.release();
    auto released = co_await c.get(resources::leases(), ns, "smoke-lease");
    check(released.ok() && released->at("spec").at("holderIdentity").as_string() == "" &&
              released->at("spec").at("leaseDurationSeconds").as_int64() == 1,
          "lease released (holder \"\", duration 1)" + err(released));

    // A burst of concurrent reads: against an apiserver started with a tiny
    // --max-requests-inflight this produces real 429s, which must all be
    // absorbed by the retry policy.
    {
        auto ex = co_await asio::this_coro::executor;
        const int n = 60;
        int done = 0, good = 0;
        for (int i = 0; i < n; ++i) {
            asio::co_spawn(ex, c.list(configmaps(), ns, ListOptions()), [&](std::exception_ptr, ApiResult<ListPage> r) {
                ++done;
                good += r.ok();
                if (!r.ok()) std::printf("     burst error: %s\n", r.error().describe().c_str());
            });
        }
        for (int i = 0; i < 600 && done < n; ++i) co_await sleep_ms(100);
        const double retried_429 = c.metrics().retries.Add({{"reason", "429"}}).Value();
        check(good == n, "burst of " + std::to_string(n) + " concurrent lists all succeeded (" + std::to_string(good) +
                             "), 429 retries: " + std::to_string(static_cast<int>(retried_429)));
    }

    auto del_ns = co_await c.remove(resources::namespaces(), "", ns);
    check(del_ns.ok(), "delete namespace" + err(del_ns));
}
}  // namespace

int main(int argc, char** argv) {
    std::string kubeconfig, context;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--kubeconfig")) kubeconfig = argv[i + 1];
        if (!std::strcmp(argv[i], "--context")) context = argv[i + 1];
    }
    spdlog::set_level(spdlog::level::warn);
    try {
        auto cfg = load_default_config(kubeconfig, context, false);
        asio::io_context io;
        ClientSettings s;
        s.qps = 200;
        s.burst = 200;
        s.max_inflight = 64;
        Client c(io.get_executor(), cfg, s);
        std::exception_ptr failed;
        asio::co_spawn(io, smoke(c), [&](std::exception_ptr e) {
            failed = e;
            c.shutdown();
            io.stop();
        });
        io.run();
        if (failed) std::rethrow_exception(failed);
    } catch (const std::exception& e) {
        std::printf("FAIL %s\n", e.what());
        return 2;
    }
    std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
