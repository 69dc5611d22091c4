#pragma once
// One factory per subcommand; all_commands() (command.cpp) lists them.
#include "command.hpp"

namespace attune::cli {

std::string client_version();  // "v0.1.0"

Command make_version_command();
Command make_doctor_command();
Command make_status_command();
Command make_recommendations_command();
Command make_explain_command();
Command make_history_command();
Command make_savings_command();
Command make_preview_command();
Command make_diff_command();
Command make_export_command();
Command make_migrate_command();
Command make_wizard_command();
Command make_upgrade_gate_command();
Command make_upgrade_step_command();
Command make_upgrade_report_command();

extern const char* const kDefaultMatrix;  // where the kustomize Job mounts the matrix ConfigMap

}  // namespace attune::cli
