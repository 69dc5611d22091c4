// kubectl-attune: the kubectl plugin (`kubectl attune <command>`). Exit codes:
// 0 ok, 1 error, 2 bad usage; upgrade-gate documents its own (0/2/3/4).
#include "command.hpp"

#include <attune/kube/log_format.hpp>

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <iostream>
#include <string_view>
#include <vector>

int main(int argc, char** argv) {
    std::vector<std::string_view> args(argv + 1, argv + argc);
    // Logs go to stderr as key=value text, at the --log-level the command
    // asks for (set again once flags are parsed); warn until then.
    attune::kube::setup_logging("text", "warn");
    const int code = attune::cli::dispatch(args, attune::cli::all_commands(), std::cout, std::cerr,
                                           isatty(STDOUT_FILENO) == 1);
    std::cout.flush();
    spdlog::shutdown();
    return code;
}
