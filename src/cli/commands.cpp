#include "commands.hpp"

namespace attune::cli {

std::vector<Command> all_commands() {
    std::vector<Command> out;
    out.push_back(make_version_command());
    out.push_back(make_doctor_command());
    out.push_back(make_status_command());
    out.push_back(make_recommendations_command());
    out.push_back(make_explain_command());
    out.push_back(make_history_command());
    out.push_back(make_savings_command());
    out.push_back(make_preview_command());
    out.push_back(make_diff_command());
    out.push_back(make_export_command());
    out.push_back(make_migrate_command());
    out.push_back(make_wizard_command());
    out.push_back(make_upgrade_gate_command());
    out.push_back(make_upgrade_step_command());
    out.push_back(make_upgrade_report_command());
    return out;
}

}  // namespace attune::cli
