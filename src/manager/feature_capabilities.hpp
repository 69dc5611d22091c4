#pragma once
// The cluster's capabilities (version, resize subresource, feature gates),
// probed once at start and handed to the controller and the resize
// executor; safe defaults where the probe fails.
#include "manager_context.hpp"

namespace attune::controller {
class controller;
class resize_executor;
}  // namespace attune::controller

namespace attune::manager {

boost::asio::awaitable<void> probe_capabilities(manager_context& ctx, controller::controller& c,
                                                controller::resize_executor& e);

}  // namespace attune::manager
