// kubectl attune diff [POLICY]: per managed workload, its manifest against
// the same manifest with the policy's recommendation applied, as a unified
// diff (workload_manifest.hpp, unified_diff.hpp). kubectl diff's exit
// codes: 0 no differences, 1 differences, 2 an error (a usage error too).
#include "commands.hpp"
#include "managed_workloads.hpp"
#include "session.hpp"
#include "unified_diff.hpp"
#include "workload_manifest.hpp"

#include <boost/json.hpp>

#include <ostream>

namespace attune::cli {
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

constexpr int kExitDifferences = 1;
constexpr int kExitDiffError = 2;  // kubectl diff: >1 is an error

// -o yaml|json: what would change, as the partial manifest a strategic-merge
// patch takes (kubectl patch --patch-file): the containers' new resources.
json::object patch_document(const ManagedWorkload& w, const RecommendedManifest& m) {
    const auto* api_version = m.live.as_object().if_contains("apiVersion");
    json::object doc{{"apiVersion", api_version ? *api_version : json::value(nullptr)},
                     {"kind", w.rec.kind},
                     {"metadata", json::object{{"name", w.rec.workload}, {"namespace", w.ns}}}};
    const bool cron = w.rec.kind == "CronJob";
    const json::value& tmpl_spec = cron
                                       ? m.recommended.at("spec").at("jobTemplate").at("spec").at("template").at("spec")
                                       : m.recommended.at("spec").at("template").at("spec");
    json::object pod_spec;
    for (auto list_key : {"containers", "initContainers"}) {
        const auto* list = tmpl_spec.as_object().if_contains(list_key);
        if (!list || !list->is_array()) continue;
        json::array changed;
        for (const auto& c : list->as_array()) {
            const auto* name = c.as_object().if_contains("name");
            if (!name || !name->is_string()) continue;
            if (std::find(m.changed_containers.begin(), m.changed_containers.end(), name->get_string()) ==
                m.changed_containers.end())
                continue;
            changed.push_back(json::object{{"name", *name}, {"resources", c.at("resources")}});
        }
        if (!changed.empty()) pod_spec[list_key] = std::move(changed);
    }
    if (m.envelope_changed) pod_spec["resources"] = tmpl_spec.at("resources");
    json::object tmpl{{"spec", std::move(pod_spec)}};
    doc["spec"] =
        cron ? json::object{{"jobTemplate", json::object{{"spec", json::object{{"template", std::move(tmpl)}}}}}}
             : json::object{{"template", std::move(tmpl)}};
    return doc;
}

int run(Invocation& inv) {
    if (inv.flags.positionals.size() > 1)
        return usage_error(inv.err, "diff", "at most one policy name, got \"" + inv.flags.positionals[1] + "\"",
                           kExitDiffError);
    if (inv.common.output == OutputFormat::Wide)
        return usage_error(inv.err, "diff", "-o wide does not apply: the diff, or -o yaml|json for the patches",
                           kExitDiffError);
    ManagedScope scope;
    scope.policy = inv.flags.positionals.empty() ? "" : inv.flags.positionals[0];
    scope.workload = inv.flags.get("workload");
    return run_in_session(inv, std::chrono::seconds(30), kExitDiffError, [&](Session& s) -> asio::awaitable<int> {
        scope.ns = inv.common.all_namespaces ? "" : s.ns();
        auto managed = co_await read_managed_workloads(s, scope);
        if (!managed.error.empty()) {
            inv.err << "error: " << managed.error << "\n";
            co_return kExitDiffError;
        }
        if (managed.items.empty()) {
            inv.err << "No recommendations found in "
                    << (inv.common.all_namespaces ? std::string("any namespace") : scope.ns + " namespace") << ".\n";
            co_return kExitOk;
        }
        bool differences = false, failed = false;
        json::array patches;
        for (const auto& w : managed.items) {
            auto m = manifest_of(w);
            if (!m) {
                inv.err << "error: " << m.error().message << "\n";
                failed = true;
                continue;
            }
            if (!m.value().changed()) continue;
            differences = true;
            if (is_document_format(inv.common.output)) {
                patches.push_back(patch_document(w, m.value()));
                continue;
            }
            const std::string label = workload_label(w.ns, w.rec.kind, w.rec.workload);
            UnifiedDiffOptions o;
            o.from_label = "a/" + label;
            o.to_label = "b/" + label + "\t(recommended by policy " + w.policy + ")";
            inv.out << unified_diff(to_yaml(m.value().live), to_yaml(m.value().recommended), o);
        }
        if (is_document_format(inv.common.output))
            inv.out << render_manifest_stream(patches, inv.common.output == OutputFormat::Json);
        inv.out.flush();
        if (failed) co_return kExitDiffError;
        co_return differences ? kExitDifferences : kExitOk;
    });
}

}  // namespace

Command make_diff_command() {
    Command c;
    c.name = "diff";
    c.summary = "Per managed workload, its manifest against the recommendation, as a unified diff";
    c.usage = "kubectl attune diff [POLICY] [--workload [KIND/]NAME] [-n NS | -A] [-o yaml|json]";
    c.description =
        "For each workload in the policies' status.recommendations, the workload's manifest (as kubectl get -o yaml\n"
        "prints it, less the server's fields) against the same manifest with the recommendation written onto its\n"
        "pod template, the way template persistence writes it: requests, and limits where controlledValues is\n"
        "RequestsAndLimits. Nothing is printed for a workload already at its recommendation.\n"
        "-o yaml|json prints the changes as partial manifests instead (kubectl patch --patch-file takes them).\n"
        "Exit status: 0 no differences, 1 differences, 2 an error.";
    c.flags = {{"workload", 0, FlagKind::Value, "[KIND/]NAME", "only this workload (deployment/web or web)"}};
    c.usage_exit = kExitDiffError;
    c.run = run;
    return c;
}

}  // namespace attune::cli
