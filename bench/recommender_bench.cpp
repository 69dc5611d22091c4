// Recommender benchmark (figures only, never asserted): recommendations for
// W workloads x 3 containers from 7 days of 5-minute samples (2,016 per
// series, cpu and memory), through recommend_workload, in CPU time of this
// process. The samples are generated before the clock starts: a daily cycle,
// noise and rare spikes (so the burst path and the hour buckets both work).
//
//   build/bench/recommender_bench [WORKLOADS=1000] [ROUNDS=5]
#include <attune/core/recommend/recommender.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

namespace core = attune::core;

namespace {

constexpr int kContainers = 3;
constexpr int kSamples = 7 * 24 * 12;  // 2,016
constexpr double kStart = 1767225600;  // 2026-01-01T00:00:00Z

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Uniform in [0, 1) from the raw engine output (the std distributions are
// implementation-defined; this keeps the data identical everywhere).
double unit(std::mt19937_64& e) { return static_cast<double>(e() >> 11) / 9007199254740992.0; }

std::vector<core::UsageSample> series(std::mt19937_64& e, double base, double amplitude) {
    std::vector<core::UsageSample> s(kSamples);
    const double phase = unit(e) * 6.283185307179586;
    for (int i = 0; i < kSamples; ++i) {
        const double t = kStart + i * 300.0;
        double v = base * (1 + amplitude * std::sin(t / 86400 * 6.283185307179586 + phase)) * (0.9 + 0.2 * unit(e));
        if (unit(e) < 0.002) v *= 6;  // a rare spike
        s[static_cast<std::size_t>(i)] = {t, v};
    }
    return s;
}

struct Workload {
    std::vector<std::vector<core::UsageSample>> cpu, memory;
    std::vector<core::ResourceRequirements> current;
};

}  // namespace

int main(int argc, char** argv) {
    const int workloads = argc > 1 ? std::atoi(argv[1]) : 1000;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
    std::mt19937_64 e(20261201);
    std::vector<Workload> data(static_cast<std::size_t>(workloads));
    for (auto& w : data) {
        for (int c = 0; c < kContainers; ++c) {
            w.cpu.push_back(series(e, 0.05 + unit(e), 0.5));
            w.memory.push_back(series(e, (64 + unit(e) * 1024) * 1048576.0, 0.1));
            core::ResourceRequirements rr;
            rr.requests.emplace("cpu", core::Quantity::from_milli(500));
            rr.requests.emplace("memory", core::Quantity::from_value(512ll << 20, core::Quantity::Format::BinarySI));
            w.current.push_back(std::move(rr));
        }
    }
    const core::RecommenderSettings settings;
    const double now = kStart + kSamples * 300.0;
    std::vector<double> times;
    std::size_t recommended = 0;
    for (int r = 0; r < rounds; ++r) {
        recommended = 0;
        const double t0 = cpu_seconds();
        for (const auto& w : data) {
            core::ContainerUsage usage[kContainers];
            for (int c = 0; c < kContainers; ++c)
                usage[c] = core::ContainerUsage{"c" + std::to_string(c), w.cpu[static_cast<std::size_t>(c)],
                                                w.memory[static_cast<std::size_t>(c)], w.current[static_cast<std::size_t>(c)]};
            const auto out = core::recommend_workload(usage, settings, now, 300);
            recommended += out.containers.size();
        }
        times.push_back(cpu_seconds() - t0);
    }
    std::sort(times.begin(), times.end());
    std::printf("recommender: %d workloads x %d containers x %d samples (cpu + memory), %zu recommended\n", workloads,
                kContainers, kSamples, recommended);
    std::printf("  cpu time per pass: min %.1f ms, median %.1f ms, max %.1f ms (%d rounds)\n", times.front() * 1e3,
                times[times.size() / 2] * 1e3, times.back() * 1e3, rounds);
    std::printf("  per container: %.1f us\n", times[times.size() / 2] * 1e6 / (workloads * kContainers));
    return 0;
}
