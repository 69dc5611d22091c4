// Driver for e2e/tests/62_lifecycle_schema_fragment.sh: prints
// {"lifecycle": ...} as the core's encoder writes status.lifecycle, with
// every field set and every bound reached (100 pods, 20 failed revisions,
// a 1024-byte message), so the test can check that the CRD schema fragment
// in docs/lifecycle.md accepts it and prunes nothing.
#include <boost/json.hpp>
#include <iostream>

#include "attune/core/lifecycle/lifecycle_status.hpp"
#include "../lifecycle_sample.hpp"

using namespace attune::core;

int main() {
    using namespace std::chrono;
    // The sample, pushed to every bound.
    LifecycleStatusEntry full = testing::sample_lifecycle_entry();
    full.phase = LifecyclePhase::Failed;
    full.current_revision = "rev-3f2a9c1e7b4d0001";
    for (int i = 0; i < 25; ++i) add_failed_revision(full.failed_revisions, "rev-00000000000000" + std::to_string(10 + i));
    full.baseline.emplace("proxy", full.baseline.at("app"));
    full.candidate.emplace("proxy", full.candidate.at("app"));
    full.pods.clear();
    for (int i = 0; i < 100; ++i)
        full.pods.push_back({"web-" + std::to_string(i), "uid-" + std::to_string(i), static_cast<ResizeState>(i % 5),
                             testing::kSampleTime + seconds{i}});
    full.message = std::string(1100, 'm');
    full.source = RecommendationSource::Vpa;
    full.last_analysis->passed = false;

    LifecycleStatusEntry minimal;
    minimal.workload = "db";
    minimal.kind = "StatefulSet";
    minimal.phase = LifecyclePhase::ValidationRunning;
    minimal.current_revision = "rev-0000000000000000";

    std::cout << boost::json::serialize(boost::json::object{{"lifecycle", encode_lifecycle_status({full, minimal})}}) << "\n";
}
