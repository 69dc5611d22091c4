// The admission webhook under load, on loopback TLS with keep-alive: CREATE
// reviews of realistic pods (two containers, env, probes, volumes,
// tolerations: about 4 KiB each) against the real server and handler.
//
//   webhook_bench rate  RPS SECONDS [CONNS]   open loop at a fixed rate; latency
//                                             counted from each request's
//                                             scheduled time (no coordinated omission)
//   webhook_bench max   SECONDS [CONNS]       closed loop: the most reviews/s
//   webhook_bench soak  RPS SECONDS [CONNS]   the rate run, printing heap in use
//                                             (mallinfo2) and RSS every 10 s
//   any mode + --target HOST:PORT --ca FILE --namespace NS --replicaset RS --hash H
//                                             drive a running attune-manager
//                                             instead of the in-process server
//
// In process, the server (HttpsServer + AdmissionHandler over caches
// holding 200 namespaces, 1,000 Deployments/ReplicaSets and 1,000 policies
// with recommendations) runs on its own thread pinned to CPU 0, the load
// generator on CPU 1: "one core" is the server's. Figures, not assertions
// (bench/RESULTS.md).
#include <attune/http/https_server.hpp>
#include <attune/policy/cache_views.hpp>
#include <attune/webhook/admission_handler.hpp>
#include <attune/webhook/pki.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/json.hpp>

#include <malloc.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace json = boost::json;
using namespace attune;
using ClockType = std::chrono::steady_clock;

namespace {

void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

long rss_kib() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return 0;
}

struct Target {
    std::string ns = "shop-0";
    std::string replicaset = "web-0-7d9f6c";
    std::string hash = "7d9f6c";
};

