#pragma once
// doctor's RBAC row: SelfSubjectAccessReviews for what doctor itself reads,
// so a least-privilege user learns which rows fell back and why. The doctor
// ClusterRole (deploy/kustomize/rbac/kubectl-attune-doctor.yaml) grants the
// cluster-wide ones. Optional: every other row already degrades to WARN on
// a Forbidden read. Pure; the shell sends the reviews.
#include "doctor_report.hpp"

#include <boost/json/object.hpp>

#include <span>
#include <string>
#include <vector>

namespace attune::cli {

struct AccessCheck {
    std::string verb, group, resource, ns, name;
    std::string needed_for;  // the row that falls back without it
};

// `policy_ns`: "" for every namespace (-A); `manager_ns`: the manager's.
std::vector<AccessCheck> doctor_access_checks(const std::string& policy_ns, const std::string& manager_ns,
                                              const std::string& webhook_configuration);

// authorization.k8s.io/v1 SelfSubjectAccessReview for one check.
boost::json::object access_review(const AccessCheck& c);

struct AccessAnswer {
    bool allowed = false;
    std::string error;  // the review itself failed
};

// `answers` is parallel to `checks`.
DoctorRow rbac_row(std::span<const AccessCheck> checks, std::span<const AccessAnswer> answers);

}  // namespace attune::cli
