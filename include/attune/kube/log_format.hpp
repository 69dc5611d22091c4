#pragma once
// Logging setup for both binaries (attune-manager, kubectl-attune). Messages are written as `text key=value key="quoted value"`
// (the runtime's convention); --log-format=json turns each into one JSON
// object with "msg" and one field per key, so log pipelines can filter on
// namespace, name, uid and resourceVersion.
#include <string>
#include <string_view>

namespace attune::kube {

// One JSON line (no newline). Pure. A message whose tail does not parse as
// key/values stays whole in "msg".
std::string json_log_line(std::string_view timestamp, std::string_view level, std::string_view message);

// Installs the stderr logger with the format and level (validated by the options).
void setup_logging(std::string_view format, std::string_view level);

}  // namespace attune::kube
