#include <attune/kube/watch_scope.hpp>

#include <attune/core/util/object_names.hpp>

#include <algorithm>

namespace attune::kube {

core::Result<std::vector<std::string>> parse_namespace_list(std::string_view value) {
    std::vector<std::string> out;
    if (value.empty()) return out;
    auto bad = [](std::string msg) { return core::make_error("bad_namespace_list", std::move(msg)); };
    std::size_t index = 0;
    for (std::string_view rest = value;; ++index) {
        const auto comma = rest.find(',');
        const auto name = rest.substr(0, comma);
        if (name.empty())
            return bad("element " + std::to_string(index + 1) + " is empty (\"" + std::string(value) + "\")");
        if (auto why = core::dns1123_label_error(name); !why.empty())
            return bad("\"" + std::string(name) + "\" is not a namespace name: it " + why);
        if (std::find(out.begin(), out.end(), name) != out.end())
            return bad("\"" + std::string(name) + "\" is given twice");
        out.emplace_back(name);
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
    }
    return out;
}

bool WatchScope::contains(std::string_view ns) const noexcept {
    return cluster_wide() || std::find(namespaces_.begin(), namespaces_.end(), ns) != namespaces_.end();
}

std::vector<ListWatchTarget> list_watch_targets(const ResourceType& rt, const WatchScope& scope,
                                                std::string_view field_selector) {
    const std::string base(field_selector);
    if (scope.cluster_wide()) return {ListWatchTarget("", base)};
    std::vector<ListWatchTarget> out;
    const bool namespace_objects = !rt.namespaced && rt.group.empty() && rt.plural == "namespaces";
    if (rt.namespaced) {
        for (const auto& ns : scope.namespaces()) out.emplace_back(ns, base);
    } else if (namespace_objects) {
        for (const auto& ns : scope.namespaces())
            out.emplace_back("", "metadata.name=" + ns + (base.empty() ? "" : "," + base));
    } else {
        out.emplace_back("", base);
    }
    return out;
}

std::string watched_namespace_of(const ListWatchTarget& t) {
    if (!t.ns.empty()) return t.ns;
    constexpr std::string_view kByName = "metadata.name=";
    const std::string_view f = t.field_selector;
    if (f.substr(0, kByName.size()) != kByName) return {};
    const auto rest = f.substr(kByName.size());
    return std::string(rest.substr(0, rest.find(',')));
}

std::optional<std::string> namespace_of_path(std::string_view path) {
    path = path.substr(0, path.find('?'));
    // /api/v1/... or /apis/<group>/<version>/...
    std::vector<std::string_view> parts;
    while (!path.empty()) {
        if (path.front() == '/') {
            path.remove_prefix(1);
            continue;
        }
        const auto slash = path.find('/');
        parts.push_back(path.substr(0, slash));
        path = slash == std::string_view::npos ? std::string_view() : path.substr(slash);
    }
    std::size_t at = 0;
    if (parts.size() >= 2 && parts[0] == "api") at = 2;
    else if (parts.size() >= 3 && parts[0] == "apis") at = 3;
    else return std::nullopt;
    if (parts.size() > at && parts[at] == "watch") ++at;  // the deprecated /watch/ prefix
    if (parts.size() >= at + 2 && parts[at] == "namespaces") return std::string(parts[at + 1]);
    return std::nullopt;
}

}  // namespace attune::kube
