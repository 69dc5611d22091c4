#include "policy_context.hpp"

namespace attune::cli {

std::map<std::string, core::EffectivePolicy> effective_policies(const policy_context& ctx) {
    std::vector<core::AttuneDefaults> cluster;
    for (const auto& d : ctx.cluster_defaults)
        if (auto v = core::decode_attune_defaults(d)) cluster.push_back(std::move(v).value());
    std::map<std::string, std::vector<core::AttuneDefaults>> by_ns;
    for (const auto& d : ctx.namespace_defaults)
        if (auto v = core::decode_attune_defaults(d)) by_ns[v.value().meta.namespace_].push_back(std::move(v).value());
    std::map<std::string, core::EffectivePolicy> out;
    for (const auto& p : ctx.policies) {
        auto decoded = core::decode_attune_policy(p);
        if (!decoded) continue;
        const auto& pol = decoded.value();
        const auto it = by_ns.find(pol.meta.namespace_);
        static const std::vector<core::AttuneDefaults> none;
        out.emplace(pol.meta.namespace_ + "/" + pol.meta.name,
                    core::merge_effective_policy(pol, cluster, it == by_ns.end() ? none : it->second));
    }
    return out;
}

}  // namespace attune::cli
