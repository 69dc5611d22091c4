#pragma once
// The gate's I/O: read the matrix file, ask the cluster what the core needs
// (version, addon workloads, /metrics, discovery, nodes), run the core's
// evaluate_upgrade_gate. Any failure to evaluate is exit 3, never 0.
// Shared by `upgrade-gate` and `upgrade-step --phase preflight`.
#include <attune/core/upgrade/upgrade_gate.hpp>
#include <attune/kube/client.hpp>

#include <boost/asio/awaitable.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace attune::cli {

struct GateOptions {
    GateOptions() = default;  // not an aggregate (GCC 12, see kube/client.hpp)
    std::string matrix_path;
    std::string target;  // "" : the next minor after the server's
};

struct GateRun {
    GateRun() = default;
    int exit_code = core::kGateError;
    std::string target;  // as judged ("1.36"), when known
    core::GateInputs inputs;
    std::optional<core::GateResult> result;
    std::string error;  // the gate error (exit 3)
};

boost::asio::awaitable<GateRun> run_upgrade_gate(kube::Client& c, GateOptions opts);

// Reason lines on stdout (tags coloured on a terminal) or the JSON/YAML
// document, plus one summary line on `err`.
void print_gate_run(const GateRun& run, bool json, bool yaml, bool colour, std::ostream& out, std::ostream& err);

// The tagged lines of a run (for the step's report ConfigMap and log).
std::vector<std::string> gate_lines(const GateRun& run);

}  // namespace attune::cli
