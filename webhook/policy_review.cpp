#include <attune/webhook/policy_review.hpp>

#include <spdlog/spdlog.h>

namespace attune::webhook {

std::optional<PolicyRoute> policy_route(std::string_view path) noexcept {
    if (path == kValidatePolicyPath) return PolicyRoute{core::PolicyKind::AttunePolicy, false};
    if (path == kValidateDefaultsPath) return PolicyRoute{core::PolicyKind::AttuneDefaults, false};
    if (path == kValidateNamespaceDefaultsPath) return PolicyRoute{core::PolicyKind::AttuneNamespaceDefaults, false};
    if (path == kMutatePolicyPath) return PolicyRoute{core::PolicyKind::AttunePolicy, true};
    return std::nullopt;
}

std::optional<std::string_view> validation_operation(PolicyRoute route, std::string_view operation) noexcept {
    const bool create = operation == "CREATE";
    if (!create && operation != "UPDATE") return std::nullopt;
    if (route.mutating) return "defaulting";
    switch (route.kind) {
        case core::PolicyKind::AttunePolicy: return create ? "validate_create" : "validate_update";
        case core::PolicyKind::AttuneDefaults: return create ? "defaults_validate_create" : "defaults_validate_update";
        case core::PolicyKind::AttuneNamespaceDefaults:
            return create ? "namespace_defaults_validate_create" : "namespace_defaults_validate_update";
    }
    return std::nullopt;
}

core::AdmissionResponse PolicyReviewer::review(const core::AdmissionRequest& req, PolicyRoute route) const {
    core::AdmissionResponse resp;
    resp.uid = req.uid;
    if (req.operation != "CREATE" && req.operation != "UPDATE") return resp;
    const auto kind = core::to_string(route.kind);
    if (req.kind.kind != kind) {
        resp.warnings.push_back("attune: this webhook judges " + std::string(kind) + ", not " + req.kind.kind +
                                "; check the webhook configuration's rules");
        return resp;
    }
    if (route.kind != core::PolicyKind::AttuneDefaults && !scope_.contains(req.namespace_)) return resp;
    if (route.mutating) {
        resp.patch = core::default_policy_object(route.kind, req.object);
        return resp;
    }
    std::vector<std::shared_ptr<const policy::DefaultsView>> cluster, namespaced;
    core::PolicyAdmissionInput in;
    in.kind = route.kind;
    in.object = &req.object;
    in.old_object = req.old_object.is_null() ? nullptr : &req.old_object;
    in.namespace_ = req.namespace_;
    in.validation = validation_;
    in.check_time_zone = [this](std::string_view zone) {
        auto z = zones_.load(std::string(zone));
        return z ? std::string() : z.error().message;
    };
    std::vector<core::DefaultsInput> cluster_in, namespaced_in;
    if (views_ && route.kind == core::PolicyKind::AttunePolicy) {
        in.defaults_synced = views_->defaults_synced();
        cluster = policy::defaults_in(views_->cluster_defaults, "");
        namespaced = policy::defaults_in(views_->namespace_defaults, req.namespace_);
        cluster_in = policy::defaults_inputs(cluster);
        namespaced_in = policy::defaults_inputs(namespaced);
        in.cluster_defaults = cluster_in;
        in.namespace_defaults = namespaced_in;
    }
    auto decision = core::admit_policy_object(in);
    resp.allowed = decision.allowed;
    resp.warnings = std::move(decision.warnings);
    if (!decision.allowed) {
        resp.status_code = 403;
        resp.status_message = std::move(decision.message);
        spdlog::info("{} refused at admission namespace={} name={} operation={} dry_run={} error=\"{}\"", kind,
                     req.namespace_.empty() ? "-" : req.namespace_, req.name.empty() ? "-" : req.name, req.operation,
                     req.dry_run, resp.status_message);
    }
    return resp;
}

}  // namespace attune::webhook
