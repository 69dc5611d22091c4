#pragma once
// Where the error policy's "infrastructure failures throw" lands: a spawned
// coroutine that throws is logged, counted and restarted after a backoff,
// until its stop flag is set. Expected I/O outcomes never get here.
#include <attune/kube/backoff.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <functional>
#include <memory>
#include <string>

namespace prometheus {
class Counter;
template <typename T>
class Family;
}  // namespace prometheus

namespace attune::kube {

struct SupervisorHandle {
    std::shared_ptr<bool> stop = std::make_shared<bool>(false);
    void request_stop() const noexcept { *stop = true; }
};

// Runs `body()` until it returns normally or the handle is stopped; an
// exception restarts it after backoff. `crashes` (optional) is incremented
// with label {task=name} on every caught exception.
SupervisorHandle spawn_supervised(boost::asio::any_io_executor ex, std::string name,
                                  std::function<boost::asio::awaitable<void>()> body, BackoffPolicy backoff = {},
                                  prometheus::Family<prometheus::Counter>* crashes = nullptr);

}  // namespace attune::kube
