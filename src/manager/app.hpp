#pragma once
// The manager process: wiring of client, informers, controller, leader
// election, the probe server and signals on one io_context thread.
#include "options.hpp"

namespace attune::manager {

// Runs until SIGTERM/SIGINT (0) or a fatal condition such as lost leadership (1).
int run_manager(const manager_options& opts);

}  // namespace attune::manager
