#pragma once
// Every annotation and label key Attune reads or writes, in one place so the
// executor, the safety monitor, the webhook and the CLI spell them the same
// way. docs/api.md ("Annotations and labels") lists the same keys;
// test/core/policy/annotations_test.cpp fails when the two differ.
#include <array>
#include <map>
#include <string>
#include <string_view>

namespace attune::core {

using StringMap = std::map<std::string, std::string, std::less<>>;

// Every key below starts with this.
inline constexpr std::string_view kKeyPrefix = "attune.io/";

inline constexpr std::string_view kSkipAnnotation = "attune.io/skip";                  // workload, pod
inline constexpr std::string_view kFreezeAnnotation = "attune.io/freeze";              // namespace
inline constexpr std::string_view kLastResizeTimeAnnotation = "attune.io/last-resize-time";  // policy
inline constexpr std::string_view kSuppressWarningsAnnotation = "attune.io/suppress-warnings";  // policy
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
// Namespace label "enabled" (the webhook's namespaceSelector); pod annotation
// "applied" once the webhook sized the pod.
inline constexpr std::string_view kInitialSizingLabel = "attune.io/initial-sizing";
inline constexpr std::string_view kInitialSizingPolicyAnnotation = "attune.io/initial-sizing-policy";  // pod
inline constexpr std::string_view kNextCaStagedAtAnnotation = "attune.io/next-ca-staged-at";  // webhook TLS Secret
inline constexpr std::string_view kUpgradePhaseLabel = "attune.io/upgrade-phase";             // upgrade chain Job
inline constexpr std::string_view kUpgradeTargetLabel = "attune.io/upgrade-target";           // upgrade chain Job
// updateStrategy.export.configMap: the labels of each export ConfigMap.
inline constexpr std::string_view kExportPolicyLabel = "attune.io/policy";
inline constexpr std::string_view kExportWorkloadLabel = "attune.io/workload";
inline constexpr std::string_view kExportSchemaLabel = "attune.io/export-schema";
// updateStrategy.export.pullRequest, on the policy: the cooldown's anchor and
// the last pull request (the manager's), and where each workload's manifest
// lives in the repository (the user's; core/followups/pull_request.hpp).
inline constexpr std::string_view kPullRequestLastAttemptAnnotation = "attune.io/gitops-pr-last-attempt";
inline constexpr std::string_view kPullRequestUrlAnnotation = "attune.io/gitops-pr-url";
inline constexpr std::string_view kPullRequestPathAnnotation = "attune.io/gitops-pr-path";

// The table docs/api.md documents: each key, whether it is a label, an
// annotation or both, and whether it is a prefix (the rest of the key names
// a resource and container).
struct AnnotationKey {
    std::string_view key;
    std::string_view kind;  // "annotation", "label", "label, annotation"
    bool prefix = false;
};

inline constexpr std::array kAnnotationKeys = {
    AnnotationKey{kSkipAnnotation, "annotation"},
    AnnotationKey{kFreezeAnnotation, "annotation"},
    AnnotationKey{kLastResizeTimeAnnotation, "annotation"},
    AnnotationKey{kSuppressWarningsAnnotation, "annotation"},
    AnnotationKey{kTrackedLabel, "label"},
    AnnotationKey{kResizedAtAnnotation, "annotation"},
    AnnotationKey{kResizedWorkloadAnnotation, "annotation"},
    AnnotationKey{kResizedContainersAnnotation, "annotation"},
    AnnotationKey{kOriginalPrefix, "annotation", true},
    AnnotationKey{kOriginalRestartCountPrefix, "annotation", true},
    AnnotationKey{kStartupBoostAtAnnotation, "annotation"},
    AnnotationKey{kAutoTuneAnnotation, "annotation"},
    AnnotationKey{kOriginalTargetCpuAnnotation, "annotation"},
    AnnotationKey{kPersistedRevisionAnnotation, "annotation"},
    AnnotationKey{kPersistedPolicyAnnotation, "annotation"},
    AnnotationKey{kRevisionAnnotation, "annotation"},
    AnnotationKey{kInitialSizingLabel, "label, annotation"},
    AnnotationKey{kInitialSizingPolicyAnnotation, "annotation"},
    AnnotationKey{kNextCaStagedAtAnnotation, "annotation"},
    AnnotationKey{kUpgradePhaseLabel, "label"},
    AnnotationKey{kUpgradeTargetLabel, "label"},
    AnnotationKey{kExportPolicyLabel, "label"},
    AnnotationKey{kExportWorkloadLabel, "label"},
    AnnotationKey{kExportSchemaLabel, "label"},
    AnnotationKey{kPullRequestLastAttemptAnnotation, "annotation"},
    AnnotationKey{kPullRequestUrlAnnotation, "annotation"},
    AnnotationKey{kPullRequestPathAnnotation, "annotation"},
};

// Exactly "true" (the Go original compares the string): "True" or "1" do
// not opt anything out.
inline bool annotation_is_true(const StringMap& annotations, std::string_view key) {
    const auto it = annotations.find(key);
    return it != annotations.end() && it->second == "true";
}

}  // namespace attune::core
