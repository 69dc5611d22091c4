#include "managed_workloads.hpp"

#include "cluster_reads.hpp"
#include "status_records.hpp"
#include "workload_manifest.hpp"

#include <attune/core/util/json_path.hpp>
#include <attune/kube/resource.hpp>

#include <boost/json.hpp>

#include <algorithm>

namespace attune::cli {
namespace asio = boost::asio;
namespace json = boost::json;

asio::awaitable<ManagedWorkloads> read_managed_workloads(Session& s, ManagedScope scope) {
    ManagedWorkloads out;
    auto ctx = co_await read_policy_context(s.client(), scope.ns);
    if (!ctx.policies_error.empty()) {
        out.error = "cannot list AttunePolicies: " + ctx.policies_error;
        co_return out;
    }
    if (!scope.policy.empty()) {
        std::erase_if(ctx.policies, [&](const json::value& p) {
            return core::string_at(p, {"metadata", "name"}) != scope.policy;
        });
        if (ctx.policies.empty()) {
            out.error = not_found_text(kube::resources::attune_policies(), scope.policy);
            co_return out;
        }
    }
    std::sort(ctx.policies.begin(), ctx.policies.end(), [](const json::value& a, const json::value& b) {
        return std::pair(core::string_at(a, {"metadata", "namespace"}), core::string_at(a, {"metadata", "name"})) <
               std::pair(core::string_at(b, {"metadata", "namespace"}), core::string_at(b, {"metadata", "name"}));
    });
    const auto resolved = resolve_policies(ctx);
    for (const auto& p : ctx.policies) {
        const std::string ns(core::string_at(p, {"metadata", "namespace"}));
        const std::string name(core::string_at(p, {"metadata", "name"}));
        auto recs = core::decode_status_recommendations(p);
        if (!recs) {
            out.error = "policy " + ns + "/" + name + ": " + recs.error().message;
            co_return out;
        }
        const auto r = resolved.find(ns + "/" + name);
        for (auto& rec : recs.value()) {
            if (rec.recommendation.containers.empty()) continue;  // still collecting
            if (!scope.workload.empty() && !workload_matches(scope.workload, rec.kind, rec.workload)) continue;
            ManagedWorkload w;
            w.ns = ns;
            w.policy = name;
            w.rec = std::move(rec);
            if (r != resolved.end() && r->second.effective) w.settings = *r->second.effective;
            else w.settings_error = r == resolved.end() ? "it does not decode" : r->second.message;
            out.items.push_back(std::move(w));
        }
    }
    if (out.items.empty() && !scope.policy.empty()) {
        const std::string named =
            std::string(core::string_at(ctx.policies.front(), {"metadata", "namespace"})) + "/" + scope.policy;
        out.error = scope.workload.empty()
                        ? "policy " + named + " has no recommendations yet (kubectl attune status " + scope.policy + ")"
                        : "policy " + named + " has no recommendation for workload \"" + scope.workload + "\"";
        co_return out;
    }
    if (out.items.empty() && !scope.workload.empty()) {
        out.error = "no policy has a recommendation for workload \"" + scope.workload + "\"";
        co_return out;
    }
    for (auto& w : out.items) {
        const auto rt = kube::workload_resource(w.rec.kind);
        if (!rt) {
            w.workload = ObjectLookup::failed(0, rt.error().message);
            continue;
        }
        w.workload = co_await lookup_object(s.client(), rt.value(), w.ns, w.rec.workload);
    }
    co_return out;
}

core::Result<RecommendedManifest> manifest_of(const ManagedWorkload& w) {
    const std::string label = workload_label(w.ns, w.rec.kind, w.rec.workload);
    const std::string by = " (recommended by policy " + w.ns + "/" + w.policy + ")";
    if (w.workload.not_found()) {
        const auto rt = kube::workload_resource(w.rec.kind);
        return core::make_error("not_found", (rt ? not_found_text(rt.value(), w.rec.workload) : label + " not found") +
                                                 " in namespace " + w.ns + by);
    }
    if (!w.workload.found())
        return core::make_error("unreadable", "cannot read " + label + ": " + w.workload.error + by);
    if (!w.settings)
        return core::make_error("invalid_policy", "policy " + w.ns + "/" + w.policy +
                                                      " has no valid settings, so its recommendation for " + label +
                                                      " cannot be applied: " + w.settings_error);
    auto m = recommended_manifest(*w.workload.object, w.rec, *w.settings);
    if (!m) return core::make_error(m.error().code, label + ": " + m.error().message + by);
    return m;
}

}  // namespace attune::cli
