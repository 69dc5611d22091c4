// kubectl attune export [POLICY]: the managed workloads' manifests with the
// recommendations applied (workload_manifest.hpp), as a multi-document YAML
// stream or a JSON List on stdout, or one file per workload with
// --output-dir; --from-configmaps lists the export ConfigMaps instead
// (export_config_maps.hpp).
#include "cluster_reads.hpp"
#include "commands.hpp"
#include "export_config_maps.hpp"
#include "managed_workloads.hpp"
#include "session.hpp"
#include "workload_manifest.hpp"

#include <attune/core/policy/annotations.hpp>

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <ostream>

namespace attune::cli {
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

std::string scope_text(const Invocation& inv, const std::string& ns) {
    return inv.common.all_namespaces ? "any namespace" : ns + " namespace";
}

int run_config_maps(Invocation& inv, const std::string& policy) {
    return run_in_session(inv, std::chrono::seconds(30), kExitError, [&](Session& s) -> asio::awaitable<int> {
        const std::string ns = inv.common.all_namespaces ? "" : s.ns();
        kube::ListOptions lo;
        lo.limit = 500;
        lo.label_selector = std::string(core::kExportPolicyLabel) + (policy.empty() ? "" : "=" + policy);
        auto cms = co_await s.client().list_all(kube::resources::config_maps(), ns, lo);
        if (!cms) {
            inv.err << "error: cannot list ConfigMaps: " << cms.error().describe() << "\n";
            co_return kExitError;
        }
        json::array records;
        for (const auto& cm : cms.value().items) records.push_back(export_config_map_record(cm));
        std::stable_sort(records.begin(), records.end(), [](const json::value& a, const json::value& b) {
            auto key = [](const json::value& r) {
                return json::serialize(r.at("namespace")) + "/" + json::serialize(r.at("policy")) + "/" +
                       json::serialize(r.at("workload"));
            };
            return key(a) < key(b);
        });
        if (auto doc = render_document(inv.common.output, json::object{{"items", records}})) {
            inv.out << *doc;
            co_return kExitOk;
        }
        if (records.empty()) {
            inv.err << "No export ConfigMaps found in " << scope_text(inv, ns)
                    << " (a policy writes them with updateStrategy.export.configMap: true).\n";
            co_return kExitOk;
        }
        TableOptions o;
        o.wide = inv.common.output == OutputFormat::Wide;
        o.no_headers = inv.common.no_headers;
        o.sort_by = inv.common.sort_by;
        auto t = render_table(records, export_config_map_columns(inv.common.all_namespaces), o);
        if (!t) co_return usage_error(inv.err, "export", t.error().message, kExitUsage);
        inv.out << t.value();
        co_return kExitOk;
    });
}

struct Exported {
    std::string ns, kind, name, resource_label;  // resource_label: "deployments.apps"
    json::value manifest;
};

int write_files(Invocation& inv, const std::string& dir, const std::vector<Exported>& items, bool as_json) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        inv.err << "error: cannot create " << dir << ": " << ec.message() << "\n";
        return kExitError;
    }
    for (const auto& e : items) {
        const auto path = std::filesystem::path(dir) / manifest_file_name(e.ns, e.kind, e.name, as_json);
        std::ofstream f(path, std::ios::trunc);
        f << (as_json ? to_pretty_json(e.manifest) : to_yaml(e.manifest));
        f.close();
        if (!f) {
            inv.err << "error: cannot write " << path.string() << "\n";
            return kExitError;
        }
        inv.out << e.resource_label << "/" << e.name << " written to " << path.string() << "\n";
    }
    return kExitOk;
}

