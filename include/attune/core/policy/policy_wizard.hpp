#pragma once
// `kubectl attune wizard`: the questions that build an AttunePolicy, as a
// state machine over lines of text. Pure: the shell prints what each output
// says, reads a line when asked, and carries out the I/O the output names
// (list the namespace's workloads, check the policy, create it, write a
// file), then feeds the result back. Every answer is checked as the CRD and
// the manager check it, and a bad one is asked again with the reason;
// docs/cli.md "wizard" lists the questions.
#include "attune/core/util/result.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace attune::core {

// A workload the target question offers.
struct WizardWorkload {
    std::string kind;  // Deployment, StatefulSet
    std::string name;
    std::int64_t replicas = 0;
};

// What the shell found in the namespace that was chosen.
struct WizardWorkloads {
    bool namespace_missing = false;  // the namespace does not exist: the question is asked again
    std::string error;               // the list failed: the target is typed, not picked
    std::vector<WizardWorkload> items;
};

enum class WizardAction : std::uint8_t {
    Ask,            // print text, then prompt; read one line: answer(), or end_of_input() at EOF
    ListWorkloads,  // print text; list `ns`'s Deployments and StatefulSets: workloads_listed()
    Validate,       // check `policy` as the manager and the apiserver would: validated()
    Create,         // create `policy` in `ns`: created()
    WriteFile,      // write the preview of `policy` to `path`, never over an existing file: written()
    Finish,         // print text; exit with exit_code
};

struct WizardOutput {
    WizardAction action = WizardAction::Ask;
    std::string text;           // lines to print first (a reason, a list, a result); "" or ends with '\n'
    bool show_policy = false;   // print the policy (YAML) after `text`
    std::string prompt;         // Ask: the question, its default in brackets, ending with ": "
    std::string ns;             // ListWorkloads, Create
    boost::json::value policy;  // Validate, Create, WriteFile, and with show_policy
    std::string path;           // WriteFile
    int exit_code = 0;          // Finish: 0 created, written or quit; 1 aborted
};

struct WizardOptions {
    std::string default_namespace;  // -n, else the kubeconfig context's
    // Loopback Prometheus addresses pass, as the CLI's validation lets them
    // (the manager's flag decides; its verdict is the Ready condition).
    bool allow_local_addresses = true;
    // "" when the time zone is in the zone database, else why not; unset:
    // only the name's shape is checked.
    std::function<std::string(std::string_view)> check_zone;
};

enum class WizardStep : std::uint8_t {
    Namespace,
    Target,
    SelectorKind,
    Name,
    Mode,
    Source,
    PrometheusAddress,
    VpaName,
    ManualContainer,
    ManualCpu,
    ManualMemory,
    CpuPercentile,
    CpuMin,
    CpuMax,
    MemoryPercentile,
    MemoryMin,
    MemoryMax,
    Windows,
    Days,
    TimeZone,
    Cooldown,
    Action,
    File,
    Done,
};

class PolicyWizard {
public:
    explicit PolicyWizard(WizardOptions options);

    WizardOutput start();
    // One line the person typed, without its newline.
    WizardOutput answer(std::string_view line);
    // Ctrl-D or the end of --answers: nothing is created.
    WizardOutput end_of_input();
    WizardOutput workloads_listed(WizardWorkloads found);
    // "" when the policy passes, else the reason it would be refused.
    WizardOutput validated(std::string error);
    WizardOutput created(std::string error);
    WizardOutput written(std::string error);

    WizardStep step() const noexcept { return step_; }
    // The policy the answers make (also before the last question).
    boost::json::value policy() const;

private:
    WizardOutput ask(WizardStep s, std::string reason = {});
    WizardOutput after(WizardStep s);
    WizardOutput accept(std::string_view value);
    std::string default_for(WizardStep s) const;
    bool resizes() const;

    WizardOptions options_;
    WizardStep step_ = WizardStep::Namespace;
    WizardWorkloads workloads_;
    bool valid_ = false;  // the last validation passed: create and write are offered
    std::string pending_text_;
    // The answers as typed (defaults filled in), by step: the defaults when
    // the person goes back to change them.
    std::map<WizardStep, std::string> answers_;
    // What the answers mean.
    std::string ns_, kind_, workload_, name_, mode_, source_;
    std::map<std::string, std::string> selector_;
    std::vector<std::pair<std::string, std::string>> windows_;
    std::vector<std::string> days_;
};

}  // namespace attune::core
