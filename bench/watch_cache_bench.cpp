// Runtime benchmarks (figures only, never asserted):
//  1. watch decode + cache apply: pod events/s on one core for ~10 KB pods,
//     the informer's exact path (line split, JSON decode, pod transform,
//     compact copy into the cache, index update);
//  2. cache bytes per pod after transforms with 10k pods, measured by a
//     counting global allocator.
#include <attune/kube/object_cache.hpp>
#include <attune/kube/transforms.hpp>
#include <attune/kube/watch_decoder.hpp>

#include <boost/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace {
std::atomic<long long> live_bytes{0};
constexpr std::size_t kHeader = alignof(std::max_align_t);

void* counted_alloc(std::size_t n) {
    auto* p = static_cast<char*>(std::malloc(n + kHeader));
    if (!p) throw std::bad_alloc();
    *reinterpret_cast<std::size_t*>(p) = n;
    live_bytes += static_cast<long long>(n);
    return p + kHeader;
}
void counted_free(void* q) noexcept {
    if (!q) return;
    auto* p = static_cast<char*>(q) - kHeader;
    live_bytes -= static_cast<long long>(*reinterpret_cast<std::size_t*>(p));
    std::free(p);
}
}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }

namespace {
namespace json = boost::json;
using attune::kube::ObjectCache;

// A pod shaped like a real Deployment-managed pod: long last-applied
// annotation, managedFields, env, probes, volumes, tolerations, statuses.
json::value make_pod(int i, int rv) {
    const std::string name = "web-7d9f8c6b5-" + std::to_string(100000 + i);
    json::array env;
    for (int e = 0; e < 24; ++e)
        env.push_back({{"name", "ENV_VAR_NUMBER_" + std::to_string(e)}, {"value", "value-of-environment-variable-" + std::to_string(e)}});
    json::array mounts;
    for (int m = 0; m < 6; ++m) mounts.push_back({{"name", "vol-" + std::to_string(m)}, {"mountPath", "/var/lib/app/data-" + std::to_string(m)}, {"readOnly", m % 2 == 0}});
    auto container = [&](const char* cname, const char* cpu) {
        return json::object{{"name", cname},
                            {"image", "registry.example.test/team/app:v1.27.3-20261101"},
                            {"imagePullPolicy", "IfNotPresent"},
                            {"command", json::array{"/bin/app", "--config=/etc/app/config.yaml", "--log-level=info"}},
                            {"ports", json::array{json::object{{"containerPort", 8080}, {"name", "http"}, {"protocol", "TCP"}}}},
                            {"env", env},
                            {"resources", {{"requests", {{"cpu", cpu}, {"memory", "256Mi"}}}, {"limits", {{"memory", "512Mi"}}}}},
                            {"resizePolicy", json::array{json::object{{"resourceName", "cpu"}, {"restartPolicy", "NotRequired"}},
                                                         json::object{{"resourceName", "memory"}, {"restartPolicy", "NotRequired"}}}},
                            {"livenessProbe", {{"httpGet", {{"path", "/healthz"}, {"port", 8080}, {"scheme", "HTTP"}}}, {"periodSeconds", 10}, {"timeoutSeconds", 1}}},
                            {"readinessProbe", {{"httpGet", {{"path", "/readyz"}, {"port", 8080}, {"scheme", "HTTP"}}}, {"periodSeconds", 5}}},
                            {"volumeMounts", mounts},
                            {"terminationMessagePath", "/dev/termination-log"},
                            {"terminationMessagePolicy", "File"}};
    };
    json::array volumes;
    for (int v = 0; v < 6; ++v) volumes.push_back({{"name", "vol-" + std::to_string(v)}, {"configMap", {{"name", "app-config-" + std::to_string(v)}, {"defaultMode", 420}}}});
    json::array managed;
    for (const char* mgr : {"kube-controller-manager", "kubelet"})
        managed.push_back({{"manager", mgr}, {"operation", "Update"}, {"apiVersion", "v1"}, {"time", "2026-11-29T10:00:00Z"},
                           {"fieldsType", "FieldsV1"}, {"fieldsV1", {{"f:metadata", {{"f:labels", {{"f:app", json::object{}}, {"f:pod-template-hash", json::object{}}}}}},
                                                                     {"f:spec", {{"f:containers", {{"k:{\"name\":\"app\"}", {{"f:image", json::object{}}, {"f:env", json::object{}}, {"f:resources", json::object{}}}}}}}},
                                                                     {"f:status", {{"f:conditions", json::object{}}, {"f:containerStatuses", json::object{}}, {"f:podIP", json::object{}}}}}}});
    json::array conds;
    for (const char* t : {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"})
        conds.push_back({{"type", t}, {"status", "True"}, {"lastProbeTime", nullptr}, {"lastTransitionTime", "2026-11-29T10:00:00Z"}, {"observedGeneration", 1}});
    auto cstatus = [&](const char* cname) {
        return json::object{{"name", cname}, {"ready", true}, {"restartCount", 0}, {"started", true},
                            {"image", "registry.example.test/team/app:v1.27.3-20261101"},
                            {"imageID", "registry.example.test/team/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
                            {"containerID", "containerd://fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"},
                            {"state", {{"running", {{"startedAt", "2026-11-29T10:00:01Z"}}}}},
                            {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "256Mi"}}}, {"limits", {{"memory", "512Mi"}}}}},
                            {"allocatedResources", {{"cpu", "100m"}, {"memory", "256Mi"}}}};
    };
    return {{"kind", "Pod"},
            {"apiVersion", "v1"},
            {"metadata",
             {{"name", name},
              {"generateName", "web-7d9f8c6b5-"},
              {"namespace", "shop-" + std::to_string(i % 50)},
              {"uid", "3f2b1c4d-5e6f-4a7b-8c9d-" + std::to_string(100000000000LL + i)},
              {"resourceVersion", std::to_string(rv)},
              {"generation", 1},
              {"creationTimestamp", "2026-11-29T10:00:00Z"},
              {"labels", {{"app", "web"}, {"pod-template-hash", "7d9f8c6b5"}, {"team", "storefront"}}},
              {"annotations", {{"kubectl.kubernetes.io/restartedAt", "2026-11-28T09:00:00Z"}, {"prometheus.io/scrape", "true"}}},
              {"ownerReferences", json::array{json::object{{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"name", "web-7d9f8c6b5"},
                                                            {"uid", "rs-" + std::to_string(i % 200)}, {"controller", true}, {"blockOwnerDeletion", true}}}},
              {"managedFields", managed}}},
            {"spec",
             {{"containers", json::array{container("app", "100m"), container("sidecar", "50m")}},
              {"volumes", volumes},
              {"restartPolicy", "Always"},
              {"terminationGracePeriodSeconds", 30},
              {"dnsPolicy", "ClusterFirst"},
              {"serviceAccountName", "web"},
              {"nodeName", "node-" + std::to_string(i % 100)},
              {"securityContext", {{"runAsNonRoot", true}, {"fsGroup", 2000}}},
              {"schedulerName", "default-scheduler"},
              {"tolerations", json::array{json::object{{"key", "node.kubernetes.io/not-ready"}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 300}},
                                          json::object{{"key", "node.kubernetes.io/unreachable"}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 300}}}},
              {"priority", 0},
              {"enableServiceLinks", true},
              {"preemptionPolicy", "PreemptLowerPriority"}}},
            {"status",
             {{"phase", "Running"},
              {"conditions", conds},
              {"hostIP", "10.0.0." + std::to_string(i % 250)},
              {"podIP", "10.244." + std::to_string(i % 250) + ".7"},
              {"podIPs", json::array{json::object{{"ip", "10.244.1.7"}}}},
              {"startTime", "2026-11-29T10:00:00Z"},
              {"qosClass", "Burstable"},
              {"observedGeneration", 1},
              {"containerStatuses", json::array{cstatus("app"), cstatus("sidecar")}}}}};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
    const int pods = argc > 1 ? std::atoi(argv[1]) : 10'000;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;

    // The stream, pre-serialised: rounds x pods MODIFIED events (ADDED first).
    std::vector<std::string> chunks;
    std::size_t bytes = 0, events = 0, sample_size = 0;
    for (int r = 0; r < rounds; ++r) {
        std::string chunk;
        for (int i = 0; i < pods; ++i) {
            json::object ev{{"type", r == 0 ? "ADDED" : "MODIFIED"}, {"object", make_pod(i, 1000 + r * pods + i)}};
            auto line = json::serialize(ev);
            if (sample_size == 0) sample_size = line.size();
            chunk += line;
            chunk += '\n';
            ++events;
        }
        bytes += chunk.size();
        chunks.push_back(std::move(chunk));
    }
    std::printf("pod event JSON: %zu bytes each (first); %zu events, %.1f MiB total\n", sample_size, events,
                static_cast<double>(bytes) / (1 << 20));

    auto run = [&](attune::kube::CacheStorage storage, const char* label) {
        const long long before_cache = live_bytes.load();
        auto cache = std::make_unique<ObjectCache>(attune::kube::strip_pod, storage);
        timespec c0{}, c1{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        const auto t0 = std::chrono::steady_clock::now();
        for (auto& chunk : chunks) {
            attune::kube::WatchLineSplitter splitter;
            // Fed in 64 KiB reads, as the informer does.
            std::string_view rest(chunk);
            while (!rest.empty()) {
                auto piece = rest.substr(0, 64 * 1024);
                rest.remove_prefix(piece.size());
                splitter.feed(piece, [&](std::string_view line) {
                    auto d = attune::kube::decode_watch_line(line);
                    if (auto* ev = std::get_if<attune::kube::WatchEvent>(&d))
                        cache->apply(ev->type, std::move(ev->object));
                });
            }
        }
        const double wall = seconds_since(t0);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
        const double cpu = static_cast<double>(c1.tv_sec - c0.tv_sec) + static_cast<double>(c1.tv_nsec - c0.tv_nsec) / 1e9;
        const long long cache_bytes = live_bytes.load() - before_cache;
        std::printf("[%s] decode + transform + cache apply: %.0f events/s per CPU-second (%.0f/s wall), %.1f MiB/s\n",
                    label, static_cast<double>(events) / cpu, static_cast<double>(events) / wall,
                    static_cast<double>(bytes) / (1 << 20) / cpu);
        std::printf("[%s] cache after %d pods: %.0f bytes/pod of heap (objects + keys + indexes)\n", label, pods,
                    static_cast<double>(cache_bytes) / pods);
        return cache;
    };
    run(attune::kube::CacheStorage::CompactText, "compact_text");
    auto cache = run(attune::kube::CacheStorage::Tree, "tree");
    ObjectCache& tree_cache = *cache;

    // How much of that is the JSON trees themselves.
    {
        struct Counting final : json::memory_resource {
            std::size_t bytes = 0;
            void* do_allocate(std::size_t n, std::size_t a) override {
                bytes += n;
                return ::operator new(n, std::align_val_t(a));
            }
            void do_deallocate(void* p, std::size_t /*n*/, std::size_t a) override {
                ::operator delete(p, std::align_val_t(a));  // unsized: clang builds it without -fsized-deallocation
            }
            bool do_is_equal(const json::memory_resource& o) const noexcept override { return this == &o; }
        } c;
        std::size_t n = 0;
        for (const auto& o : tree_cache.all()) {
            json::value copy(*o, &c);
            if (++n == 100) break;
        }
        std::printf("  of which JSON tree: %.0f bytes/pod (default allocator layout)\n", static_cast<double>(c.bytes) / n);
    }
    // The transformed object alone, as JSON text, for reference.
    json::value one = make_pod(0, 1);
    attune::kube::strip_pod(one.as_object());
    std::printf("transformed pod serialised: %zu bytes\n", json::serialize(one).size());
    if (std::getenv("ATTUNE_BENCH_DUMP")) std::printf("%s\n", json::serialize(one).c_str());
    std::printf("objects in cache: %zu\n", tree_cache.size());
    return 0;
}
