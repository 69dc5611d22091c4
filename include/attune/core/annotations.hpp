#pragma once
// Attune's annotation and label keys (attune-api.md §11), in one place so the
// executor, the safety monitor and the webhook spell them the same way.
#include <map>
#include <string>
#include <string_view>

namespace attune::core {

using StringMap = std::map<std::string, std::string, std::less<>>;

inline constexpr std::string_view kSkipAnnotation = "attune.io/skip";                  // workload, pod
inline constexpr std::string_view kFreezeAnnotation = "attune.io/freeze";              // namespace
inline constexpr std::string_view kLastResizeTimeAnnotation = "attune.io/last-resize-time";  // policy
inline constexpr std::string_view kTrackedLabel = "attune.io/tracked";                 // pod label
inline constexpr std::string_view kResizedAtAnnotation = "attune.io/resized-at";
inline constexpr std::string_view kResizedWorkloadAnnotation = "attune.io/resized-workload";
inline constexpr std::string_view kResizedContainersAnnotation = "attune.io/resized-containers";
inline constexpr std::string_view kOriginalPrefix = "attune.io/original-";
inline constexpr std::string_view kOriginalRestartCountPrefix = "attune.io/original-restart-count.";
inline constexpr std::string_view kStartupBoostAtAnnotation = "attune.io/startup-boost-at";
inline constexpr std::string_view kAutoTuneAnnotation = "attune.io/auto-tune";          // HPA
inline constexpr std::string_view kOriginalTargetCpuAnnotation = "attune.io/original-target-cpu";  // HPA
inline constexpr std::string_view kPersistedRevisionAnnotation = "attune.io/persisted-revision";
inline constexpr std::string_view kPersistedPolicyAnnotation = "attune.io/persisted-policy";
inline constexpr std::string_view kRevisionAnnotation = "attune.io/revision";  // pod template, with persisted-revision

// Exactly "true" (the Go original compares the string): "True" or "1" do
// not opt anything out.
inline bool annotation_is_true(const StringMap& annotations, std::string_view key) {
    const auto it = annotations.find(key);
    return it != annotations.end() && it->second == "true";
}

}  // namespace attune::core
