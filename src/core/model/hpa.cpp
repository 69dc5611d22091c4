#include "attune/core/model/hpa.hpp"

#include <boost/json.hpp>

#include "../util/json_decode.hpp"

namespace attune::core {
namespace {

using namespace detail;

HpaView hpa(const boost::json::value& json) {
    const auto& root = as_object(json, "hpa");
    HpaView h;
    if (const auto* meta = opt_object(root, "metadata", "hpa")) {
        h.namespace_ = opt_string(*meta, "namespace", "metadata");
        h.name = opt_string(*meta, "name", "metadata");
        h.annotations = opt_string_map(*meta, "annotations", "metadata");
    }
    const auto* spec = opt_object(root, "spec", "hpa");
    if (!spec) fail("spec", "missing HPA spec");
    const auto* ref = opt_object(*spec, "scaleTargetRef", "spec");
    if (!ref) fail("spec.scaleTargetRef", "missing");
    h.target_api_version = opt_string(*ref, "apiVersion", "spec.scaleTargetRef");
    h.target_kind = opt_string(*ref, "kind", "spec.scaleTargetRef");
    h.target_name = opt_string(*ref, "name", "spec.scaleTargetRef");
    h.min_replicas = opt_count(*spec, "minReplicas", "spec");
    h.max_replicas = opt_count(*spec, "maxReplicas", "spec").value_or(0);
    if (const auto* metrics = opt_array(*spec, "metrics", "spec")) {
        for (std::size_t i = 0; i < metrics->size(); ++i) {
            const std::string at = "spec.metrics[" + std::to_string(i) + "]";
            const auto& m = as_object((*metrics)[i], at);
            HpaMetric metric{opt_string(m, "type", at), {}};
            if (metric.type == "Resource") {
                if (const auto* r = opt_object(m, "resource", at)) metric.resource_name = opt_string(*r, "name", at + ".resource");
            } else if (metric.type == "ContainerResource") {
                if (const auto* r = opt_object(m, "containerResource", at))
                    metric.resource_name = opt_string(*r, "name", at + ".containerResource");
            }
            h.metrics.push_back(std::move(metric));
        }
    }
    if (const auto* status = opt_object(root, "status", "hpa")) {
        if (const auto* conds = opt_array(*status, "conditions", "status")) {
            for (std::size_t i = 0; i < conds->size(); ++i) {
                const std::string at = "status.conditions[" + std::to_string(i) + "]";
                const auto& c = as_object((*conds)[i], at);
                h.conditions.push_back({opt_string(c, "type", at), opt_string(c, "status", at),
                                        opt_string(c, "reason", at), opt_string(c, "message", at)});
            }
        }
    }
    return h;
}

}  // namespace

Result<HpaView> decode_hpa(const boost::json::value& json) {
    return guarded("invalid_hpa", [&] { return Result<HpaView>(hpa(json)); });
}

const HpaView* find_matching_hpa(std::span<const HpaView> hpas, std::string_view kind, std::string_view name) {
    for (const auto& h : hpas) {
        if (h.target_kind == kind && h.target_name == name) return &h;
    }
    return nullptr;
}

bool hpa_has_resource_metric(const HpaView& hpa, std::initializer_list<std::string_view> names) {
    auto wanted = [&](std::string_view r) {
        for (auto n : names)
            if (n == r) return true;
        return false;
    };
    if (hpa.metrics.empty()) return wanted("cpu");
    for (const auto& m : hpa.metrics) {
        if ((m.type == "Resource" || m.type == "ContainerResource") && wanted(m.resource_name)) return true;
    }
    return false;
}

}  // namespace attune::core