int run(Invocation& inv) {
    if (inv.flags.positionals.size() > 1)
        return usage_error(inv.err, "export", "at most one policy name, got \"" + inv.flags.positionals[1] + "\"",
                           kExitUsage);
    const std::string policy = inv.flags.positionals.empty() ? "" : inv.flags.positionals[0];
    if (inv.flags.flag("from-configmaps")) {
        if (inv.flags.has("output-dir") || inv.flags.has("workload"))
            return usage_error(inv.err, "export", "--from-configmaps lists ConfigMaps: no --output-dir or --workload",
                               kExitUsage);
        return run_config_maps(inv, policy);
    }
    if (inv.common.output == OutputFormat::Wide)
        return usage_error(inv.err, "export", "-o wide does not apply: the manifests are yaml (default) or json",
                           kExitUsage);
    const bool as_json = inv.common.output == OutputFormat::Json;
    const std::string dir = inv.flags.get("output-dir");
    if (inv.flags.has("output-dir") && dir.empty())
        return usage_error(inv.err, "export", "--output-dir needs a directory", kExitUsage);

    ManagedScope scope;
    scope.policy = policy;
    scope.workload = inv.flags.get("workload");
    std::vector<Exported> items;
    bool failed = false;
    const int rc = run_in_session(inv, std::chrono::seconds(30), kExitError, [&](Session& s) -> asio::awaitable<int> {
        scope.ns = inv.common.all_namespaces ? "" : s.ns();
        auto managed = co_await read_managed_workloads(s, scope);
        if (!managed.error.empty()) {
            inv.err << "error: " << managed.error << "\n";
            co_return kExitError;
        }
        if (managed.items.empty()) inv.err << "No recommendations found in " << scope_text(inv, scope.ns) << ".\n";
        for (const auto& w : managed.items) {
            auto m = manifest_of(w);
            if (!m) {
                inv.err << "error: " << m.error().message << "\n";
                failed = true;
                continue;
            }
            const auto rt = kube::workload_resource(w.rec.kind);
            items.push_back({w.ns, w.rec.kind, w.rec.workload, rt ? rt.value().label() : w.rec.kind,
                             std::move(m.value().recommended)});
        }
        co_return kExitOk;
    });
    if (rc != kExitOk) return rc;
    if (!dir.empty()) {
        if (const int w = write_files(inv, dir, items, as_json); w != kExitOk) return w;
    } else {
        json::array list;
        for (auto& e : items) list.push_back(std::move(e.manifest));
        inv.out << render_manifest_stream(list, as_json);
    }
    inv.out.flush();
    return failed ? kExitError : kExitOk;
}

}  // namespace

Command make_export_command() {
    Command c;
    c.name = "export";
    c.summary = "The managed workloads' manifests with the recommendations applied, for Git";
    c.usage =
        "kubectl attune export [POLICY] [--workload [KIND/]NAME] [-n NS | -A] [--output-dir DIR] [-o yaml|json]\n"
        "  kubectl attune export --from-configmaps [POLICY] [-n NS | -A] [-o table|wide|json|yaml]";
    c.description =
        "Each workload in the policies' status.recommendations, as kubectl get -o yaml prints it less the server's\n"
        "fields (status, managedFields, resourceVersion, uid, creationTimestamp, generation, last-applied), with the\n"
        "recommendation written onto its pod template as template persistence writes it (the manifests diff compares).\n"
        "stdout gets a multi-document YAML stream, or a JSON List with -o json: kubectl apply -f - takes either.\n"
        "--output-dir DIR writes one file per workload instead, <namespace>_<kind>_<name>.yaml.\n"
        "--from-configmaps lists the ConfigMaps updateStrategy.export.configMap writes\n"
        "(<policy>-<workload>-recommendations), with their containers and when they were last updated.";
    c.flags = {{"output-dir", 0, FlagKind::Value, "DIR", "write one file per workload into DIR"},
               {"workload", 0, FlagKind::Value, "[KIND/]NAME", "only this workload (deployment/web or web)"},
               {"from-configmaps", 0, FlagKind::Boolean, "", "list the export ConfigMaps instead"}};
    c.run = run;
    return c;
}

}  // namespace attune::cli
