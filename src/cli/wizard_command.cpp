// kubectl attune wizard: the questions of core::PolicyWizard on a terminal.
// This file only prints, reads lines and carries out the wizard's I/O: the
// namespace's workloads, the check (the manager's resolution and validation,
// then the apiserver's schema through a server dry run), the create and the
// file. Each request has its own deadline, so a person may take their time
// between questions.
#include "cluster_reads.hpp"
#include "commands.hpp"
#include "session.hpp"
#include "workload_manifest.hpp"

#include <attune/core/policy/policy_wizard.hpp>
#include <attune/core/util/duration.hpp>
#include <attune/policy/time_zones.hpp>

#include <boost/json.hpp>

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

namespace attune::cli {
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

constexpr std::string_view kCommand = "wizard";

std::string deadline_text(std::chrono::milliseconds d) {
    return "no answer within " + core::format_duration(d) + " (--request-timeout)";
}

std::int64_t replicas_of(const json::value& w) {
    const auto* spec = w.is_object() ? w.as_object().if_contains("spec") : nullptr;
    const auto* r = spec != nullptr && spec->is_object() ? spec->as_object().if_contains("replicas") : nullptr;
    return r != nullptr && r->is_int64() ? r->as_int64() : 1;  // the apiserver's default
}

std::string name_of(const json::value& obj) {
    const auto* m = obj.is_object() ? obj.as_object().if_contains("metadata") : nullptr;
    const auto* n = m != nullptr && m->is_object() ? m->as_object().if_contains("name") : nullptr;
    return n != nullptr && n->is_string() ? std::string(n->as_string()) : std::string();
}

class WizardShell {
public:
    WizardShell(Invocation& inv, Session& s, bool as_json)
        : inv_(inv), s_(s), as_json_(as_json), deadline_(deadline_for(inv.common, std::chrono::seconds(30))) {}

    core::WizardWorkloads list_workloads(const std::string& ns) {
        core::WizardWorkloads found;
        const auto code = s_.run(
            [&]() -> asio::awaitable<int> {
                auto got = co_await s_.client().get(kube::resources::namespaces(), "", ns);
                // A 403 is not an answer: the workloads may still be listable.
                if (!got && got.error().is_not_found()) {
                    found.namespace_missing = true;
                    co_return 0;
                }
                const std::array<std::pair<std::string, kube::ResourceType>, 2> kinds{
                    {{"Deployment", kube::resources::deployments()}, {"StatefulSet", kube::resources::statefulsets()}}};
                for (const auto& [kind, rt] : kinds) {
                    kube::ListOptions lo;
                    lo.limit = 500;
                    auto list = co_await s_.client().list_all(rt, ns, lo);
                    if (!list) {
                        found.error = one_line_error(list.error());
                        found.items.clear();
                        co_return 0;
                    }
                    for (const auto& item : list.value().items)
                        found.items.push_back({kind, name_of(item), replicas_of(item)});
                }
                co_return 0;
            },
            deadline_);
        if (!code) found = {false, deadline_text(deadline_), {}};
        return found;
    }

    // "" when the manager would take the policy and the apiserver stores it.
    std::string validate(const std::string& ns, const json::value& policy) {
        std::string error;
        const auto code = s_.run(
            [&]() -> asio::awaitable<int> {
                auto ctx = co_await read_policy_context(s_.client(), ns);
                if (!ctx.defaults_error.empty()) {
                    inv_.err << "warning: cannot read the defaults objects (" << ctx.defaults_error
                             << "); the policy is checked without them\n";
                    ctx.defaults_error.clear();
                    ctx.cluster_defaults.clear();
                    ctx.namespace_defaults.clear();
                }
                ctx.policies = {policy};
                for (const auto& [key, r] : resolve_policies(ctx))
                    if (!r.effective) {
                        error = r.message;
                        co_return 0;
                    }
                // The CRD's schema and CEL, and the policy webhook where one is installed.
                kube::WriteOptions wo;
                wo.dry_run = true;
                auto created = co_await s_.client().create(kube::resources::attune_policies(), ns, policy, wo);
                if (!created) error = create_error(created.error(), name_of(policy));
                co_return 0;
            },
            deadline_);
        return code ? error : deadline_text(deadline_);
    }

    std::string create(const std::string& ns, const json::value& policy) {
        std::string error;
        const auto code = s_.run(
            [&]() -> asio::awaitable<int> {
                auto created = co_await s_.client().create(kube::resources::attune_policies(), ns, policy);
                if (!created) error = create_error(created.error(), name_of(policy));
                co_return 0;
            },
            deadline_);
        return code ? error : deadline_text(deadline_);
    }

    std::string write_file(const std::string& path, const json::value& policy) const {
        std::error_code ec;
        if (std::filesystem::exists(path, ec))
            return path + " exists; the wizard does not overwrite a file, give another name";
        // "x": fails rather than replace a file made since the check.
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wx"), &std::fclose);
        if (!f) return "cannot write " + path + ": " + std::strerror(errno);
        const auto text = preview(policy);
        if (std::fwrite(text.data(), 1, text.size(), f.get()) != text.size() || std::fclose(f.release()) != 0)
            return "cannot write " + path + ": " + std::strerror(errno);
        return {};
    }

