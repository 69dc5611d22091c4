#include "attune/core/idle.hpp"

#include <boost/json.hpp>
#include <limits>

#include "json_decode.hpp"

namespace attune::core {
namespace {

using namespace detail;

std::optional<std::int32_t> replicas(const boost::json::object& o, std::string_view key, const std::string& path) {
    const auto v = opt_int(o, key, path);
    if (!v) return std::nullopt;
    if (*v < 0 || *v > std::numeric_limits<std::int32_t>::max()) fail(path + "." + std::string(key), "out of range");
    return static_cast<std::int32_t>(*v);
}

HpaView hpa(const boost::json::value& json) {
    const auto& root = as_object(json, "hpa");
    HpaView h;
    if (const auto* meta = opt_object(root, "metadata", "hpa")) {
        h.namespace_ = opt_string(*meta, "namespace", "metadata");
        h.name = opt_string(*meta, "name", "metadata");
        if (const auto* ann = opt_object(*meta, "annotations", "metadata")) {
            for (const auto& [k, v] : *ann)
                if (v.is_string()) h.annotations.emplace(std::string(k), std::string(v.get_string()));
        }
    }
    const auto* spec = opt_object(root, "spec", "hpa");
    if (!spec) fail("spec", "missing HPA spec");
    const auto* ref = opt_object(*spec, "scaleTargetRef", "spec");
    if (!ref) fail("spec.scaleTargetRef", "missing");
    h.target_api_version = opt_string(*ref, "apiVersion", "spec.scaleTargetRef");
    h.target_kind = opt_string(*ref, "kind", "spec.scaleTargetRef");
    h.target_name = opt_string(*ref, "name", "spec.scaleTargetRef");
    h.min_replicas = replicas(*spec, "minReplicas", "spec");
    h.max_replicas = replicas(*spec, "maxReplicas", "spec").value_or(0);
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

result<HpaView> decode_hpa(const boost::json::value& json) {
    try {
        return hpa(json);
    } catch (const decode_failure& e) {
        return make_error("invalid_hpa", e.what());
    }
}

result<WorkloadView> decode_workload(std::string_view kind, const boost::json::value& json) {
    try {
        const auto& root = as_object(json, std::string(kind));
        WorkloadView w;
        w.kind = std::string(kind);
        if (const auto* meta = opt_object(root, "metadata", w.kind)) w.name = opt_string(*meta, "name", "metadata");
        if (kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet") {
            const auto* spec = opt_object(root, "spec", w.kind);
            w.spec_replicas = spec ? replicas(*spec, "replicas", "spec").value_or(1) : 1;
        } else if (kind != "DaemonSet" && kind != "Job" && kind != "CronJob") {
            return make_error("invalid_workload", "unsupported workload kind \"" + w.kind + "\"");
        }
        return w;
    } catch (const decode_failure& e) {
        return make_error("invalid_workload", e.what());
    }
}

IdleKind classify_workload_idle(const WorkloadView& workload, const HpaView* matching_hpa) {
    if (matching_hpa) {
        for (const auto& c : matching_hpa->conditions) {
            if (c.type == "ScaledToZero" && c.status == "True") return IdleKind::HPAScaledToZero;
        }
    }
    if (workload.spec_replicas && *workload.spec_replicas == 0) return IdleKind::ManualZero;
    return IdleKind::None;
}

std::string_view idle_reason(IdleKind kind) noexcept {
    switch (kind) {
        case IdleKind::HPAScaledToZero: return "HPAScaledToZero";
        case IdleKind::ManualZero: return "WorkloadReplicasZero";
        case IdleKind::None: return "";
    }
    return "";
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

std::optional<HpaConflict> check_hpa_conflict(std::span<const HpaView> hpas, std::string_view name,
                                              std::string_view kind) {
    for (const auto& h : hpas) {
        if (h.target_kind != kind || h.target_name != name) continue;
        if (!hpa_has_resource_metric(h, {"cpu", "memory"})) continue;
        return HpaConflict{h.name, "HorizontalPodAutoscaler " + h.name + " scales " + std::string(kind) + "/" +
                                       std::string(name) +
                                       " on CPU or memory; vertical resizes change its utilisation signal"};
    }
    return std::nullopt;
}

void strip_hpa_json(boost::json::object& hpa) {
    if (auto* meta = hpa.if_contains("metadata"); meta && meta->is_object()) meta->get_object().erase("managedFields");
    if (auto* status = hpa.if_contains("status"); status && status->is_object())
        status->get_object().erase("currentMetrics");
}

}  // namespace attune::core
