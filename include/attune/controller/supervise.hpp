#pragma once
// The spawn-site error policy: a spawned task that throws (an infrastructure
// failure: a bug, bad_alloc, an Asio error we did not expect) is logged,
// counted in attune_coroutine_restarts_total{task} and restarted with
// backoff. A task that returns normally is finished.
#include <attune/controller/metrics.hpp>
#include <attune/kube/backoff.hpp>

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <string>

namespace attune::controller {

boost::asio::awaitable<void> supervise(std::string task, std::function<boost::asio::awaitable<void>()> body,
                                       controller_metrics* metrics, std::function<bool()> stopping,
                                       kube::backoff_policy backoff = {std::chrono::milliseconds(500), 2.0,
                                                                       std::chrono::milliseconds(30'000), 0.2});

}  // namespace attune::controller
