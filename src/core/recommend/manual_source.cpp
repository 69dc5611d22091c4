#include "attune/core/recommend/manual_source.hpp"

#include <boost/json.hpp>

#include "../util/json_decode.hpp"

namespace attune::core {

using namespace detail;

Result<ContainerResourceMap> decode_manual_overlay(const boost::json::value& manual, const std::string& path) {
    return guarded("invalid_manual_source", [&]() -> Result<ContainerResourceMap> {
        ContainerResourceMap out;
        const auto& o = as_object(manual, path);
        const auto* items = opt_array(o, "containers", path);
        if (!items) return out;
        for (std::size_t i = 0; i < items->size(); ++i) {
            const std::string at = path + ".containers[" + std::to_string(i) + "]";
            const auto& c = as_object((*items)[i], at);
            const std::string name = opt_string(c, "name", at);
            if (name.empty()) fail(at + ".name", "missing container name");
            ResourceRequirements rr;
            if (const auto* r = field(c, "resources")) {
                auto decoded = decode_requirements(*r, at + ".resources");
                if (!decoded.ok()) throw DecodeFailure(decoded.error().message);
                rr = std::move(decoded).value();
            }
            if (!out.emplace(name, std::move(rr)).second) fail(at + ".name", "container \"" + name + "\" listed twice");
        }
        return out;
    });
}

Result<std::vector<ContainerRecommendation>> manual_recommendations(const FrozenBaseline& baseline,
                                                                    const ContainerResourceMap& overlay, double now) {
    auto overlaid = apply_manual_overlay(baseline, overlay);
    if (!overlaid.ok()) return overlaid.error();
    std::vector<ContainerRecommendation> out;
    for (const auto& [name, unused] : overlay) {
        ContainerRecommendation r;
        r.name = name;
        r.current = resource_values_of(baseline.containers.at(name));
        r.recommended = resource_values_of(overlaid.value().at(name));
        r.confidence = 1;
        r.last_updated = now;
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace attune::core
