#include "attune/core/resize/admission_limits.hpp"

#include <boost/json.hpp>

#include "attune/core/model/readable_units.hpp"
#include "attune/core/resize/envelope.hpp"
#include "../util/json_decode.hpp"

namespace attune::core {
namespace {

using namespace detail;

ResourceList list_at(const boost::json::object& o, std::string_view key, const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return {};
    auto l = decode_resource_list(*v, path + "." + std::string(key));
    if (!l.ok()) fail(path + "." + std::string(key), l.error().message);
    return std::move(l).value();
}

bool changed(const Quantity* a, const Quantity* b) { return (a == nullptr) != (b == nullptr) || (a && *a != *b); }

// A quantity of resource r in a violation's message (Events, the history's
// reasons): as people read it.
std::string q(std::string_view r, const Quantity* v) { return v ? readable_quantity(r, *v) : "unset"; }

void check_container(const Container& live, const Container& planned, const LimitRangeItem& item,
                     std::vector<AdmissionViolation>& out) {
    for (std::string_view r : {kCpu, kMemory}) {
        const Quantity* lreq = find(live.resources.requests, r);
        const Quantity* preq = find(planned.resources.requests, r);
        const Quantity* llim = find(live.resources.limits, r);
        const Quantity* plim = find(planned.resources.limits, r);
        const bool req_changed = changed(lreq, preq);
        const bool lim_changed = changed(llim, plim);
        if (!req_changed && !lim_changed) continue;
        auto add = [&](std::string what) {
            out.push_back({std::string(r), "limit_range", "container " + planned.name + " " + std::move(what)});
        };
        const Quantity* mn = find(item.min, r);
        const Quantity* mx = find(item.max, r);
        const Quantity* ratio = find(item.max_limit_request_ratio, r);
        if (mn && req_changed && preq && *preq < *mn) add("request " + q(r, preq) + " < LimitRange min " + q(r, mn));
        if (mn && lim_changed && plim && *plim < *mn) add("limit " + q(r, plim) + " < LimitRange min " + q(r, mn));
        if (mx && req_changed && preq && *preq > *mx) add("request " + q(r, preq) + " > LimitRange max " + q(r, mx));
        if (mx && lim_changed && plim && *plim > *mx) add("limit " + q(r, plim) + " > LimitRange max " + q(r, mx));
        // limit/request <= ratio  <=>  limit*1000 <= ratio*request*1000 in milli units.
        if (ratio && preq && plim && preq->sign() > 0) {
            const __int128 lhs = static_cast<__int128>(plim->milli_value()) * 1000;
            const __int128 rhs = static_cast<__int128>(ratio->milli_value()) * preq->milli_value();
            if (lhs > rhs)
                add("limit/request " + q(r, plim) + "/" + q(r, preq) + " > LimitRange maxLimitRequestRatio " +
                    ratio->to_string());
        }
    }
}

}  // namespace

Result<std::vector<LimitRangeItem>> decode_limit_range(const boost::json::value& json) {
    try {
        const auto& root = as_object(json, "limitRange");
        std::vector<LimitRangeItem> out;
        const auto* spec = opt_object(root, "spec", "limitRange");
        if (!spec) return out;
        if (const auto* limits = opt_array(*spec, "limits", "spec")) {
            for (std::size_t i = 0; i < limits->size(); ++i) {
                const std::string at = "spec.limits[" + std::to_string(i) + "]";
                const auto& o = as_object((*limits)[i], at);
                out.push_back({opt_string(o, "type", at), list_at(o, "min", at), list_at(o, "max", at),
                               list_at(o, "maxLimitRequestRatio", at)});
            }
        }
        return out;
    } catch (const DecodeFailure& e) {
        return make_error("invalid_limit_range", e.what());
    }
}

Result<QuotaFacts> decode_resource_quota(const boost::json::value& json) {
    try {
        const auto& root = as_object(json, "resourceQuota");
        QuotaFacts f;
        if (const auto* md = opt_object(root, "metadata", "resourceQuota")) f.name = opt_string(*md, "name", "metadata");
        if (const auto* spec = opt_object(root, "spec", "resourceQuota")) f.hard = list_at(*spec, "hard", "spec");
        if (const auto* st = opt_object(root, "status", "resourceQuota")) {
            if (f.hard.empty()) f.hard = list_at(*st, "hard", "status");
            f.used = list_at(*st, "used", "status");
        }
        return f;
    } catch (const DecodeFailure& e) {
        return make_error("invalid_resource_quota", e.what());
    }
}

std::vector<AdmissionViolation> check_limit_ranges(const Pod& live, const Pod& planned,
                                                   std::span<const LimitRangeItem> items) {
    std::vector<AdmissionViolation> out;
    for (const auto& item : items) {
        if (item.type == "Container") {
            for (const auto* list : {&planned.containers, &planned.init_containers})
                for (const auto& pc : *list)
                    if (const Container* lc = live.find_container(pc.name)) check_container(*lc, pc, item, out);
        } else if (item.type == "Pod") {
            const ResourceList live_req = pod_requests(live), plan_req = pod_requests(planned);
            const ResourceList live_lim = pod_limits(live), plan_lim = pod_limits(planned);
            for (std::string_view r : {kCpu, kMemory}) {
                const Quantity* mx = find(item.max, r);
                if (!mx) continue;
                for (auto [lv, pv, what] : {std::tuple{find(live_req, r), find(plan_req, r), "requests"},
                                            std::tuple{find(live_lim, r), find(plan_lim, r), "limits"}}) {
                    if (pv && *pv > *mx && (!lv || *pv > *lv))
                        out.push_back(
                            {std::string(r), "limit_range",
                             std::string("pod ") + what + " " + q(r, pv) + " > LimitRange Pod max " + q(r, mx)});
                }
            }
        }
    }
    return out;
}

std::vector<AdmissionViolation> check_quota_headroom(const Pod& live, const Pod& planned,
                                                     std::span<const QuotaFacts> quotas) {
    std::vector<AdmissionViolation> out;
    const ResourceList live_req = pod_requests(live), plan_req = pod_requests(planned);
    const ResourceList live_lim = pod_limits(live), plan_lim = pod_limits(planned);
    const Quantity zero;
    for (const auto& quota : quotas) {
        for (std::string_view r : {kCpu, kMemory}) {
            const std::string rs(r);
            const struct {
                std::string key;
                const ResourceList& before;
                const ResourceList& after;
            } keys[] = {{"requests." + rs, live_req, plan_req}, {rs, live_req, plan_req}, {"limits." + rs, live_lim, plan_lim}};
            for (const auto& k : keys) {
                const Quantity* hard = find(quota.hard, k.key);
                if (!hard) continue;
                const Quantity* b = find(k.before, r);
                const Quantity* a = find(k.after, r);
                const Quantity delta = (a ? *a : zero) - (b ? *b : zero);
                if (delta.sign() <= 0) continue;
                const Quantity* used = find(quota.used, k.key);
                const Quantity total = (used ? *used : zero) + delta;
                if (total > *hard)
                    out.push_back({rs, "resource_quota",
                                   "ResourceQuota " + quota.name + " " + k.key + ": used " + q(r, used) + " + " +
                                       q(r, &delta) + " > hard " + q(r, hard)});
            }
        }
    }
    return out;
}

}  // namespace attune::core
