#include "export_config_maps.hpp"

#include "object_fields.hpp"

#include <attune/core/policy/annotations.hpp>
#include <attune/core/util/json_path.hpp>

#include <boost/json.hpp>

#include <map>
#include <string>

namespace attune::cli {
namespace json = boost::json;

json::object export_config_map_record(const json::value& cm) {
    const auto label = [&](std::string_view key) { return core::string_at(cm, {"metadata", "labels", key}); };
    const auto data = [&](std::string_view key) { return core::string_at(cm, {"data", key}); };
    const auto either = [](std::string_view a, std::string_view b) { return str_or_null(a.empty() ? b : a); };
    // "<container>.<key>" entries, in container name order.
    std::map<std::string, json::object, std::less<>> containers;
    static const std::pair<std::string_view, std::string_view> kKeys[] = {{"cpu-request", "cpuRequest"},
                                                                          {"memory-request", "memoryRequest"},
                                                                          {"cpu-limit", "cpuLimit"},
                                                                          {"memory-limit", "memoryLimit"},
                                                                          {"confidence", "confidence"}};
    if (const auto* d = core::object_at(cm, {"data"}))
        for (const auto& kv : *d) {
            const std::string_view key = kv.key();
            for (const auto& [suffix, field] : kKeys) {
                if (key.size() <= suffix.size() + 1 || !key.ends_with(suffix) ||
                    key[key.size() - suffix.size() - 1] != '.')
                    continue;
                const auto name = key.substr(0, key.size() - suffix.size() - 1);
                auto& c = containers[std::string(name)];
                if (c.empty())
                    c = json::object{{"name", name},    {"cpuRequest", "0"},  {"memoryRequest", "0"},
                                     {"cpuLimit", "0"}, {"memoryLimit", "0"}, {"confidence", nullptr}};
                c[field] = kv.value().is_string() ? kv.value() : json::value(nullptr);
            }
        }
    json::array list;
    for (auto& [name, c] : containers) list.push_back(std::move(c));
    return json::object{{"namespace", str_or_null(core::string_at(cm, {"metadata", "namespace"}))},
                        {"name", str_or_null(core::string_at(cm, {"metadata", "name"}))},
                        {"policy", either(label(core::kExportPolicyLabel), data("policy"))},
                        {"workload", either(label(core::kExportWorkloadLabel), data("workload"))},
                        {"kind", str_or_null(data("kind"))},
                        {"schemaVersion", either(data("schema-version"), label(core::kExportSchemaLabel))},
                        {"generatedAt", str_or_null(data("generated-at"))},
                        {"lastUpdated", str_or_null(data("last-updated"))},
                        {"containerCount", list.size()},
                        {"containers", std::move(list)}};
}

std::vector<Column> export_config_map_columns(bool all_namespaces) {
    std::vector<Column> cols;
    if (all_namespaces) cols.push_back({"NAMESPACE", "namespace"});
    for (Column c : std::initializer_list<Column>{{"POLICY", "policy"},
                                                  {"WORKLOAD", "workload"},
                                                  {"KIND", "kind"},
                                                  {"CONTAINERS", "containerCount"},
                                                  {"LAST UPDATED", "lastUpdated"},
                                                  {"CONFIGMAP", "name", true},
                                                  {"GENERATED", "generatedAt", true}})
        cols.push_back(std::move(c));
    return cols;
}

}  // namespace attune::cli
