#pragma once
// The manager process on one io_context thread: app.cpp composes the
// features (feature_*.hpp: informers, controller, executor, webhook, leader
// election, probes, shutdown) over one shared ManagerContext.
#include "options.hpp"

namespace attune::manager {

// Runs until SIGTERM/SIGINT (0) or a fatal condition such as lost leadership (1).
int run_manager(const ManagerOptions& opts);

}  // namespace attune::manager
