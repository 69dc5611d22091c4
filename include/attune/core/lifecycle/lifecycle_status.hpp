#pragma once
// status.lifecycle.workloads[] of an AttunePolicy (docs/lifecycle.md): one entry per
// workload under validation, exactly in the shape the lifecycle contract
// fixes (the webhook's deferred persistence reads it; docs/lifecycle.md),
// plus the fields the state machine needs to resume after a restart.
// Bounded: 100 workloads, 100 pods and 20 failed revisions per entry, and
// 1024 bytes of message.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/policy/annotations.hpp"
#include "attune/core/policy/overlay.hpp"
#include "attune/core/resize/resize_state.hpp"
#include "attune/core/util/result.hpp"
#include "attune/core/util/timestamp.hpp"

namespace boost::json {
class value;
}  // namespace boost::json

namespace attune::core {

inline constexpr std::size_t kMaxLifecycleWorkloads = 100;
inline constexpr std::size_t kMaxLifecyclePods = 100;
inline constexpr std::size_t kMaxFailedRevisions = 20;
inline constexpr std::size_t kMaxLifecycleText = 1024;  // message, lastAnalysis.explanation

enum class LifecyclePhase {
    ValidationRunning,
    PausedAtStep,
    ValidatedAwaitingPersistence,
    ValidatedWithoutPersistence,
    Persisted,
    Failed,
};

std::string_view lifecycle_phase_name(LifecyclePhase p) noexcept;
// The phases in which an attempt is still validating (steps run).
bool is_validating(LifecyclePhase p) noexcept;

enum class RecommendationSource { Manual, Vpa, Prometheus };
std::string_view recommendation_source_name(RecommendationSource s) noexcept;

struct LifecyclePodStatus {
    std::string name;
    std::string uid;  // addition: a recreated pod with the same name starts over
    ResizeState state = ResizeState::Pending;
    Timestamp since{};  // when the pod entered `state`, as far as Attune saw
    friend bool operator==(const LifecyclePodStatus&, const LifecyclePodStatus&) = default;
};

// The result of the last throttling evaluation (addition).
struct LifecycleAnalysisStatus {
    std::size_t step = 0;
    bool passed = false;
    std::string explanation;
    Timestamp evaluated_at{};
    friend bool operator==(const LifecycleAnalysisStatus&, const LifecycleAnalysisStatus&) = default;
};

struct LifecycleStatusEntry {
    // ---- the contract with the webhook (docs/lifecycle.md) ----
    std::string workload;  // name
    std::string kind;      // Deployment | StatefulSet | DaemonSet | ReplicaSet
    LifecyclePhase phase = LifecyclePhase::ValidationRunning;
    std::string current_revision;
    std::string validated_revision;             // "" until validation passed
    std::vector<std::string> failed_revisions;  // the sticky deny-list, oldest first
    std::size_t step = 0;                       // index into the effective steps
    std::optional<Timestamp> step_started_at;
    ContainerResourceMap baseline;   // frozen for the attempt
    ContainerResourceMap candidate;  // the baseline with the recommendation overlaid
    std::vector<LifecyclePodStatus> pods;  // the current step's pods, in selection order
    std::string handled_revalidation_token;
    std::string message;
    // ---- additions the state machine resumes from ----
    std::optional<Timestamp> attempt_started_at;  // initialDelay counts from here
    std::optional<Timestamp> step_applied_at;     // every pod of the step Applied since (the settle gate)
    std::optional<Timestamp> step_ready_at;       // ... and Ready since (the pause)
    std::optional<RecommendationSource> source;
    std::optional<LifecycleAnalysisStatus> last_analysis;
    std::int64_t attempt = 0;  // attempts started for this workload; a revalidation adds exactly one

    friend bool operator==(const LifecycleStatusEntry&, const LifecycleStatusEntry&) = default;
};

// One entry as its JSON object.
boost::json::value encode_lifecycle_entry(const LifecycleStatusEntry& e);
// Error code "invalid_lifecycle_status"; the message names the path.
Result<LifecycleStatusEntry> decode_lifecycle_entry(const boost::json::value& json, const std::string& path);

// status.lifecycle: {"workloads": [...]}, sorted by kind then workload and
// cut to kMaxLifecycleWorkloads (the sort decides which are kept).
boost::json::value encode_lifecycle_status(std::vector<LifecycleStatusEntry> entries);
// status.lifecycle (null/absent -> empty). An entry that does not decode is
// an error for the whole list: status is ours, so a bad entry is a bug.
Result<std::vector<LifecycleStatusEntry>> decode_lifecycle_status(const boost::json::value& json);

// The entry of one workload in a decoded list, or nullptr.
const LifecycleStatusEntry* find_lifecycle_entry(const std::vector<LifecycleStatusEntry>& entries,
                                                 std::string_view kind, std::string_view workload);

// Appends `revision` to the deny-list unless present, dropping the oldest
// beyond kMaxFailedRevisions.
void add_failed_revision(std::vector<std::string>& failed, const std::string& revision);

}  // namespace attune::core