// A pod as the ReplicaSet controller sends it for admission.
std::string review(const Target& t, int i) {
    json::object pod = json::parse(R"({
      "apiVersion": "v1", "kind": "Pod",
      "metadata": {"generateName": "", "namespace": "", "labels": {"app": "web", "tier": "frontend", "pod-template-hash": ""},
        "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "9090", "kubectl.kubernetes.io/restartedAt": "2026-11-30T09:00:00Z"},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "", "uid": "6a1f0c9e-3b1d-4c35-9d0e-2f8b7a6c5d4e", "controller": true, "blockOwnerDeletion": true}]},
      "spec": {
        "volumes": [{"name": "config", "configMap": {"name": "web-config", "defaultMode": 420}},
                    {"name": "kube-api-access-x7k2p", "projected": {"defaultMode": 420, "sources": [
                      {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                      {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                      {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}}],
        "containers": [
          {"name": "app", "image": "registry.example/web:1.42.0", "imagePullPolicy": "IfNotPresent",
           "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}, {"name": "metrics", "containerPort": 9090, "protocol": "TCP"}],
           "env": [{"name": "LOG_LEVEL", "value": "info"}, {"name": "DB_HOST", "value": "postgres.shop.svc"},
                   {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
                   {"name": "GOMAXPROCS", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1"}}}],
           "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "2Gi"}},
           "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080, "scheme": "HTTP"}, "periodSeconds": 5, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3},
           "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"}, "initialDelaySeconds": 10, "periodSeconds": 10, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3},
           "volumeMounts": [{"name": "config", "mountPath": "/etc/web"}, {"name": "kube-api-access-x7k2p", "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
           "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"},
          {"name": "log-shipper", "image": "registry.example/shipper:3.1", "imagePullPolicy": "IfNotPresent",
           "args": ["--input=/var/log/app", "--output=stdout"],
           "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}},
           "volumeMounts": [{"name": "kube-api-access-x7k2p", "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
           "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}],
        "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
        "serviceAccountName": "default", "serviceAccount": "default", "securityContext": {"runAsNonRoot": true},
        "schedulerName": "default-scheduler", "enableServiceLinks": true, "preemptionPolicy": "PreemptLowerPriority", "priority": 0,
        "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]}})")
                         .as_object();
    auto& md = pod["metadata"].as_object();
    md["generateName"] = t.replicaset + "-";
    md["namespace"] = t.ns;
    md["labels"].as_object()["pod-template-hash"] = t.hash;
    md["ownerReferences"].as_array()[0].as_object()["name"] = t.replicaset;
    json::object req{{"uid", "b3f6c0de-0000-4000-8000-" + std::to_string(100000000000 + i)},
                     {"kind", json::object{{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                     {"resource", json::object{{"group", ""}, {"version", "v1"}, {"resource", "pods"}}},
                     {"requestKind", json::object{{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                     {"namespace", t.ns},
                     {"operation", "CREATE"},
                     {"userInfo", json::object{{"username", "system:serviceaccount:kube-system:replicaset-controller"},
                                               {"uid", "0d4a1c2e"},
                                               {"groups", json::array{"system:serviceaccounts", "system:authenticated"}}}},
                     {"object", pod},
                     {"oldObject", nullptr},
                     {"dryRun", false},
                     {"options", json::object{{"kind", "CreateOptions"}, {"apiVersion", "meta.k8s.io/v1"}}}};
    json::object root{{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", std::move(req)}};
    return json::serialize(root);
}

// The in-process server's world: caches as the manager's informers hold them.
struct World {
    static constexpr auto kText = kube::CacheStorage::CompactText;
    kube::ObjectCache namespaces{kube::strip_namespace, kText}, policies{kube::strip_generic, kText},
        deployments{kube::strip_workload, kText}, statefulsets{kube::strip_workload, kText},
        daemonsets{kube::strip_workload, kText}, replicasets{kube::strip_replicaset, kText},
        jobs{kube::strip_workload, kText}, cronjobs{kube::strip_workload, kText};
    core::Capabilities caps;

    World() {
        caps.pod_level_resources_field = true;
        policy::index_policies(policies);
        int rv = 1;
        auto add = [&](kube::ObjectCache& c, json::value v) {
            v.as_object()["metadata"].as_object()["resourceVersion"] = std::to_string(++rv);
            c.apply(kube::WatchEventType::Added, std::move(v));
        };
        for (int n = 0; n < 200; ++n) {
            const std::string ns = "shop-" + std::to_string(n);
            add(namespaces, json::parse(R"({"metadata":{"name":")" + ns +
                                        R"(","labels":{"attune.io/initial-sizing":"enabled","kubernetes.io/metadata.name":")" + ns + R"("}}})"));
            for (int w = 0; w < 5; ++w) {
                const std::string name = "web-" + std::to_string(w);
                add(deployments, json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")" + name +
                                             R"(","namespace":")" + ns + R"(","uid":"d-)" + ns + name +
                                             R"(","labels":{"app":"web"}},"spec":{"replicas":3}})"));
                add(replicasets, json::parse(R"({"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":")" + name +
                                             R"(-7d9f6c","namespace":")" + ns + R"(","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":")" +
                                             name + R"(","uid":"d","controller":true}]}})"));
                add(policies, json::parse(R"({"apiVersion":"attune.io/v1alpha1","kind":"AttunePolicy","metadata":{"name":")" + name +
                                          R"(","namespace":")" + ns + R"(","uid":"p-)" + ns + name + R"("},
                  "spec":{"targetRef":{"kind":"Deployment","name":")" + name + R"("},
                    "metricsSource":{"prometheus":{"address":"http://prometheus.monitoring:9090"}},
                    "cpu":{"startupBoost":{"multiplier":"1.5","duration":"2m"}},"memory":{"controlledValues":"RequestsAndLimits"},
                    "updateStrategy":{"type":"Auto","initialSizing":true}},
                  "status":{"recommendations":[{"workload":")" + name + R"(","kind":"Deployment","stale":false,"lastDataTime":"2026-12-01T10:00:00Z",
                    "containers":[
                      {"name":"app","confidence":0.92,"dataPoints":2016,"lastUpdated":"2026-12-01T10:00:00Z",
                       "current":{"cpuRequest":"1","cpuLimit":"2","memoryRequest":"1Gi","memoryLimit":"2Gi"},
                       "recommended":{"cpuRequest":"320m","cpuLimit":"0","memoryRequest":"410Mi","memoryLimit":"820Mi"}},
                      {"name":"log-shipper","confidence":0.88,"dataPoints":2016,"lastUpdated":"2026-12-01T10:00:00Z",
                       "current":{"cpuRequest":"50m","cpuLimit":"0","memoryRequest":"64Mi","memoryLimit":"128Mi"},
                       "recommended":{"cpuRequest":"20m","cpuLimit":"0","memoryRequest":"40Mi","memoryLimit":"80Mi"}}]}]}})"));
            }
        }
    }

    webhook::AdmissionCaches caches() {
        webhook::AdmissionCaches c;
        c.namespaces = &namespaces;
        c.views.policies = &policies;
        c.views.deployments = &deployments;
        c.views.statefulsets = &statefulsets;
        c.views.daemonsets = &daemonsets;
        c.views.replicasets = &replicasets;
        c.views.jobs = &jobs;
        c.views.cronjobs = &cronjobs;
        return c;
    }
};

struct RunStats {
    std::vector<double> latency_us;
    std::uint64_t errors = 0;
    std::uint64_t unsized = 0;
    std::size_t answered = 0;
};

struct Load {
    std::string host, port;
    std::string ca_pem;
    std::vector<std::string> bodies;  // rotated through
    bool open_loop = true;
    double rate = 0;
    double seconds = 0;
    int connections = 16;
};

asio::awaitable<void> connection(const Load& l, asio::ssl::context& ctx, ClockType::time_point start,
                                 std::atomic<std::uint64_t>& next, std::uint64_t total, RunStats& st) {
    auto ex = co_await asio::this_coro::executor;
    beast::ssl_stream<beast::tcp_stream> s(ex, ctx);
    asio::ip::tcp::resolver r(ex);
    auto [rec, eps] = co_await r.async_resolve(l.host, l.port, asio::as_tuple(asio::use_awaitable));
    if (rec) {
        ++st.errors;
        co_return;
    }
    auto [cec, ep] = co_await beast::get_lowest_layer(s).async_connect(eps, asio::as_tuple(asio::use_awaitable));
    if (cec) {
        ++st.errors;
        co_return;
    }
    beast::get_lowest_layer(s).socket().set_option(asio::ip::tcp::no_delay(true));
    auto [hec] = co_await s.async_handshake(asio::ssl::stream_base::client, asio::as_tuple(asio::use_awaitable));
    if (hec) {
        std::fprintf(stderr, "handshake: %s\n", hec.message().c_str());
        ++st.errors;
        co_return;
    }
    asio::steady_timer timer(ex);
    beast::flat_buffer buf;
    const auto interval = l.open_loop ? std::chrono::duration<double>(1.0 / l.rate) : std::chrono::duration<double>(0);
    const auto deadline =
        start + std::chrono::duration_cast<ClockType::duration>(std::chrono::duration<double>(l.seconds));
    for (;;) {
        const std::uint64_t i = next++;
        ClockType::time_point scheduled;
        if (l.open_loop) {
            if (i >= total) break;
            scheduled = start + std::chrono::duration_cast<ClockType::duration>(interval * static_cast<double>(i));
            if (ClockType::now() < scheduled) {
                timer.expires_at(scheduled);
                co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
            }
        } else {
            scheduled = ClockType::now();
            if (scheduled >= deadline) break;
        }
        bhttp::request<bhttp::string_body> req{bhttp::verb::post, "/mutate-v1-pod", 11};
        req.set(bhttp::field::host, l.host);
        req.set(bhttp::field::content_type, "application/json");
        req.keep_alive(true);
        req.body() = l.bodies[i % l.bodies.size()];
        req.prepare_payload();
        auto [wec, wn] = co_await bhttp::async_write(s, req, asio::as_tuple(asio::use_awaitable));
        bhttp::response<bhttp::string_body> res;
        auto [rec2, rn] = co_await bhttp::async_read(s, buf, res, asio::as_tuple(asio::use_awaitable));
        const auto done = ClockType::now();
        if (wec || rec2 || res.result_int() != 200) {
            ++st.errors;
            break;
        }
        if (res.body().find("\"patch\"") == std::string::npos) ++st.unsized;
        st.latency_us.push_back(std::chrono::duration<double, std::micro>(done - scheduled).count());
    }
}

RunStats drive(const Load& l) {
    pin(1);
    asio::io_context io(1);
    asio::ssl::context ctx(asio::ssl::context::tls_client);
    ctx.add_certificate_authority(asio::buffer(l.ca_pem));
    ctx.set_verify_mode(asio::ssl::verify_peer);
    RunStats st;
    st.latency_us.reserve(static_cast<std::size_t>(l.open_loop ? l.rate * l.seconds : 200000 * l.seconds) + 16);
    std::atomic<std::uint64_t> next{0};
    const auto total = static_cast<std::uint64_t>(l.rate * l.seconds);
    const auto start = ClockType::now() + std::chrono::milliseconds(200);  // connections handshake first
    for (int c = 0; c < l.connections; ++c)
        asio::co_spawn(io, connection(l, ctx, start, next, total, st), asio::detached);
    io.run();
    return st;
}

double pct(std::vector<double>& v, double p) {
    if (v.empty()) return 0;
    const auto k = static_cast<std::size_t>(std::min<double>(v.size() - 1, p / 100.0 * static_cast<double>(v.size())));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
}

void report(const char* what, RunStats& st, double seconds) {
    const std::size_t n = st.latency_us.size();
    const double mx = n ? *std::max_element(st.latency_us.begin(), st.latency_us.end()) : 0;
    const double p50 = pct(st.latency_us, 50), p99 = pct(st.latency_us, 99), p999 = pct(st.latency_us, 99.9);
    std::printf("%s: %zu reviews in %.0f s = %.0f/s  p50 %.3f ms  p99 %.3f ms  p99.9 %.3f ms  max %.3f ms  errors %llu  unsized %llu\n",
                what, n, seconds, static_cast<double>(n) / seconds, p50 / 1000, p99 / 1000, p999 / 1000, mx / 1000,
                static_cast<unsigned long long>(st.errors), static_cast<unsigned long long>(st.unsized));
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    std::string mode = args.empty() ? "rate" : args[0];
    Load l;
    Target t;
    std::string target_addr, ca_file;
    std::vector<std::string> pos;
    for (std::size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "--target" && i + 1 < args.size()) target_addr = args[++i];
        else if (args[i] == "--ca" && i + 1 < args.size()) ca_file = args[++i];
        else if (args[i] == "--namespace" && i + 1 < args.size()) t.ns = args[++i];
        else if (args[i] == "--replicaset" && i + 1 < args.size()) t.replicaset = args[++i];
        else if (args[i] == "--hash" && i + 1 < args.size()) t.hash = args[++i];
        else pos.push_back(args[i]);
    }
    if (mode == "max") {
        l.open_loop = false;
        l.seconds = pos.size() > 0 ? std::stod(pos[0]) : 20;
        l.connections = pos.size() > 1 ? std::stoi(pos[1]) : 16;
    } else if (mode == "rate" || mode == "soak") {
        l.rate = pos.size() > 0 ? std::stod(pos[0]) : 2000;
        l.seconds = pos.size() > 1 ? std::stod(pos[1]) : 20;
        l.connections = pos.size() > 2 ? std::stoi(pos[2]) : 16;
    } else if (mode == "handler") {
        // The handler alone, no TLS or HTTP: CPU time per review on this thread.
        const int n = pos.size() > 0 ? std::stoi(pos[0]) : 20000;
        World wd;
        auto m = webhook::WebhookMetrics::standalone();
        webhook::AdmissionOptions ao;
        webhook::AdmissionHandler h(wd.caches(), ao, &wd.caps, *m);
        std::vector<std::string> bodies;
        for (int i = 0; i < 64; ++i) bodies.push_back(review(t, i));
        http::ServerRequest r;
        r.method = "POST";
        r.target = "/mutate-v1-pod";
        std::size_t patched = 0;
        timespec c0{}, c1{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        for (int i = 0; i < n; ++i) {
            r.body = bodies[static_cast<std::size_t>(i) % bodies.size()];
            patched += h.handle(r).body.find("\"patch\"") != std::string::npos;
        }
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
        const double cpu = static_cast<double>(c1.tv_sec - c0.tv_sec) + static_cast<double>(c1.tv_nsec - c0.tv_nsec) / 1e9;
        std::printf("handler: %d reviews, %zu patched, %.1f us CPU per review (%.0f reviews per CPU-second)\n", n,
                    patched, cpu / n * 1e6, n / cpu);
        return 0;
    } else {
        std::fprintf(stderr, "usage: webhook_bench rate RPS SECONDS [CONNS] | max SECONDS [CONNS] | soak RPS SECONDS [CONNS] | handler N\n");
        return 2;
    }
    for (int i = 0; i < 64; ++i) l.bodies.push_back(review(t, i));
    std::printf("review body %zu bytes; %d keep-alive TLS connections\n", l.bodies[0].size(), l.connections);

    std::unique_ptr<World> w;
    std::unique_ptr<asio::io_context> server_io;
    std::unique_ptr<webhook::AdmissionHandler> handler;
    std::unique_ptr<http::HttpsServer> server;
    std::shared_ptr<webhook::WebhookMetrics> metrics = webhook::WebhookMetrics::standalone();
    std::thread server_thread;
    double server_cpu = 0;  // the server thread's CPU seconds, measured on that thread
    if (target_addr.empty()) {
        w = std::make_unique<World>();
        const auto now = static_cast<std::int64_t>(std::time(nullptr));
        const auto ca = webhook::generate_ca("bench-ca", now - 60, now + 86400);
        webhook::ServingNames names;
        names.ips = {"127.0.0.1"};
        const auto srv = webhook::issue_serving_certificate(ca, names, now - 60, now + 86400);
        l.ca_pem = ca.cert_pem;
        server_io = std::make_unique<asio::io_context>(1);
        webhook::AdmissionOptions ao;
        ao.operator_namespace = "attune-system";
        handler = std::make_unique<webhook::AdmissionHandler>(w->caches(), ao, &w->caps, *metrics);
        http::ServerOptions so;
        so.max_connections = 1024;
        server = std::make_unique<http::HttpsServer>(
            server_io->get_executor(), [&](const http::ServerRequest& r) { return handler->handle(r); }, so);
        server->set_certificate(srv.cert_pem, srv.key_pem);
        server->listen("127.0.0.1", "0");
        l.host = "127.0.0.1";
        l.port = std::to_string(server->port());
        asio::co_spawn(*server_io, server->run(), asio::detached);
        server_thread = std::thread([&] {
            pin(0);
            server_io->run();
            timespec c{};
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
            server_cpu = static_cast<double>(c.tv_sec) + static_cast<double>(c.tv_nsec) / 1e9;
        });
    } else {
        l.host = target_addr.substr(0, target_addr.rfind(':'));
        l.port = target_addr.substr(target_addr.rfind(':') + 1);
        std::ifstream f(ca_file);
        l.ca_pem.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    }

    if (mode == "soak") {
        // Heap in use and RSS every 10 s while the load runs (in process:
        // server and generator share the heap).
        std::atomic<bool> done{false};
        std::thread sampler([&] {
            const auto t0 = ClockType::now();
            while (!done) {
                const auto mi = mallinfo2();
                std::printf("  t=%3.0fs heap_in_use=%zu KiB rss=%ld KiB\n",
                            std::chrono::duration<double>(ClockType::now() - t0).count(), mi.uordblks / 1024,
                            rss_kib());
                std::fflush(stdout);
                for (int i = 0; i < 100 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
        });
        auto st = drive(l);
        done = true;
        sampler.join();
        report("soak", st, l.seconds);
    } else {
        const auto t0 = ClockType::now();
        auto st = drive(l);
        const double secs =
            l.open_loop ? l.seconds : std::chrono::duration<double>(ClockType::now() - t0).count() - 0.2;
        report(mode.c_str(), st, secs);
    }
    if (server) {
        const auto reviews = metrics->admissions.Collect();
        double n = 0;
        for (const auto& f : reviews)
            for (const auto& m : f.metric) n += m.counter.value;
        server->stop();
        server_io->stop();
        server_thread.join();
        std::printf("server thread: %.2f CPU-s for %.0f reviews = %.0f us per review, %.0f reviews per CPU-second\n",
                    server_cpu, n, server_cpu / n * 1e6, n / server_cpu);
    }
    return 0;
}
