#include <attune/controller/status_recommendations.hpp>

#include <attune/core/recommend/recommendation_status.hpp>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace attune::controller {

namespace {
double relative_change(const core::Quantity& current, const core::Quantity& recommended) {
    const auto cur = static_cast<double>(current.milli_value());
    const auto rec = static_cast<double>(recommended.milli_value());
    if (cur <= 0) return rec > 0 ? 1.0 : 0.0;
    return std::fabs(rec - cur) / cur;
}
}  // namespace

double change_magnitude(const core::WorkloadRecommendation& w) {
    double m = 0;
    for (const auto& c : w.containers)
        m = std::max({m, relative_change(c.current.cpu_request, c.recommended.cpu_request),
                      relative_change(c.current.memory_request, c.recommended.memory_request)});
    return m;
}

boost::json::array status_recommendations(std::vector<const StoredRecommendation*> entries, int max_entries,
                                          bool include_explanations) {
    const auto cap = static_cast<std::size_t>(std::max(max_entries, 0));
    if (entries.size() > cap) {
        std::vector<std::pair<double, const StoredRecommendation*>> ranked;
        ranked.reserve(entries.size());
        for (const auto* e : entries) ranked.emplace_back(change_magnitude(e->recommendation), e);
        std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
            if (a.first != b.first) return a.first > b.first;
            const auto& x = a.second->workload;
            const auto& y = b.second->workload;
            // The order of "ns/kind/name" without building the strings: one
            // namespace per policy, no kind a prefix of another, name last.
            return std::tie(x.ns, x.kind, x.name) < std::tie(y.ns, y.kind, y.name);
        });
        ranked.resize(cap);
        entries.clear();
        for (const auto& [m, e] : ranked) entries.push_back(e);
    }
    std::sort(entries.begin(), entries.end(), [](const StoredRecommendation* a, const StoredRecommendation* b) {
        return std::tie(a->workload.kind, a->workload.name) < std::tie(b->workload.kind, b->workload.name);
    });
    boost::json::array out;
    out.reserve(entries.size());
    for (const auto* e : entries)
        out.push_back(core::workload_recommendation_json(e->workload.name, e->workload.kind, e->recommendation,
                                                         include_explanations));
    return out;
}

}  // namespace attune::controller
