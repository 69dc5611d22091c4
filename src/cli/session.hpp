#pragma once
// One kubectl-attune run against a cluster: the kubeconfig (kubectl's rules,
// kube::load_default_config), one io_context and one kube::Client, and a
// deadline over the whole command. Commands are coroutines run by run().
#include "command.hpp"

#include <attune/kube/client.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace attune::cli {

class Session {
public:
    // Throws kube::ConfigError for an unusable kubeconfig.
    explicit Session(const CommonOptions& opts);
    ~Session();

    boost::asio::io_context& io() noexcept { return io_; }
    kube::Client& client() noexcept { return *client_; }
    // -n, else the kubeconfig context's namespace (in-cluster: the pod's).
    const std::string& ns() const noexcept { return ns_; }

    // Runs `body` to completion. If `deadline` passes first, every pending
    // request is aborted, the body is abandoned and nullopt is returned; an
    // exception from the body is logged and also gives nullopt. May be
    // called again for the next body (the wizard: one per request).
    std::optional<int> run(std::function<boost::asio::awaitable<int>()> body, std::chrono::milliseconds deadline);
    bool timed_out() const noexcept { return timed_out_; }
    // The body ignored the abort for 5 s and the loop was stopped under it.
    bool abandoned() const noexcept { return abandoned_; }

private:
    boost::asio::io_context io_;
    std::unique_ptr<kube::Client> client_;
    std::string ns_;
    bool timed_out_ = false;
    bool abandoned_ = false;
};

// The deadline for a command: --request-timeout when given, else `fallback`.
std::chrono::milliseconds deadline_for(const CommonOptions& o, std::chrono::milliseconds fallback);

// A session for the command's kubeconfig, or nullptr after the "error: ..."
// line for an unusable one.
std::unique_ptr<Session> open_session(Invocation& inv);

// Builds a session, runs `body` and maps failures to `error_exit`: an unusable
// kubeconfig, an exception or the deadline print "error: ..." on stderr.
int run_in_session(Invocation& inv, std::chrono::milliseconds default_deadline, int error_exit,
                   std::function<boost::asio::awaitable<int>(Session&)> body);

}  // namespace attune::cli
