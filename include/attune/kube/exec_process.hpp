#pragma once
// Running one exec credential plugin: posix_spawn with pipes, stdout and
// stderr read asynchronously on the caller's executor, a hard deadline after
// which the plugin is killed, and the child always reaped. The io thread is
// never blocked: a hung plugin costs a timer, not the process. Runs on a
// single-threaded executor (as kube::Client does).
#include <attune/kube/exec_credential.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace attune::kube {

struct ExecSpawn {
    ExecSpawn() = default;  // not an aggregate: it travels into a coroutine (see client.hpp)
    std::string command;  // a bare name is looked up in this process's $PATH
    std::vector<std::string> args;
    std::vector<std::string> env;  // the child's whole environment, "NAME=value"
    // Interactive: the child shares our stdin and stderr and our process
    // group (a terminal's foreground job). Otherwise stdin is /dev/null,
    // stderr is captured, and the child leads a process group of its own so
    // that a kill reaches whatever it started.
    bool interactive = false;
    std::chrono::milliseconds timeout{30'000};
    std::size_t stdout_cap = 1u << 20;
    std::size_t stderr_tail = 4096;
};

boost::asio::awaitable<ExecRun> run_exec_plugin(boost::asio::any_io_executor ex, ExecSpawn spec);

// This process's environment as "NAME=value" entries.
std::vector<std::string> current_environment();

}  // namespace attune::kube
