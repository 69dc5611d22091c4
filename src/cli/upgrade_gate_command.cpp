// kubectl attune upgrade-gate: may this cluster go to Kubernetes 1.N?
// Exit 0 safe, 2 actionable block, 3 gate error (fail-safe), 4 held.
#include "commands.hpp"
#include "session.hpp"
#include "upgrade_gate_run.hpp"

#include <ostream>

namespace attune::cli {

const char* const kDefaultMatrix = "/etc/attune-upgrade/addon-compat.json";

namespace {

int run(Invocation& inv) {
    if (!inv.flags.positionals.empty())
        return usage_error(inv.err, "upgrade-gate", "unexpected argument \"" + inv.flags.positionals[0] + "\"",
                           core::kGateError);
    GateOptions opts;
    opts.matrix_path = inv.flags.get("matrix", kDefaultMatrix);
    opts.target = inv.flags.get("target");
    GateRun result;
    const int rc =
        run_in_session(inv, std::chrono::seconds(60), core::kGateError, [&](Session& s) -> boost::asio::awaitable<int> {
            result = co_await run_upgrade_gate(s.client(), opts);
            co_return result.exit_code;
        });
    if (rc == core::kGateError && result.error.empty() && !result.result)
        result.error = "the gate could not run to the end (see above)";
    print_gate_run(result, inv.common.output == OutputFormat::Json, inv.common.output == OutputFormat::Yaml,
                   inv.common.colour, inv.out, inv.err);
    return rc;
}

}  // namespace

Command make_upgrade_gate_command() {
    Command c;
    c.name = "upgrade-gate";
    c.summary = "Check whether the cluster can be upgraded to a Kubernetes minor (the upgrade compat gate)";
    c.usage = "kubectl attune upgrade-gate [--target 1.N] [--matrix FILE] [-o json|yaml]";
    c.description =
        "Prints one tagged line per blocker on stdout: [ACTIONABLE] (someone can fix it; alerts),\n"
        "[WAITING] (no released addon supports the target yet) or [PINNED] (held on purpose).\n"
        "Checks addons against the matrix, removed APIs (the apiserver's apiserver_requested_deprecated_apis\n"
        "and served group-versions in the matrix's api_removals) and node containerd versions.\n\n"
        "Exit codes: 0 safe, 2 actionable block, 3 gate error (any failure to evaluate, bad usage\n"
        "included: fail-safe), 4 held (any WAITING or PINNED blocker; held wins over actionable).";
    c.flags = {
        {"target", 0, FlagKind::Value, "1.N",
         "the Kubernetes version to judge (default: the next minor after the server's)"},
        {"matrix", 0, FlagKind::Value, "FILE", std::string("the compat matrix (default ") + kDefaultMatrix + ")"},
    };
    c.usage_exit = core::kGateError;
    c.run = run;
    return c;
}

}  // namespace attune::cli
