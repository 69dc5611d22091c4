#include <attune/core/recommend/recommendation_export.hpp>

#include <attune/core/policy/annotations.hpp>

#include <boost/json/array.hpp>

#include <cstdio>

namespace attune::core {
namespace json = boost::json;

namespace {

// Object names are DNS subdomains; label values are at most 63 characters
// (k8s.io/apimachinery/pkg/util/validation, v0.36).
constexpr std::size_t kMaxName = 253;
constexpr std::size_t kMaxLabelValue = 63;

std::string two_decimals(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

}  // namespace

std::string export_config_map_name(std::string_view policy, std::string_view workload) {
    std::string name;
    name.reserve(policy.size() + workload.size() + 17);
    name.append(policy).append("-").append(workload).append("-recommendations");
    return name;
}

Result<json::object> export_config_map(const ExportTarget& target, const WorkloadRecommendation& rec,
                                       Timestamp generated_at, Timestamp now) {
    const auto name = export_config_map_name(target.policy, target.workload);
    if (name.size() > kMaxName)
        return make_error("export_name_invalid", "the export ConfigMap name " + name + " is " +
                                                     std::to_string(name.size()) +
                                                     " characters long; at most 253 are allowed");
    for (const auto& v : {target.policy, target.workload})
        if (v.size() > kMaxLabelValue)
            return make_error("export_name_invalid", "the label value " + v + " of the export ConfigMap is " +
                                                         std::to_string(v.size()) +
                                                         " characters long; at most 63 are allowed");
    json::object labels;
    labels[kExportPolicyLabel] = target.policy;
    labels[kExportWorkloadLabel] = target.workload;
    labels[kExportSchemaLabel] = kExportSchemaVersion;
    json::object owner{{"apiVersion", "attune.io/v1alpha1"},
                       {"kind", "AttunePolicy"},
                       {"name", target.policy},
                       {"uid", target.policy_uid},
                       {"controller", true}};
    json::object metadata{{"name", name}, {"namespace", target.ns}, {"labels", std::move(labels)}};
    if (!target.policy_uid.empty()) metadata["ownerReferences"] = json::array{std::move(owner)};

    json::object data;
    data["schema-version"] = kExportSchemaVersion;
    data["policy"] = target.policy;
    data["namespace"] = target.ns;
    data["workload"] = target.workload;
    data["kind"] = target.kind;
    data["generated-at"] = format_timestamp(generated_at);
    data["last-updated"] = format_timestamp(now);
    for (const auto& c : rec.containers) {
        const auto& r = c.recommended;
        data[c.name + ".cpu-request"] = r.cpu_request.to_string();
        data[c.name + ".memory-request"] = r.memory_request.to_string();
        if (r.cpu_limit.sign() > 0) data[c.name + ".cpu-limit"] = r.cpu_limit.to_string();
        if (r.memory_limit.sign() > 0) data[c.name + ".memory-limit"] = r.memory_limit.to_string();
        data[c.name + ".confidence"] = two_decimals(c.confidence);
    }
    return json::object{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", std::move(metadata)},
                        {"data", std::move(data)}};
}

}  // namespace attune::core
