#include "command.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <ostream>

namespace attune::cli {

std::vector<FlagSpec> common_flag_specs() {
    return {
        {"namespace", 'n', FlagKind::Value, "NAME", "the namespace scope for this request"},
        {"all-namespaces", 'A', FlagKind::Boolean, "", "list across all namespaces"},
        {"kubeconfig", 0, FlagKind::Value, "PATH",
         "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)"},
        {"context", 0, FlagKind::Value, "NAME", "kubeconfig context to use"},
        {"output", 'o', FlagKind::Value, "FORMAT", "table (default), wide, json or yaml"},
        {"no-headers", 0, FlagKind::Boolean, "", "table output without the header row"},
        {"sort-by", 0, FlagKind::Value, "PATH", "sort table rows by a JSONPath (.name) or a column header"},
        {"request-timeout", 0, FlagKind::Value, "DURATION",
         "give up after this long (e.g. 30s, 5m; 0: the command's default)"},
        {"allow-insecure-tls", 0, FlagKind::Boolean, "", "accept insecure-skip-tls-verify in the kubeconfig"},
        {"log-level", 0, FlagKind::Value, "LEVEL", "stderr log level: debug, info, warn (default), error"},
        {"help", 'h', FlagKind::Boolean, "", "help for this command"},
    };
}

core::Result<CommonOptions> common_options_from(const ParsedFlags& f) {
    CommonOptions o;
    o.kubeconfig = f.get("kubeconfig");
    o.context = f.get("context");
    o.ns = f.get("namespace");
    o.all_namespaces = f.flag("all-namespaces");
    auto fmt = parse_output_format(f.get("output"));
    if (!fmt) return fmt.error();
    o.output = fmt.value();
    o.no_headers = f.flag("no-headers");
    o.sort_by = f.get("sort-by");
    o.allow_insecure_tls = f.flag("allow-insecure-tls");
    o.log_level = f.get("log-level", "warn");
    if (o.log_level != "debug" && o.log_level != "info" && o.log_level != "warn" && o.log_level != "error")
        return core::make_error("bad_usage", "invalid argument \"" + o.log_level +
                                                 "\" for \"--log-level\": expected debug, info, warn or error");
    if (f.has("request-timeout")) {
        auto d = parse_duration("request-timeout", f.get("request-timeout"));
        if (!d) return d.error();
        o.request_timeout = d.value();
    }
    return o;
}

int usage_error(std::ostream& err, std::string_view command_name, std::string_view message, int code) {
    err << "error: " << message << "\nSee 'kubectl attune " << command_name << " --help' for usage.\n";
    return code;
}

std::string command_help(const Command& c) {
    std::string out = c.summary + "\n\n";
    if (!c.description.empty()) out += c.description + "\n\n";
    out += "Usage:\n  " + c.usage + "\n";
    if (!c.flags.empty()) out += "\nFlags:\n" + flags_help(c.flags);
    const auto common = common_flag_specs();
    out += "\nShared flags (every kubectl attune command):\n" + flags_help(common);
    return out;
}

std::string root_help(const std::vector<Command>& commands) {
    std::string out =
        "kubectl attune: Attune's kubectl plugin.\n\nUsage:\n  kubectl attune <command> [flags]\n\nCommands:\n";
    std::size_t width = 0;
    for (const auto& c : commands) width = std::max(width, c.name.size());
    for (const auto& c : commands) out += "  " + c.name + std::string(width - c.name.size() + 3, ' ') + c.summary + "\n";
    const auto common = common_flag_specs();
    out += "\nShared flags:\n" + flags_help(common);
    out += "\nUse \"kubectl attune <command> --help\" for more about a command.\n";
    return out;
}

int dispatch(std::span<const std::string_view> args, const std::vector<Command>& commands, std::ostream& out,
             std::ostream& err, bool is_tty) {
    const auto common = common_flag_specs();
    const auto at = find_subcommand(args, common);
    if (!at) {
        // No subcommand: --help (or nothing) prints the list, as kubectl does.
        auto f = parse_flags(args, common);
        if (!f) {
            err << "error: " << f.error().message << "\nSee 'kubectl attune --help' for usage.\n";
            return kExitUsage;
        }
        out << root_help(commands);
        return kExitOk;
    }
    const std::string_view name = args[*at];
    if (name == "help") {
        out << root_help(commands);
        return kExitOk;
    }
    auto it = std::find_if(commands.begin(), commands.end(), [&](const Command& c) { return c.name == name; });
    if (it == commands.end()) {
        err << "error: unknown command \"" << name << "\" for \"kubectl attune\"\n"
            << "See 'kubectl attune --help' for the list of commands.\n";
        return kExitUsage;
    }
    const Command& cmd = *it;
    std::vector<FlagSpec> specs = cmd.flags;
    specs.insert(specs.end(), common.begin(), common.end());
    std::vector<std::string_view> rest(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(*at));
    rest.insert(rest.end(), args.begin() + static_cast<std::ptrdiff_t>(*at) + 1, args.end());
    auto parsed = parse_flags(rest, specs);
    if (!parsed) return usage_error(err, cmd.name, parsed.error().message, cmd.usage_exit);
    if (parsed.value().flag("help")) {
        out << command_help(cmd);
        return kExitOk;
    }
    auto opts = common_options_from(parsed.value());
    if (!opts) return usage_error(err, cmd.name, opts.error().message, cmd.usage_exit);
    spdlog::set_level(spdlog::level::from_str(opts.value().log_level));
    opts.value().colour = colour_enabled(is_tty, std::getenv("NO_COLOR"), std::getenv("TERM"));
    Invocation inv{std::move(opts).value(), std::move(parsed).value(), out, err};
    return cmd.run(inv);
}

}  // namespace attune::cli
