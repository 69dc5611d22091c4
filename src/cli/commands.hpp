#pragma once
// One factory per subcommand; all_commands() (command.cpp) lists them.
// Issue #12 adds doctor, status, recommendations, explain and history here.
#include "command.hpp"

namespace attune::cli {

std::string client_version();  // "v0.1.0"

command make_version_command();

}  // namespace attune::cli
