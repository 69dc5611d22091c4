#include "context_fanout.hpp"

#include <attune/kube/kubeconfig.hpp>

#include <boost/json.hpp>

#include <algorithm>

namespace attune::cli {
namespace json = boost::json;

std::vector<FlagSpec> context_fanout_flag_specs() {
    return {{"contexts", 0, FlagKind::Value, "A,B", "read these kubeconfig contexts, one table with a CONTEXT column"},
            {"all-contexts", 0, FlagKind::Boolean, "", "read every context of the kubeconfig (as --contexts)"}};
}

core::Result<std::vector<std::string>> parse_context_list(std::string_view value) {
    std::vector<std::string> out;
    while (true) {
        const auto comma = value.find(',');
        std::string_view item = value.substr(0, comma);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (!item.empty() && std::find(out.begin(), out.end(), item) == out.end()) out.emplace_back(item);
        if (comma == std::string_view::npos) break;
        value.remove_prefix(comma + 1);
    }
    if (out.empty()) return core::make_error("bad_usage", "--contexts names no context");
    return out;
}

core::Result<std::vector<std::string>> requested_contexts(const ParsedFlags& flags, const CommonOptions& common) {
    const bool listed = flags.has("contexts");
    const bool all = flags.flag("all-contexts");
    if (!listed && !all) return std::vector<std::string>{};
    if (listed && all) return core::make_error("bad_usage", "--contexts and --all-contexts cannot be combined");
    if (!common.context.empty())
        return core::make_error("bad_usage", std::string(listed ? "--contexts" : "--all-contexts") +
                                                 " cannot be combined with --context");
    if (flags.flag("watch"))
        return core::make_error("bad_usage", std::string(listed ? "--contexts" : "--all-contexts") +
                                                 " cannot be combined with --watch");
    if (listed) return parse_context_list(flags.get("contexts"));
    try {
        auto names = kube::list_default_contexts(common.kubeconfig);
        if (names.empty()) return core::make_error("no_contexts", "the kubeconfig defines no context");
        return names;
    } catch (const std::exception& e) {
        return core::make_error("bad_kubeconfig", e.what());
    }
}

void tag_records_with_context(json::array& records, const std::string& context) {
    for (auto& r : records)
        if (r.is_object()) r.as_object()["context"] = context;
}

std::vector<Column> with_context_column(std::vector<Column> columns) {
    columns.insert(columns.begin(), Column{"CONTEXT", "context"});
    return columns;
}

std::string name_context_in_errors(std::string_view text, std::string_view context) {
    static constexpr std::string_view kError = "error: ";
    std::string out;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        if (line.substr(0, kError.size()) == kError) {
            out += kError;
            out += "context \"" + std::string(context) + "\": ";
            line.remove_prefix(kError.size());
        }
        out += line;
        out += '\n';
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
    return out;
}

}  // namespace attune::cli
