#include "lifecycle_sample.hpp"

namespace attune::core::testing {
namespace {

ResourceList list(std::initializer_list<std::pair<const char*, const char*>> kv) {
    ResourceList l;
    for (const auto& [k, v] : kv) l.emplace(k, Quantity::parse(v).value());
    return l;
}

}  // namespace

LifecycleStatusEntry sample_lifecycle_entry() {
    using namespace std::chrono;
    const Timestamp t0 = kSampleTime;
    LifecycleStatusEntry e;
    e.workload = "web";
    e.kind = "Deployment";
    e.phase = LifecyclePhase::ValidatedAwaitingPersistence;
    e.current_revision = "rev-3f2a9c1e7b4d0000";
    e.validated_revision = "rev-3f2a9c1e7b4d0000";
    e.failed_revisions = {"rev-1111111111111111"};
    e.step = 2;
    e.step_started_at = t0;
    e.baseline = {{"app", {list({{"cpu", "500m"}, {"memory", "256Mi"}}), list({{"cpu", "1"}, {"memory", "512Mi"}})}}};
    e.candidate = {{"app", {list({{"cpu", "200m"}, {"memory", "192Mi"}}), list({{"cpu", "1"}, {"memory", "512Mi"}})}}};
    e.pods = {{"web-abc", "uid-abc", ResizeState::Applied, t0 + seconds{30}},
              {"web-def", "uid-def", ResizeState::Deferred, t0 + seconds{45}}};
    e.handled_revalidation_token = "t1";
    e.message = "validated; the webhook injects it into the next update that changes the pod template";
    e.attempt_started_at = t0 - minutes{20};
    e.step_applied_at = t0 + seconds{50};
    e.step_ready_at = t0 + seconds{55};
    e.source = RecommendationSource::Manual;
    e.last_analysis = LifecycleAnalysisStatus{2, true, "no pod throttled", t0 + minutes{6}};
    e.attempt = 3;
    return e;
}

}  // namespace attune::core::testing
