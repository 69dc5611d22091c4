// CPU cost of the executor's per-pod decision (decide_resize: plan_resize
// plus every gate) for all pods of 1,000 workloads x 10 pods after a
// recommendation change. Figures for bench/RESULTS.md; never a test.
//   build/bench/decide_resize_bench [workloads] [pods_per_workload] [rounds]
#include <boost/json/parse.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "attune/core/resize/resize_gates.hpp"

namespace core = attune::core;

namespace {

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

core::Pod make_pod(int w, int p) {
    // Two containers, a sidecar every third workload, an envelope every fifth.
    const int cpu = 200 + (w % 7) * 100;
    std::string spec = R"({"metadata":{"namespace":"ns","name":"w)" + std::to_string(w) + "-" + std::to_string(p) +
                       R"(","uid":"u)" + std::to_string(w * 100 + p) + R"("},"spec":{"nodeName":"n)" +
                       std::to_string(w % 50) + R"(",)";
    if (w % 5 == 0) spec += R"("resources":{"requests":{"cpu":"4","memory":"8Gi"},"limits":{"cpu":"8","memory":"16Gi"}},)";
    if (w % 3 == 0)
        spec += R"("initContainers":[{"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"50m","memory":"64Mi"}}}],)";
    spec += R"("containers":[{"name":"app","resources":{"requests":{"cpu":")" + std::to_string(cpu) +
            R"(m","memory":"512Mi"},"limits":{"memory":"1Gi"}}},{"name":"log","resources":{"requests":{"cpu":"20m","memory":"32Mi"}}}]},)"
            R"("status":{"phase":"Running","qosClass":"Burstable"}})";
    auto r = core::decode_pod(boost::json::parse(spec));
    if (!r.ok()) {
        std::fprintf(stderr, "bad bench pod: %s\n", r.error().message.c_str());
        std::exit(2);
    }
    return r.value();
}

}  // namespace

int main(int argc, char** argv) {
    const int workloads = argc > 1 ? std::atoi(argv[1]) : 1000;
    const int per = argc > 2 ? std::atoi(argv[2]) : 10;
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
    std::vector<core::Pod> pods;
    for (int w = 0; w < workloads; ++w)
        for (int p = 0; p < per; ++p) pods.push_back(make_pod(w, p));
    core::Capabilities caps;
    caps.major = 1;
    caps.minor = 36;
    caps.pods_resize = caps.in_place_pod_level_resources = caps.allow_in_place_memory_limit_decrease = true;
    caps.in_place_sidecar_resize = true;
    core::ResizeGateInputs g;
    g.cooldown = core::cooldown_state(std::chrono::hours(1), 0);
    g.schedule.windows.push_back(core::parse_schedule_window("00:00", "00:00").value());
    g.zone = core::time_zone_from_posix("UTC", core::parse_posix_tz("UTC0").value());
    g.max_concurrent_resizes = 50;
    g.max_total_cpu_increase = core::Quantity::from_value(1000);
    g.node = core::NodeFacts{"n", {{"cpu", core::Quantity::from_value(64)}, {"memory", core::Quantity::from_value(256LL << 30)}}, false, false, false};
    g.node_others_requests = {{"cpu", core::Quantity::from_value(8)}, {"memory", core::Quantity::from_value(16LL << 30)}};
    g.limit_ranges.push_back({"Container", {}, {{"cpu", core::Quantity::from_value(16)}}, {}});
    g.quotas.push_back({"q", {{"requests.cpu", core::Quantity::from_value(10000)}}, {{"requests.cpu", core::Quantity::from_value(10)}}});
    // Half the workloads shrink cpu and memory, half raise cpu and lower memory.
    std::vector<std::vector<core::ContainerTarget>> targets(pods.size());
    for (std::size_t i = 0; i < pods.size(); ++i) {
        const bool up = (i / static_cast<std::size_t>(per)) % 2 == 1;
        core::ContainerTarget t{"app", {}, std::nullopt};
        t.resources.requests.emplace("cpu", core::Quantity::from_milli(up ? 900 : 150));
        t.resources.requests.emplace("memory", core::Quantity::from_value(384LL << 20, core::Quantity::Format::BinarySI));
        targets[i].push_back(std::move(t));
    }
    std::vector<double> ms;
    std::size_t go = 0;
    for (int r = 0; r < rounds; ++r) {
        go = 0;
        const double t0 = cpu_seconds();
        for (std::size_t i = 0; i < pods.size(); ++i) {
            g.now = core::Timestamp(std::chrono::seconds(1'796'000'000 + static_cast<long long>(i)));
            const auto d = core::decide_resize(pods[i], targets[i], caps, core::ControlledValues::RequestsOnly, {}, g);
            go += std::holds_alternative<core::ResizeGo>(d);
        }
        ms.push_back((cpu_seconds() - t0) * 1e3);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("decide_resize: %zu pods (%d workloads x %d), %zu planned; CPU ms per pass: best %.1f, median %.1f over %d rounds\n",
                pods.size(), workloads, per, go, ms.front(), ms[ms.size() / 2], rounds);
    return 0;
}
