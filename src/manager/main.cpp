// attune-manager: flags -> wiring (app.cpp). Exit codes: 0 after SIGTERM or
// SIGINT, 1 on a fatal runtime condition, 2 on bad flags.
#include "app.hpp"
#include <attune/kube/log_format.hpp>
#include "options.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <string_view>
#include <vector>

int main(int argc, char** argv) {
    std::vector<std::string_view> args(argv + 1, argv + argc);
    auto parsed = attune::manager::parse_options(args);
    if (!parsed) {
        std::fprintf(stderr, "attune-manager: %s\n\n%s", parsed.error().message.c_str(),
                     attune::manager::usage().c_str());
        return 2;
    }
    const auto& opts = parsed.value();
    if (opts.help) {
        std::fputs(attune::manager::usage().c_str(), stdout);
        return 0;
    }
    attune::kube::setup_logging(opts.log_format, opts.log_level);
    const int code = attune::manager::run_manager(opts);
    spdlog::shutdown();
    return code;
}
