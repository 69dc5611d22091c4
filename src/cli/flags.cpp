#include "flags.hpp"

#include <algorithm>
#include <charconv>

namespace attune::cli {

namespace {
core::Error bad(std::string msg) { return core::make_error("bad_usage", std::move(msg)); }

const FlagSpec* find_long(std::span<const FlagSpec> specs, std::string_view name) {
    auto it = std::find_if(specs.begin(), specs.end(), [&](const FlagSpec& s) { return s.name == name; });
    return it == specs.end() ? nullptr : &*it;
}

const FlagSpec* find_short(std::span<const FlagSpec> specs, char c) {
    auto it = std::find_if(specs.begin(), specs.end(), [&](const FlagSpec& s) { return s.shorthand == c; });
    return it == specs.end() ? nullptr : &*it;
}

std::optional<bool> parse_bool(std::string_view s) {
    if (s == "true" || s == "1" || s == "t" || s == "TRUE" || s == "True") return true;
    if (s == "false" || s == "0" || s == "f" || s == "FALSE" || s == "False") return false;
    return std::nullopt;
}
}  // namespace

std::string ParsedFlags::get(std::string_view name, std::string fallback) const {
    auto it = values.find(name);
    return it == values.end() ? std::move(fallback) : it->second;
}

bool ParsedFlags::flag(std::string_view name) const {
    auto it = values.find(name);
    return it != values.end() && it->second == "true";
}

core::Result<ParsedFlags> parse_flags(std::span<const std::string_view> args, std::span<const FlagSpec> specs) {
    ParsedFlags out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string_view arg = args[i];
        if (arg == "--") {
            for (++i; i < args.size(); ++i) out.positionals.emplace_back(args[i]);
            break;
        }
        if (arg.size() < 2 || arg.front() != '-') {
            out.positionals.emplace_back(arg);  // includes a lone "-"
            continue;
        }
        const bool is_long = arg.substr(0, 2) == "--";
        std::string_view name, value;
        bool has_value = false;
        const FlagSpec* spec = nullptr;
        std::string shown;  // the flag as the user wrote it, for messages
        if (is_long) {
            arg.remove_prefix(2);
            name = arg;
            if (auto eq = arg.find('='); eq != std::string_view::npos) {
                name = arg.substr(0, eq);
                value = arg.substr(eq + 1);
                has_value = true;
            }
            shown = "--" + std::string(name);
            spec = find_long(specs, name);
        } else {
            const char c = arg[1];
            shown = std::string("-") + c;
            spec = find_short(specs, c);
            if (arg.size() > 2) {
                value = arg.substr(arg[2] == '=' ? 3 : 2);
                has_value = true;
            }
        }
        if (spec == nullptr) return bad("unknown flag: " + shown);
        if (spec->kind == FlagKind::Boolean) {
            if (!has_value) {
                out.values[spec->name] = "true";
                continue;
            }
            auto b = parse_bool(value);
            if (!b) {
                if (!is_long) return bad("unknown shorthand flag: '" + std::string(1, arg[2]) + "' in " + std::string(arg));
                return bad("invalid argument \"" + std::string(value) + "\" for \"" + shown + "\": expected true or false");
            }
            out.values[spec->name] = *b ? "true" : "false";
            continue;
        }
        if (!has_value && !spec->implicit_value.empty()) {
            out.values[spec->name] = spec->implicit_value;
            continue;
        }
        if (!has_value) {
            if (i + 1 >= args.size()) return bad("flag needs an argument: " + shown);
            value = args[++i];
        }
        out.values[spec->name] = std::string(value);
    }
    return out;
}

std::string flags_help(std::span<const FlagSpec> specs) {
    std::vector<std::string> lefts;
    std::size_t width = 0;
    for (const auto& s : specs) {
        std::string left = s.shorthand ? std::string("  -") + s.shorthand + ", --" + s.name : "      --" + s.name;
        if (s.kind == FlagKind::Value && !s.implicit_value.empty()) left += "[=" + s.implicit_value + "]";
        else if (s.kind == FlagKind::Value) left += " " + (s.value_name.empty() ? std::string("VALUE") : s.value_name);
        width = std::max(width, left.size());
        lefts.push_back(std::move(left));
    }
    std::string out;
    for (std::size_t i = 0; i < specs.size(); ++i) {
        out += lefts[i] + std::string(width - lefts[i].size() + 3, ' ') + specs[i].help + "\n";
    }
    return out;
}

std::optional<std::size_t> find_subcommand(std::span<const std::string_view> args, std::span<const FlagSpec> global) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string_view a = args[i];
        if (a == "--") return i + 1 < args.size() ? std::optional<std::size_t>(i + 1) : std::nullopt;
        if (a.size() < 2 || a.front() != '-') return i;
        // A global value flag written without '=' consumes the next argument.
        const FlagSpec* spec = nullptr;
        if (a.substr(0, 2) == "--") {
            if (a.find('=') != std::string_view::npos) continue;
            spec = find_long(global, a.substr(2));
        } else if (a.size() == 2) {
            spec = find_short(global, a[1]);
        }
        if (spec != nullptr && spec->kind == FlagKind::Value) ++i;
    }
    return std::nullopt;
}

core::Result<http::ServerUrl> parse_url_flag(std::string_view flag, std::string_view value) {
    try {
        return http::split_server_url(value);
    } catch (const std::invalid_argument& e) {
        return bad("invalid argument \"" + std::string(value) + "\" for \"--" + std::string(flag) + "\": " + e.what());
    }
}

core::Result<std::chrono::milliseconds> parse_duration(std::string_view flag, std::string_view value) {
    const auto where = "invalid argument \"" + std::string(value) + "\" for \"--" + std::string(flag) + "\"";
    long long n = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc{} || p == value.data() || n < 0) return bad(where + ": expected a duration such as 30s or 10m");
    const std::string_view unit(p, static_cast<std::size_t>(value.data() + value.size() - p));
    using namespace std::chrono;
    if (unit.empty() || unit == "s") return duration_cast<milliseconds>(seconds(n));
    if (unit == "ms") return milliseconds(n);
    if (unit == "m") return duration_cast<milliseconds>(minutes(n));
    if (unit == "h") return duration_cast<milliseconds>(hours(n));
    return bad(where + ": unknown unit \"" + std::string(unit) + "\" (use ms, s, m or h)");
}

}  // namespace attune::cli
