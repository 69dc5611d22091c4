#pragma once
// The cluster's capabilities (version, resize subresource, feature gates),
// probed once at start and handed to the controller and the resize
// executor; safe defaults where the probe fails.
#include "manager_context.hpp"

namespace attune::controller {
class Controller;
class ResizeExecutor;
}  // namespace attune::controller

namespace attune::manager {

boost::asio::awaitable<void> probe_capabilities(ManagerContext& ctx, controller::Controller& c,
                                                controller::ResizeExecutor& e);

}  // namespace attune::manager
