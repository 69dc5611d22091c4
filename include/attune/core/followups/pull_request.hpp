#pragma once
// updateStrategy.export.pullRequest (docs/api.md#gitops-pull-requests): when
// a policy's recommendations drift from its workloads' pod templates, one
// pull request (a merge request on GitLab) per policy carries them to the
// repository. Pure: the drift, its fingerprint, the decision (disabled, no
// drift, already proposed, cooldown, dry run, send), the texts and what an
// attempt's end means for the GitOpsPullRequest condition, the Event, the
// metric and status.gitopsPR. The REST calls are forge_session.hpp's.
#include <attune/core/model/pod_model.hpp>
#include <attune/core/model/quantity.hpp>
#include <attune/core/policy/annotations.hpp>
#include <attune/core/policy/condition.hpp>
#include <attune/core/policy/policy.hpp>
#include <attune/core/recommend/recommender.hpp>
#include <attune/core/resize/resize_events.hpp>
#include <attune/core/util/timestamp.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attune::core {

inline constexpr std::string_view kConditionGitOpsPullRequest = "GitOpsPullRequest";

// One container resource whose recommended request differs from the pod
// template's by at least minChangePercent.
struct ResourceDrift {
    std::string kind, workload, container;
    std::string resource;                    // cpu | memory
    std::optional<Quantity> template_value;  // absent: the template requests none
    Quantity recommended;
    double change_percent = 0;  // |recommended - template| / template, in percent; 100 without a template value
    friend bool operator==(const ResourceDrift&, const ResourceDrift&) = default;
};

// The requests of `rec`'s containers against `pod_template`'s, in the
// recommendation's order, cpu before memory. A container the template does
// not have, and a zero recommendation, are skipped.
std::vector<ResourceDrift> request_drift(std::string_view kind, std::string_view workload, const Pod& pod_template,
                                         const WorkloadRecommendation& rec, int min_change_percent);

// 16 hex digits over every drift's workload, container, resource, template
// value and recommendation (not the percentages): the same advice against
// the same templates has the same fingerprint.
std::string drift_fingerprint(const std::vector<ResourceDrift>& drifts);

// "attune/recommendations-<ns>-<policy>", anything but [A-Za-z0-9-] as '-':
// one branch per policy, so a later drift updates the same pull request.
std::string pull_request_branch(std::string_view ns, std::string_view policy);
std::string pull_request_title(std::string_view ns, std::string_view policy);
std::string pull_request_commit_message(std::string_view ns, std::string_view policy, std::string_view path);
// Markdown: the drift table, the files the branch edits and what to do next.
std::string pull_request_body(std::string_view ns, std::string_view policy, const std::vector<ResourceDrift>& drifts,
                              const std::vector<std::string>& files);

// The repository path of a workload's manifest: `path_template` (the
// policy's attune.io/gitops-pr-path) with {namespace}, {kind} and {name}
// replaced, or, when it is empty, the file `kubectl attune export
// --output-dir` writes (manifest_file_name). Error "invalid_config": an
// absolute path, a ".." segment, or an empty result.
Result<std::string> manifest_path(std::string_view path_template, std::string_view ns, std::string_view kind,
                                  std::string_view name);

// The connect-time rule for an apiUrl's addresses: check_resolved_address
// (no metadata, link-local or unspecified address; loopback only with
// `allow_loopback`), and no private address (RFC 1918, RFC 6598 shared,
// IPv6 ULA fc00::/7) unless export.pullRequest.allowPrivateEndpoints.
// "" when it may be connected to, else why not.
std::string check_forge_address(std::string_view ip, bool allow_loopback, bool allow_private);

// status.gitopsPR, and what the annotations say.
struct PullRequestRecord {
    std::string drift_fingerprint;
    std::optional<Timestamp> last_attempt;
    std::string url;
    friend bool operator==(const PullRequestRecord&, const PullRequestRecord&) = default;
};
boost::json::object pull_request_record_json(const PullRequestRecord& r);
// From a policy object: status.gitopsPR, with the annotations filling what
// it lacks (the Go Attune writes only the annotations). nullopt when none
// of them is there.
std::optional<PullRequestRecord> pull_request_record_from(const boost::json::value& policy);

enum class PullRequestStep {
    Clear,   // no condition (export.pullRequest unset, or Observe)
    Report,  // the condition only: disabled, no drift, already proposed, cooldown
    DryRun,  // compute everything, call nothing
    Send,    // open or update the pull request
};

struct PullRequestInputs {
    const EffectivePullRequest* settings = nullptr;  // nullptr: export.pullRequest is not set
    UpdateMode mode = UpdateMode::Recommend;
    std::vector<ResourceDrift> drifts;
    std::optional<PullRequestRecord> last;
    const Condition* current = nullptr;  // the GitOpsPullRequest condition the policy has now
    Timestamp now;
    std::int64_t generation = 0;
};

struct PullRequestDecision {
    PullRequestStep step = PullRequestStep::Clear;
    std::optional<Condition> condition;  // Report; no transition time
    std::string fingerprint;             // of the drifts
};

// In order: Clear; PullRequestDisabled; NoDrift; the drift the last
// attempt carried, when that attempt opened a pull request or is within the
// cooldown: the current condition stays (its outcome, not a cooldown, and
// nothing is sent twice); another drift within the cooldown:
// PullRequestCooldown; DryRun; Send.
PullRequestDecision decide_pull_request(const PullRequestInputs& in);

// What an attempt became: the condition, attune_gitops_pr_total's result
// (created | updated | dry_run | failed), the Event and the new record.
struct PullRequestOutcome {
    Condition condition;
    std::string metric_result;
    EventIntent event;
    PullRequestRecord record;
};

struct PullRequestAttempt {
    const EffectivePullRequest* settings = nullptr;
    std::string branch;
    std::vector<std::string> files;
    std::size_t drifts = 0;
    std::string fingerprint;
    std::optional<PullRequestRecord> last;
    Timestamp now;
    std::int64_t generation = 0;
};
PullRequestOutcome dry_run_outcome(const PullRequestAttempt& a);
// `url`: the pull request's page; `updated`: an open one took the change.
PullRequestOutcome sent_outcome(const PullRequestAttempt& a, const std::string& url, bool updated);
// `message` must hold no credential (the forge's answers are not quoted whole).
PullRequestOutcome failed_outcome(const PullRequestAttempt& a, const std::string& message);

}  // namespace attune::core
