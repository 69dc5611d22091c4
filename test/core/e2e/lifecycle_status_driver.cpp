// Driver for e2e/tests/62_lifecycle_schema_fragment.sh: prints
// {"lifecycle": ...} as the core's encoder writes status.lifecycle, with
// every field set and every bound reached (100 pods, 20 failed revisions,
// a 1024-byte message), so the test can check that the CRD schema fragment
// in docs/lifecycle.md accepts it and prunes nothing.
#include <boost/json.hpp>
#include <iostream>

#include "attune/core/lifecycle_status.hpp"

using namespace attune::core;

namespace {

ResourceList list(std::initializer_list<std::pair<const char*, const char*>> kv) {
    ResourceList l;
    for (const auto& [k, v] : kv) l.emplace(k, Quantity::parse(v).value());
    return l;
}

}  // namespace

int main() {
    using namespace std::chrono;
    const Timestamp t0{sys_days{year{2026} / 12 / 1} + hours{10}};
    LifecycleStatusEntry full;
    full.workload = "web";
    full.kind = "Deployment";
    full.phase = LifecyclePhase::Failed;
    full.current_revision = "rev-3f2a9c1e7b4d0001";
    full.validated_revision = "rev-3f2a9c1e7b4d0000";
    for (int i = 0; i < 25; ++i) add_failed_revision(full.failed_revisions, "rev-00000000000000" + std::to_string(10 + i));
    full.step = 2;
    full.step_started_at = t0;
    full.baseline = {{"app", {list({{"cpu", "500m"}, {"memory", "256Mi"}}), list({{"cpu", "1"}, {"memory", "512Mi"}})}},
                     {"proxy", {list({{"cpu", "50m"}}), {}}}};
    full.candidate = {{"app", {list({{"cpu", "200m"}, {"memory", "192Mi"}}), list({{"cpu", "1"}, {"memory", "512Mi"}})}},
                      {"proxy", {list({{"cpu", "50m"}}), {}}}};
    for (int i = 0; i < 100; ++i)
        full.pods.push_back({"web-" + std::to_string(i), "uid-" + std::to_string(i),
                             static_cast<ResizeState>(i % 5), t0 + seconds{i}});
    full.handled_revalidation_token = "t1";
    full.message = std::string(1100, 'm');
    full.attempt_started_at = t0 - minutes{20};
    full.step_applied_at = t0 + seconds{50};
    full.step_ready_at = t0 + seconds{55};
    full.source = RecommendationSource::Vpa;
    full.last_analysis = LifecycleAnalysisStatus{2, false, "throttled above 25.0% of CFS periods: web-0 60.0%", t0 + minutes{6}};
    full.attempt = 3;

    LifecycleStatusEntry minimal;
    minimal.workload = "db";
    minimal.kind = "StatefulSet";
    minimal.phase = LifecyclePhase::ValidationRunning;
    minimal.current_revision = "rev-0000000000000000";

    std::cout << boost::json::serialize(boost::json::object{{"lifecycle", encode_lifecycle_status({full, minimal})}}) << "\n";
}
