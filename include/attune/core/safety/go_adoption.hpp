#pragma once
// kubectl attune migrate --from attune-go (docs/cli.md "migrate"): what the
// Go Attune leaves on pods, on policies and in its leader Lease, judged
// against what this manager reads. Most keys are the same, in the same
// format, and are kept as they are (the originals and restart counts of a
// resize in its safety period, the startup boost, the cooldown anchor, the
// resize history); what only the Go operator reads is dropped, so nothing
// lingers that this manager would never clean up; a value this manager would
// read differently from the Go operator is a conflict, and nothing of that
// object is written. Pure: the CLI reads the objects and sends the patches.
#include <array>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/model/lease_record.hpp"
#include "attune/core/util/timestamp.hpp"

namespace attune::core {

// The Go operator's names (attune-io/attune v0.1.23: cmd/manager/main.go,
// internal/controller/attunepolicy_controller.go, charts/attune/templates/webhooks.yaml).
// Its pod annotation and policy finalizer are not this manager's keys, so
// they are not in core/policy/annotations.hpp's table; this is their one
// spelling (test/core/policy/annotations_test.cpp allows it).
inline constexpr std::string_view kGoLeaseName = "attune.attune.io";          // its LeaderElectionID
inline constexpr std::string_view kGoPolicyAnnotation = "attune.io/policy";   // pod: the policy that resized it
inline constexpr std::string_view kGoCleanupFinalizer = "attune.io/cleanup";  // AttunePolicy finalizer
inline constexpr std::array<std::string_view, 5> kGoWebhookNames = {"defaulting.attune.io",
                                                                    "pod-initial-sizing.attune.io",
                                                                    "validation.attune.io",
                                                                    "validation-defaults.attune.io",
                                                                    "validation-namespace-defaults.attune.io"};

// Who holds the Go Lease once migrate took it over, and for how long: ten
// years, so a Go replica that starts again waits instead of leading.
// Deleting the Lease lets it lead again.
inline constexpr std::string_view kMigrationLeaseHolder = "kubectl-attune-migrate";
inline constexpr std::int64_t kMigrationLeaseSeconds = 10LL * 365 * 24 * 3600;

enum class AdoptAction { Kept, Rewritten, Dropped, Conflict };
std::string_view adopt_action_name(AdoptAction a) noexcept;  // kept, rewritten, dropped, conflict

struct AdoptNote {
    std::string field;  // "resize tracking", "annotation attune.io/policy", "status.resizeHistory", ...
    AdoptAction action = AdoptAction::Kept;
    std::string why;
    friend bool operator==(const AdoptNote&, const AdoptNote&) = default;
};

struct Adoption {
    std::vector<AdoptNote> notes;      // empty: nothing of the Go operator's on the object
    boost::json::object patch;         // merge patch of the object; empty: nothing to write
    boost::json::object status_patch;  // merge patch of its status subresource; empty: nothing to write
    bool conflict() const noexcept;    // a Conflict note: both patches are empty
};

// A pod (JSON as the apiserver serves it).
Adoption adopt_go_pod(const boost::json::value& pod);
// An AttunePolicy. A finalizer change carries metadata.resourceVersion, so it
// fails (409) rather than drop a finalizer added meanwhile.
Adoption adopt_go_policy(const boost::json::value& policy);

enum class GoLeaseVerdict {
    Free,     // held by nobody: the Go leader released it
    Stale,    // its holder stopped renewing
    Leading,  // held and renewed within its duration: the Go operator runs
    Ours,     // held by kMigrationLeaseHolder: an earlier migrate took it over
};
struct GoLeaseJudgement {
    GoLeaseVerdict verdict = GoLeaseVerdict::Free;
    LeaseRecord record;
    std::string message;  // "held by X, renewed 3s ago (lease 15s)"
};
GoLeaseJudgement judge_go_lease(const boost::json::value& lease, Timestamp now);

// The Lease held by kMigrationLeaseHolder for kMigrationLeaseSeconds,
// acquired and renewed at `now_micro` (a MicroTime). metadata is kept whole,
// resourceVersion included, so the update fails (409) if the Go leader
// renewed it meanwhile.
boost::json::value go_lease_takeover(boost::json::value lease, std::string_view now_micro);

// The Go operator's webhooks in a {Mutating,Validating}WebhookConfiguration,
// by webhooks[].name; this manager's webhooks have other names.
std::vector<std::string> go_webhooks_in(const boost::json::value& configuration);

}  // namespace attune::core
