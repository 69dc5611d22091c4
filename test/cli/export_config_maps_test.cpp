#include "export_config_maps.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::cli {
namespace {
namespace json = boost::json;

// A ConfigMap as the manager writes it (core::export_config_map).
TEST(ExportConfigMaps, RecordTable) {
    struct Case {
        const char* what;
        const char* config_map;
        const char* want;
    } cases[] = {
        {"labels, data and two containers in name order",
         R"({"metadata":{"name":"web-api-recommendations","namespace":"shop",
              "labels":{"attune.io/policy":"web","attune.io/workload":"api","attune.io/export-schema":"v1"}},
            "data":{"schema-version":"v1","policy":"web","namespace":"shop","workload":"api","kind":"Deployment",
              "generated-at":"2026-12-01T13:00:00Z","last-updated":"2026-12-01T13:01:00Z",
              "side.cpu-request":"10m","side.memory-request":"16Mi","side.confidence":"0.50",
              "app.cpu-request":"250m","app.memory-request":"128Mi","app.memory-limit":"256Mi","app.confidence":"1.00"}})",
         R"({"namespace":"shop","name":"web-api-recommendations","policy":"web","workload":"api","kind":"Deployment",
             "schemaVersion":"v1","generatedAt":"2026-12-01T13:00:00Z","lastUpdated":"2026-12-01T13:01:00Z","containerCount":2,
             "containers":[{"name":"app","cpuRequest":"250m","memoryRequest":"128Mi","cpuLimit":"0","memoryLimit":"256Mi","confidence":"1.00"},
                           {"name":"side","cpuRequest":"10m","memoryRequest":"16Mi","cpuLimit":"0","memoryLimit":"0","confidence":"0.50"}]})"},
        {"no labels: the data names policy and workload; a dotted container name is kept",
         R"({"metadata":{"name":"p-w-recommendations","namespace":"ns"},
            "data":{"policy":"p","workload":"w","a.b.cpu-request":"1","kind":"StatefulSet"}})",
         R"({"namespace":"ns","name":"p-w-recommendations","policy":"p","workload":"w","kind":"StatefulSet",
             "schemaVersion":null,"generatedAt":null,"lastUpdated":null,"containerCount":1,
             "containers":[{"name":"a.b","cpuRequest":"1","memoryRequest":"0","cpuLimit":"0","memoryLimit":"0","confidence":null}]})"},
        {"nothing but a name", R"({"metadata":{"name":"x","namespace":"ns"}})",
         R"({"namespace":"ns","name":"x","policy":null,"workload":null,"kind":null,"schemaVersion":null,
             "generatedAt":null,"lastUpdated":null,"containerCount":0,"containers":[]})"},
    };
    for (const auto& c : cases)
        EXPECT_EQ(json::value(export_config_map_record(json::parse(c.config_map))), json::parse(c.want)) << c.what;
}

TEST(ExportConfigMaps, Columns) {
    std::string headers;
    for (const auto& c : export_config_map_columns(true)) headers += c.header + (c.wide_only ? "*," : ",");
    EXPECT_EQ(headers, "NAMESPACE,POLICY,WORKLOAD,KIND,CONTAINERS,LAST UPDATED,CONFIGMAP*,GENERATED*,");
    EXPECT_EQ(export_config_map_columns(false).front().header, "POLICY");
}

}  // namespace
}  // namespace attune::cli
