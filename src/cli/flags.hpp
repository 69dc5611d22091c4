#pragma once
// kubectl-style command-line flags for every kubectl-attune subcommand. Pure:
// nothing here prints or exits; a usage error is a core::Error with code
// "bad_usage" whose message is what kubectl would say.
//
// Accepted forms: --name=value, --name value, -n value, -nvalue, -n=value,
// --bool, --bool=false, -A; "--" ends the flags. Flags and positional
// arguments may be interleaved; a repeated flag keeps its last value.
#include <attune/core/util/result.hpp>
#include <attune/http/url.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attune::cli {

enum class FlagKind { Boolean, Value };

struct FlagSpec {
    std::string name;        // long name, without "--"
    char shorthand = 0;      // 'n' for -n; 0 for none
    FlagKind kind = FlagKind::Value;
    std::string value_name;  // shown in help: --namespace NAME
    std::string help;
    // A Value flag with an implicit value may stand alone (--dry-run means
    // --dry-run=client, as pflag's NoOptDefVal): its value is then only
    // ever joined with "=", never the next argument.
    std::string implicit_value;
};

class ParsedFlags {
public:
    // Value flags hold their value, boolean flags "true" or "false".
    std::map<std::string, std::string, std::less<>> values;
    std::vector<std::string> positionals;

    bool has(std::string_view name) const { return values.find(name) != values.end(); }
    std::string get(std::string_view name, std::string fallback = {}) const;
    bool flag(std::string_view name) const;  // a boolean flag set to true
};

core::Result<ParsedFlags> parse_flags(std::span<const std::string_view> args, std::span<const FlagSpec> specs);

// Aligned help lines, one per flag, in the order given.
std::string flags_help(std::span<const FlagSpec> specs);

// Index of the subcommand in `args` (the first positional argument, skipping
// the values of `global` value flags given before it); nullopt if none.
std::optional<std::size_t> find_subcommand(std::span<const std::string_view> args, std::span<const FlagSpec> global);

// Parses a URL flag value ("http://127.0.0.1:9091", "https://prom.example/base")
// with the runtime's own URL rules; a usage error names the flag.
core::Result<http::ServerUrl> parse_url_flag(std::string_view flag, std::string_view value);

// Parses a duration flag value ("90s", "10m", "1h", "500ms", "0"), as kubectl's
// --request-timeout does; a bare number is seconds.
core::Result<std::chrono::milliseconds> parse_duration(std::string_view flag, std::string_view value);

}  // namespace attune::cli
