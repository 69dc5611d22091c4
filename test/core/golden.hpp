#pragma once
// Loads a committed golden vector file (test/data/*.json, written by the Go
// generators in test/golden/ from upstream Kubernetes code; api_fields.json
// by hack/crd-gen.py from the CRD schemas).
#include <boost/json/value.hpp>
#include <string>

namespace attune::core::testing {
boost::json::value load_golden(const std::string& file_name);
}
