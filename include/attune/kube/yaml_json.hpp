#pragma once
// YAML as JSON values and back, for what the manager and the plugin read and
// write as YAML: a kubeconfig's exec extension, the plugin's -o yaml, the
// manifests a GitOps pull request edits. Scalars follow the YAML 1.2 core
// schema: quoted ones stay strings, plain ones become null, booleans or
// numbers when they read as such. Comments and anchors do not survive the
// round trip.
#include <attune/core/util/result.hpp>

#include <boost/json/value.hpp>
#include <yaml-cpp/node/node.h>

#include <string>
#include <string_view>
#include <vector>

namespace attune::kube {

boost::json::value yaml_to_json(const YAML::Node& n);

// Every document of a YAML stream ("---" between them), empty ones skipped.
// Error "invalid_yaml" with the parser's line and column.
core::Result<std::vector<boost::json::value>> parse_yaml_documents(std::string_view text);

// Block YAML ending in a newline; strings that YAML would read as another
// type are quoted.
std::string to_yaml(const boost::json::value& v);

}  // namespace attune::kube
