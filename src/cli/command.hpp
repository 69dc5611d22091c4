#pragma once
// The kubectl-attune command table and the options every subcommand shares
// (kubectl's conventions). A subcommand is a name, its own flags and a run
// function; main() finds it, parses the shared and its own flags together,
// answers --help, and maps a usage error to the command's usage exit code.
#include "flags.hpp"
#include "output.hpp"

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace attune::cli {

// Exit codes shared by every subcommand (upgrade-gate has its own, see there).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

// kubectl's flags, accepted by every subcommand.
struct CommonOptions {
    std::string kubeconfig;
    std::string context;
    std::string ns;               // -n; empty: the kubeconfig context's namespace
    bool all_namespaces = false;  // -A
    OutputFormat output = OutputFormat::Table;
    bool no_headers = false;
    std::string sort_by;
    std::string log_level = "warn";  // logs go to stderr; kubectl is quiet by default
    bool allow_insecure_tls = false;
    std::chrono::milliseconds request_timeout{0};  // 0: the command's own deadline
    bool colour = false;                            // decided from the terminal, not a flag
};

std::vector<FlagSpec> common_flag_specs();
core::Result<CommonOptions> common_options_from(const ParsedFlags& f);

struct Invocation {
    CommonOptions common;
    ParsedFlags flags;  // the command's own flags and positionals
    std::ostream& out;
    std::ostream& err;
};

struct Command {
    std::string name;
    std::string summary;      // one line, for the command list
    std::string usage;        // "kubectl attune upgrade-gate [--target 1.N] [flags]"
    std::string description;  // paragraphs for --help
    std::vector<FlagSpec> flags;
    int usage_exit = kExitUsage;  // upgrade-gate: 3, since 2 means "actionable"
    std::function<int(Invocation&)> run;
};

// Writes kubectl's usage-error text and returns `code` (the command's usage exit).
int usage_error(std::ostream& err, std::string_view command_name, std::string_view message, int code);

// The registry; each subcommand's file contributes one make_*_command().
std::vector<Command> all_commands();

// Full --help text of one command (its flags, then the shared ones).
std::string command_help(const Command& c);
// `kubectl attune --help`: the command list and the shared flags.
std::string root_help(const std::vector<Command>& commands);

// Parses argv (without argv[0]), runs the command, returns the exit code.
// `is_tty` decides colour (stdout).
int dispatch(std::span<const std::string_view> args, const std::vector<Command>& commands, std::ostream& out,
             std::ostream& err, bool is_tty);

}  // namespace attune::cli
