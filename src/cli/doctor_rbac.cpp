#include "doctor_rbac.hpp"

namespace attune::cli {

namespace {

AccessCheck check(std::string verb, std::string group, std::string resource, std::string ns, std::string name,
                  std::string why) {
    AccessCheck c;
    c.verb = std::move(verb);
    c.group = std::move(group);
    c.resource = std::move(resource);
    c.ns = std::move(ns);
    c.name = std::move(name);
    c.needed_for = std::move(why);
    return c;
}

std::string describe(const AccessCheck& c) {
    std::string out = c.verb + " " + c.resource + (c.group.empty() ? "" : "." + c.group);
    if (!c.name.empty()) out += "/" + c.name;
    if (!c.ns.empty()) out += " in " + c.ns;
    return out;
}

}  // namespace

std::vector<AccessCheck> doctor_access_checks(const std::string& policy_ns, const std::string& manager_ns,
                                              const std::string& webhook_configuration) {
    return {
        check("list", "", "nodes", "", "", "cgroup v2, pod-level resize"),
        check("list", "attune.io", "attunepolicies", policy_ns, "", "Prometheus"),
        check("get", "apiextensions.k8s.io", "customresourcedefinitions", "", "attunepolicies.attune.io", "CRDs"),
        check("get", "apps", "deployments", manager_ns, "attune-manager", "manager"),
        check("get", "coordination.k8s.io", "leases", manager_ns, "attune-manager", "manager"),
        check("get", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", "", webhook_configuration,
              "webhook"),
        check("get", "admissionregistration.k8s.io", "validatingwebhookconfigurations", "", webhook_configuration,
              "policy-webhook"),
    };
}

boost::json::object access_review(const AccessCheck& c) {
    boost::json::object attrs;
    attrs["verb"] = c.verb;
    attrs["group"] = c.group;
    attrs["resource"] = c.resource;
    if (!c.ns.empty()) attrs["namespace"] = c.ns;
    if (!c.name.empty()) attrs["name"] = c.name;
    boost::json::object spec;
    spec["resourceAttributes"] = std::move(attrs);
    boost::json::object review;
    review["apiVersion"] = "authorization.k8s.io/v1";
    review["kind"] = "SelfSubjectAccessReview";
    review["spec"] = std::move(spec);
    return review;
}

DoctorRow rbac_row(std::span<const AccessCheck> checks, std::span<const AccessAnswer> answers) {
    DoctorRow r;
    r.name = "RBAC";
    r.required = false;
    std::string denied, failed;
    for (std::size_t i = 0; i < checks.size() && i < answers.size(); ++i) {
        const auto& a = answers[i];
        if (!a.error.empty()) {
            failed += (failed.empty() ? "" : "; ") + describe(checks[i]) + ": " + a.error;
        } else if (!a.allowed) {
            denied += (denied.empty() ? "" : ", ") + describe(checks[i]) + " (" + checks[i].needed_for + ")";
        }
    }
    if (!failed.empty()) {
        r.status = DoctorStatus::Warn;
        r.detail = "SelfSubjectAccessReview failed: " + failed;
    } else if (!denied.empty()) {
        r.status = DoctorStatus::Warn;
        r.detail = "denied: " + denied +
                   "; those rows fall back (grant deploy/kustomize/rbac/kubectl-attune-doctor.yaml)";
    } else {
        r.status = DoctorStatus::Ok;
        r.detail = "allowed: everything doctor reads (" + std::to_string(checks.size()) + " SelfSubjectAccessReviews)";
    }
    return r;
}

}  // namespace attune::cli