    std::string preview(const json::value& policy) const {
        return render_manifest_stream(json::array{policy}, as_json_);
    }

private:
    static std::string create_error(const kube::ApiError& e, const std::string& name) {
        if (e.is_already_exists())
            return "attunepolicies.attune.io \"" + name + "\" already exists; choose another name";
        if (e.is_not_found()) return "the server has no AttunePolicy resource (the attune.io CRDs are not installed)";
        return one_line_error(e);
    }

    Invocation& inv_;
    Session& s_;
    bool as_json_;
    std::chrono::milliseconds deadline_;
};

int run(Invocation& inv) {
    if (!inv.flags.positionals.empty())
        return usage_error(inv.err, kCommand, "unexpected argument \"" + inv.flags.positionals[0] + "\"", kExitUsage);
    const auto o = inv.common.output;
    if (o != OutputFormat::Table && o != OutputFormat::Yaml && o != OutputFormat::Json)
        return usage_error(inv.err, kCommand, "-o takes yaml (default) or json", kExitUsage);

    const std::string answers = inv.flags.get("answers");
    std::ifstream answers_file;
    std::istream* in = &std::cin;
    if (!answers.empty()) {
        answers_file.open(answers);
        if (!answers_file) {
            inv.err << "error: cannot read --answers " << answers << ": " << std::strerror(errno) << "\n";
            return kExitError;
        }
        in = &answers_file;
    } else if (isatty(STDIN_FILENO) != 1) {
        inv.err << "error: the wizard asks its questions on a terminal, and stdin is not one: run it in a "
                   "terminal, or give the answers with --answers FILE (one a line)\n";
        return kExitError;
    }

    auto s = open_session(inv);
    if (!s) return kExitError;
    WizardShell shell(inv, *s, o == OutputFormat::Json);
    policy::TimeZones zones;
    core::WizardOptions options;
    options.default_namespace = s->ns();
    options.check_zone = [&zones](std::string_view zone) -> std::string {
        auto loaded = zones.load(std::string(zone));
        return loaded ? std::string() : "\"" + std::string(zone) + "\" is " + loaded.error().message;
    };
    core::PolicyWizard wizard(std::move(options));

    for (auto out = wizard.start();;) {
        inv.out << out.text;
        if (out.show_policy) inv.out << "\n" << shell.preview(out.policy) << "\n";
        switch (out.action) {
            case core::WizardAction::Ask: {
                inv.out << out.prompt << std::flush;
                std::string line;
                if (!std::getline(*in, line)) {
                    out = wizard.end_of_input();
                    break;
                }
                if (in != &std::cin) inv.out << line << "\n";  // a transcript, as if typed
                out = wizard.answer(line);
                break;
            }
            case core::WizardAction::ListWorkloads: out = wizard.workloads_listed(shell.list_workloads(out.ns)); break;
            case core::WizardAction::Validate: out = wizard.validated(shell.validate(out.ns, out.policy)); break;
            case core::WizardAction::Create: out = wizard.created(shell.create(out.ns, out.policy)); break;
            case core::WizardAction::WriteFile: out = wizard.written(shell.write_file(out.path, out.policy)); break;
            case core::WizardAction::Finish: inv.out.flush(); return out.exit_code;
        }
        // A deadline that passed aborted the client's requests for good: later ones would fail the same way.
        if (s->timed_out() || s->abandoned()) {
            inv.out << "\n" << std::flush;
            inv.err << "error: the apiserver did not answer in time (--request-timeout)\n";
            if (s->abandoned()) (void)s.release();  // as run_in_session: a frame is still suspended on the loop
            return kExitError;
        }
    }
}

}  // namespace

Command make_wizard_command() {
    Command c;
    c.name = std::string(kCommand);
    c.summary = "Create an AttunePolicy by answering questions";
    c.usage = "kubectl attune wizard [-n NS] [--answers FILE] [-o yaml|json]";
    c.description =
        "Asks, one question at a time, for the namespace, the target (picked from the namespace's Deployments and\n"
        "StatefulSets, typed as KIND/NAME, or a label selector), the policy's name, its mode, its metrics source,\n"
        "the cpu and memory percentiles and bounds, and for OneShot and Auto the resize windows and the\n"
        "cooldown. Enter takes the value in [brackets]; a bad answer is asked again with the reason. The policy\n"
        "is then checked as the manager and the apiserver would check it (a server dry run) and shown; it can\n"
        "be created, written to a file, changed, or dropped. Ctrl-D quits at any question and creates nothing\n"
        "(exit 1).\n"
        "stdin must be a terminal, unless --answers gives the answers, one a line (an empty line takes the\n"
        "default). docs/cli.md \"wizard\" lists the questions.";
    c.flags = {
        {"answers", 0, FlagKind::Value, "FILE", "read the answers from FILE, one a line, instead of a terminal"}};
    c.run = run;
    return c;
}

}  // namespace attune::cli
