#include "attune/core/upgrade/upgrade_removed_apis.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace attune::core {
namespace {

constexpr std::string_view kMetric = "apiserver_requested_deprecated_apis";

// Parses `{a="x",b="y\"z"}` (Prometheus text format label set) starting at `s`.
bool parse_labels(std::string_view& s, std::map<std::string, std::string>& out) {
    if (s.empty() || s.front() != '{') return false;
    s.remove_prefix(1);
    while (true) {
        while (!s.empty() && (s.front() == ' ' || s.front() == ',')) s.remove_prefix(1);
        if (s.empty()) return false;
        if (s.front() == '}') {
            s.remove_prefix(1);
            return true;
        }
        const auto eq = s.find('=');
        if (eq == std::string_view::npos || eq + 1 >= s.size() || s[eq + 1] != '"') return false;
        std::string name(s.substr(0, eq));
        s.remove_prefix(eq + 2);
        std::string value;
        while (true) {
            if (s.empty()) return false;
            const char c = s.front();
            s.remove_prefix(1);
            if (c == '"') break;
            if (c == '\\') {
                if (s.empty()) return false;
                const char e = s.front();
                s.remove_prefix(1);
                value += e == 'n' ? '\n' : e;
            } else {
                value += c;
            }
        }
        out[std::move(name)] = std::move(value);
    }
}

std::string gv_resource(std::string_view gv, std::string_view resource) {
    return std::string(gv) + " " + std::string(resource);
}

}  // namespace

Result<std::vector<DeprecatedApiRequest>> parse_deprecated_api_requests(std::string_view text) {
    std::vector<DeprecatedApiRequest> out;
    std::size_t line_no = 0;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        ++line_no;
        if (line.substr(0, kMetric.size()) != kMetric) continue;
        std::string_view rest = line.substr(kMetric.size());
        if (rest.empty() || (rest.front() != '{' && rest.front() != ' ')) continue;  // a longer metric name
        std::map<std::string, std::string> labels;
        if (rest.front() == '{' && !parse_labels(rest, labels))
            return make_error("invalid_metrics", "/metrics line " + std::to_string(line_no) + ": malformed " +
                                                     std::string(kMetric) + " labels");
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        const auto value = rest.substr(0, rest.find(' '));
        if (value.empty())
            return make_error("invalid_metrics",
                              "/metrics line " + std::to_string(line_no) + ": " + std::string(kMetric) + " has no value");
        // The apiserver sets the gauge to 1 for each deprecated API requested
        // since it started; anything else is not a request.
        if (value != "1" && value != "1.0" && value != "1e+00") continue;
        DeprecatedApiRequest r;
        r.group = labels["group"];
        r.version = labels["version"];
        r.resource = labels["resource"];
        r.subresource = labels["subresource"];
        r.removed_release = labels["removed_release"];
        out.push_back(std::move(r));
    }
    return out;
}

Result<ServedGroupVersion> served_from_resource_list(const boost::json::value& v) {
    const auto* o = v.if_object();
    if (o == nullptr) return make_error("invalid_discovery", "APIResourceList: expected an object");
    ServedGroupVersion out;
    if (const auto* gv = o->if_contains("groupVersion"); gv && gv->is_string()) out.group_version = gv->get_string();
    if (out.group_version.empty()) return make_error("invalid_discovery", "APIResourceList: no groupVersion");
    if (const auto* rs = o->if_contains("resources"); rs && rs->is_array()) {
        for (const auto& r : rs->get_array()) {
            const auto* ro = r.if_object();
            const auto* name = ro ? ro->if_contains("name") : nullptr;
            if (!name || !name->is_string())
                return make_error("invalid_discovery", "APIResourceList " + out.group_version + ": a resource has no name");
            const std::string n(name->get_string());
            if (n.find('/') == std::string::npos) out.resources.push_back(n);
        }
    }
    return out;
}

Result<std::vector<std::string>> group_versions_from_group_list(const boost::json::value& v) {
    const auto* o = v.if_object();
    const auto* groups = o ? o->if_contains("groups") : nullptr;
    if (groups == nullptr || !groups->is_array()) return make_error("invalid_discovery", "APIGroupList: no groups array");
    std::vector<std::string> out;
    for (const auto& g : groups->get_array()) {
        const auto* go = g.if_object();
        const auto* versions = go ? go->if_contains("versions") : nullptr;
        if (versions == nullptr || !versions->is_array()) continue;
        for (const auto& ver : versions->get_array()) {
            const auto* vo = ver.if_object();
            const auto* gv = vo ? vo->if_contains("groupVersion") : nullptr;
            if (gv && gv->is_string()) out.emplace_back(gv->get_string());
        }
    }
    return out;
}

std::vector<std::string> removal_group_versions(const UpgradeMatrix& m, KubeMinor target) {
    std::set<std::string> gvs;
    for (const auto& r : m.api_removals)
        if (r.removed <= target) gvs.insert(r.group_version());
    return {gvs.begin(), gvs.end()};
}

std::vector<GateReason> removed_api_reasons(const UpgradeMatrix& m, KubeMinor target,
                                            const std::vector<DeprecatedApiRequest>& requested,
                                            const std::vector<ServedGroupVersion>& served) {
    std::vector<GateReason> out;
    std::set<std::string> reported;  // "gv resource": one reason per API
    auto add = [&](const std::string& gv, const std::string& resource, std::string message) {
        if (!reported.insert(gv_resource(gv, resource)).second) return;
        GateReason r;
        r.cls = BlockClass::Actionable;
        r.check = "removed-api";
        r.subject = gv_resource(gv, resource);
        r.message = std::move(message);
        out.push_back(std::move(r));
    };
    // The apiserver's own record of requests first: it names APIs that are
    // really used, even ones the table does not list.
    for (const auto& r : requested) {
        const auto removed = parse_kube_minor(r.removed_release);
        if (!removed || *removed > target) continue;
        const std::string gv = r.group.empty() ? r.version : r.group + "/" + r.version;
        const std::string resource = r.subresource.empty() ? r.resource : r.resource + "/" + r.subresource;
        add(gv, resource,
            "requested from this apiserver (apiserver_requested_deprecated_apis) and removed in Kubernetes " +
                removed->str() + "; move its clients and stored manifests to a supported version");
    }
    for (const auto& rm : m.api_removals) {
        if (rm.removed > target) continue;
        const auto gv = rm.group_version();
        auto it = std::find_if(served.begin(), served.end(),
                               [&](const ServedGroupVersion& s) { return s.group_version == gv; });
        if (it == served.end()) continue;
        if (std::find(it->resources.begin(), it->resources.end(), rm.resource) == it->resources.end()) continue;
        add(gv, rm.resource,
            "served by this apiserver and removed in Kubernetes " + rm.removed.str() +
                " (api_removals); migrate what uses it, then stop serving it (--runtime-config)");
    }
    return out;
}

}  // namespace attune::core
