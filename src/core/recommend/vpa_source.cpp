#include "attune/core/recommend/vpa_source.hpp"

#include <boost/json.hpp>

#include "../util/json_decode.hpp"

namespace attune::core {

using namespace detail;

Result<VpaSelection> parse_vpa_selection(std::string_view s) {
    if (s.empty() || s == "Target") return VpaSelection::Target;
    if (s == "LowerBound") return VpaSelection::LowerBound;
    if (s == "UpperBound") return VpaSelection::UpperBound;
    return make_error("invalid_selection",
                      "vpa selection \"" + std::string(s) + "\" is not one of Target, LowerBound, UpperBound");
}

const ResourceList& VpaContainerRecommendation::selected(VpaSelection s) const {
    switch (s) {
        case VpaSelection::LowerBound: return lower_bound;
        case VpaSelection::UpperBound: return upper_bound;
        case VpaSelection::Target: break;
    }
    return target;
}

namespace {

ResourceList list_at(const boost::json::object& o, std::string_view key, const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return {};
    auto r = decode_resource_list(*v, path + "." + std::string(key));
    if (!r.ok()) throw DecodeFailure(r.error().message);
    return std::move(r).value();
}

}  // namespace

Result<std::vector<VpaContainerRecommendation>> decode_vpa_recommendations(const boost::json::value& vpa) {
    return guarded("invalid_vpa", [&]() -> Result<std::vector<VpaContainerRecommendation>> {
        std::vector<VpaContainerRecommendation> out;
        const auto& root = as_object(vpa, "vpa");
        const auto* status = opt_object(root, "status", "vpa");
        if (!status) return out;
        const auto* rec = opt_object(*status, "recommendation", "vpa.status");
        if (!rec) return out;
        const std::string base = "vpa.status.recommendation";
        const auto* items = opt_array(*rec, "containerRecommendations", base);
        if (!items) return out;
        for (std::size_t i = 0; i < items->size(); ++i) {
            const std::string at = base + ".containerRecommendations[" + std::to_string(i) + "]";
            const auto& o = as_object((*items)[i], at);
            VpaContainerRecommendation c;
            c.container_name = opt_string(o, "containerName", at);
            if (c.container_name.empty()) continue;
            c.target = list_at(o, "target", at);
            c.lower_bound = list_at(o, "lowerBound", at);
            c.upper_bound = list_at(o, "upperBound", at);
            c.uncapped_target = list_at(o, "uncappedTarget", at);
            out.push_back(std::move(c));
        }
        return out;
    });
}

std::vector<PointEstimate> vpa_point_estimates(const std::vector<VpaContainerRecommendation>& recs,
                                               VpaSelection selection, const std::vector<LiveContainer>& live) {
    std::vector<PointEstimate> out;
    for (const auto& c : live) {
        const VpaContainerRecommendation* rec = nullptr;
        for (const auto& r : recs)
            if (r.container_name == c.name) rec = &r;
        if (!rec) continue;
        const ResourceList& bound = rec->selected(selection);
        PointEstimate p;
        p.name = c.name;
        p.current = c.resources;
        if (const auto* q = find(bound, kCpu)) p.cpu = *q;
        if (const auto* q = find(bound, kMemory)) p.memory = *q;
        out.push_back(std::move(p));
    }
    return out;
}

}  // namespace attune::core
