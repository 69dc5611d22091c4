#pragma once
// One factory per subcommand; all_commands() (command.cpp) lists them.
#include "command.hpp"

namespace attune::cli {

std::string client_version();  // "v0.1.0"

command make_version_command();
command make_doctor_command();
command make_status_command();
command make_recommendations_command();
command make_explain_command();
command make_history_command();
command make_upgrade_gate_command();
command make_upgrade_step_command();
command make_upgrade_report_command();

extern const char* const kDefaultMatrix;  // where the kustomize Job mounts the matrix ConfigMap

}  // namespace attune::cli
