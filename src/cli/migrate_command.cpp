// kubectl attune migrate --from vpa [NAME]: each VerticalPodAutoscaler in
// scope turned into an AttunePolicy (core::migrate_vpa), printed with
// --dry-run or created; the fields with no equivalent are warnings.
// --from attune-go is migrate_attune_go.cpp's; the flags are checked here.
#include "commands.hpp"
#include "migrate_attune_go.hpp"
#include "session.hpp"
#include "workload_manifest.hpp"

#include <attune/core/policy/vpa_migration.hpp>

#include <boost/json.hpp>

#include <ostream>

namespace attune::cli {
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

constexpr std::string_view kCommand = "migrate";

std::string meta_of(const json::value& obj, std::string_view key) {
    const auto* m = obj.is_object() ? obj.as_object().if_contains("metadata") : nullptr;
    const auto* v = m != nullptr && m->is_object() ? m->as_object().if_contains(key) : nullptr;
    return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

struct Migrated {
    std::string ns, name;
    json::value policy;
};

int run(Invocation& inv) {
    const std::string from = inv.flags.get("from");
    if (from.empty()) return usage_error(inv.err, kCommand, "--from is required; accepted: vpa, attune-go", kExitUsage);
    if (from != "vpa" && from != "attune-go")
        return usage_error(inv.err, kCommand, "--from \"" + from + "\" is not supported; accepted: vpa, attune-go",
                           kExitUsage);
    const bool go = from == "attune-go";
    if (!go && (inv.flags.has("go-namespace") || inv.flags.flag("force")))
        return usage_error(inv.err, kCommand, "--go-namespace and --force go with --from attune-go", kExitUsage);
    if (go && !inv.flags.positionals.empty())
        return usage_error(inv.err, kCommand,
                           "--from attune-go takes no name: it migrates every policy and pod in scope (-n, -A)",
                           kExitUsage);
    if (inv.flags.positionals.size() > 1)
        return usage_error(inv.err, kCommand, "at most one VPA name, got \"" + inv.flags.positionals[1] + "\"",
                           kExitUsage);
    if (inv.common.output != OutputFormat::Table && inv.common.output != OutputFormat::Yaml &&
        inv.common.output != OutputFormat::Json)
        return usage_error(inv.err, kCommand, "-o takes yaml (default) or json", kExitUsage);
    const std::string name = inv.flags.positionals.empty() ? "" : inv.flags.positionals[0];
    if (!name.empty() && inv.common.all_namespaces)
        return usage_error(inv.err, kCommand, "a VPA name cannot be used with -A", kExitUsage);
    const std::string dry_run_mode = inv.flags.get("dry-run", "none");
    if (dry_run_mode != "none" && dry_run_mode != "client" && dry_run_mode != "server")
        return usage_error(inv.err, kCommand,
                           "invalid --dry-run \"" + dry_run_mode + "\": accepted: none, client, server", kExitUsage);
    const bool dry_run = dry_run_mode == "client";
    kube::WriteOptions wo;
    wo.dry_run = dry_run_mode == "server";
    if (go) {
        MigrateWrites w;
        w.client_dry_run = dry_run;
        w.wo = wo;
        w.wo.field_manager = "kubectl-attune";
        w.suffix = dry_run ? " (dry run)" : wo.dry_run ? " (server dry run)" : "";
        return migrate_from_attune_go(inv, w, inv.flags.get("go-namespace"), inv.flags.flag("force"));
    }
    const std::string created_text = wo.dry_run ? " created (server dry run)\n" : " created\n";
    const bool as_json = inv.common.output == OutputFormat::Json;

    bool failed = false;
    const int rc = run_in_session(inv, std::chrono::seconds(60), kExitError, [&](Session& s) -> asio::awaitable<int> {
        const auto vpas_rt = kube::resources::vertical_pod_autoscalers();
        const std::string ns = inv.common.all_namespaces ? "" : s.ns();
        json::array vpas;
        if (!name.empty()) {
            auto got = co_await s.client().get(vpas_rt, ns, name);
            if (!got) {
                if (got.error().is_not_found())
                    inv.err << "error: verticalpodautoscalers.autoscaling.k8s.io \"" << name << "\" not found"
                            << " (or the VerticalPodAutoscaler CRD is not installed)\n";
                else
                    inv.err << "error: cannot read VerticalPodAutoscaler " << name << ": " << got.error().describe()
                            << "\n";
                co_return kExitError;
            }
            vpas.push_back(std::move(got.value()));
        } else {
            kube::ListOptions lo;
            lo.limit = 500;
            auto list = co_await s.client().list_all(vpas_rt, ns, lo);
            if (!list) {
                if (list.error().is_not_found())
                    inv.err << "error: the server doesn't have a resource type \"verticalpodautoscalers\" "
                               "(the VerticalPodAutoscaler CRD, autoscaling.k8s.io/v1, is not installed)\n";
                else inv.err << "error: cannot list VerticalPodAutoscalers: " << list.error().describe() << "\n";
                co_return kExitError;
            }
            vpas = std::move(list.value().items);
        }
        if (vpas.empty()) {
            inv.err << "No VerticalPodAutoscalers found in "
                    << (inv.common.all_namespaces ? std::string("any namespace") : ns + " namespace") << ".\n";
            co_return kExitOk;
        }

        std::vector<Migrated> out;
        for (const auto& vpa : vpas) {
            const std::string vns = meta_of(vpa, "namespace");
            const std::string vname = meta_of(vpa, "name");
            auto m = core::migrate_vpa(vpa);
            for (const auto& n : m.notes)
                inv.err << "warning: " << vns << "/" << vname << ": " << n.path << ": " << n.why << "\n";
            if (!m.policy) {
                inv.err << "error: " << vns << "/" << vname << ": not migrated\n";
                failed = true;
                continue;
            }
            out.push_back({vns, vname, std::move(*m.policy)});
        }
        if (dry_run) {
            json::array list;
            for (auto& m : out) list.push_back(std::move(m.policy));
            inv.out << render_manifest_stream(list, as_json);
            co_return kExitOk;
        }
        for (auto& m : out) {
            auto created =
                co_await s.client().create(kube::resources::attune_policies(), m.ns, std::move(m.policy), wo);
            if (created) {
                inv.out << "attunepolicy.attune.io/" << m.name << created_text;
            } else if (created.error().is_already_exists()) {
                inv.err << "error: " << m.ns << "/" << m.name << ": attunepolicies.attune.io \"" << m.name
                        << "\" already exists; left alone\n";
                failed = true;
            } else {
                inv.err << "error: " << m.ns << "/" << m.name
                        << ": cannot create the AttunePolicy: " << created.error().describe() << "\n";
                failed = true;
            }
        }
        co_return kExitOk;
    });
    if (rc != kExitOk) return rc;
    inv.out.flush();
    return failed ? kExitError : kExitOk;
}

}  // namespace

Command make_migrate_command() {
    Command c;
    c.name = std::string(kCommand);
    c.summary = "Turn VerticalPodAutoscalers into AttunePolicies, or take over from the Go Attune";
    c.usage =
        "kubectl attune migrate --from vpa [NAME] [-n NS | -A] [--dry-run[=client|server|none]] [-o yaml|json]\n"
        "  kubectl attune migrate --from attune-go [-n NS | -A] [--go-namespace NS] [--force]\n"
        "      [--dry-run[=client|server|none]] [-o yaml|json]";
    c.description =
        "Each VerticalPodAutoscaler (autoscaling.k8s.io/v1) in scope becomes an AttunePolicy of the same name and\n"
        "namespace that targets the same workload and reads the VPA's recommendations (metricsSource.vpa), so\n"
        "they keep flowing while both exist. Every VPA field with no equivalent is a warning on stderr:\n"
        "  warning: NAMESPACE/NAME: FIELD: why\n"
        "--dry-run (=client) prints the policies instead of creating them: a YAML stream, or a JSON List with -o json, that\n"
        "kubectl apply -f - takes. An AttunePolicy that already exists is left alone and reported (exit 1).\n"
        "docs/cli.md \"migrate\" lists what each VPA field becomes.\n"
        "\n"
        "--from attune-go lets this manager take over where the Go Attune ran, with no pod resized twice and no\n"
        "revert lost. It refuses while the Go operator's Lease attune.attune.io is held and renewed (stop the Go\n"
        "operator first, or --force), then holds that Lease so a Go replica started again cannot lead. In every\n"
        "AttunePolicy and every pod labelled attune.io/tracked in scope, what this manager reads the same way is\n"
        "kept (the originals and restart counts of a resize in its safety period, the startup boost, the cooldown\n"
        "anchor, the resize history), and what only the Go operator reads is dropped (its finalizer, the pod\n"
        "annotation attune.io/policy, its canary status); each is a line: KIND NS/NAME: FIELD: ACTION: why.\n"
        "A value this manager would read differently is an error, and nothing of that object is changed (exit 1).\n"
        "--dry-run (=client) changes nothing; -o yaml|json prints the objects as they are (or would be) after.\n"
        "The Go operator's webhook configurations are named, not deleted.";
    c.flags = {{"from", 0, FlagKind::Value, "KIND", "what to migrate from: vpa or attune-go"},
               {"dry-run", 0, FlagKind::Value, "MODE",
                "client: print the AttunePolicies (or the changes); server: the apiserver checks them, nothing is "
                "stored; none: create (or change)",
                "client"},
               {"go-namespace", 0, FlagKind::Value, "NS",
                "attune-go: the Go operator's namespace, where its Lease is (default: found by name)"},
               {"force", 0, FlagKind::Boolean, "", "attune-go: take the Lease over while the Go operator renews it"}};
    c.run = run;
    return c;
}

}  // namespace attune::cli
