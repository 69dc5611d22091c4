// kubectl attune migrate --from attune-go: the Go operator's Lease first
// (refused while the Go operator leads, else taken over so it cannot lead
// again), its webhooks named, then each policy and each pod it tracked:
// what this manager reads the same way is kept, the rest rewritten or
// dropped (core::adopt_go_policy, core::adopt_go_pod).
#include "migrate_attune_go.hpp"

#include "session.hpp"
#include "workload_manifest.hpp"

#include <attune/core/policy/annotations.hpp>
#include <attune/core/safety/go_adoption.hpp>
#include <attune/core/util/json_path.hpp>
#include <attune/core/util/merge_patch.hpp>
#include <attune/kube/micro_time.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <ostream>

namespace attune::cli {
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// What migrate adopts: the policies, then the pods.
enum class Kind { Policy, Pod };

struct Target {
    kube::ResourceType rt;
    std::string kind;      // "pod", "attunepolicy": the notes' prefix
    std::string resource;  // "pod", "attunepolicy.attune.io": kubectl's "<resource>/<name> patched"
};

Target target_of(Kind k) {
    if (k == Kind::Pod) return {kube::resources::pods(), "pod", "pod"};
    return {kube::resources::attune_policies(), "attunepolicy", "attunepolicy.attune.io"};
}

std::string where(const json::value& obj) {
    return std::string(core::string_at(obj, {"metadata", "namespace"})) + "/" +
           std::string(core::string_at(obj, {"metadata", "name"}));
}

json::value with_type(json::value obj, std::string_view api_version, std::string_view kind) {
    if (obj.is_object()) {
        obj.get_object()["apiVersion"] = api_version;
        obj.get_object()["kind"] = kind;
    }
    return obj;
}

class GoMigration {
public:
    GoMigration(Invocation& inv, Session& s, const MigrateWrites& w)
        : inv_(inv), s_(s), w_(w), print_objects_(inv.common.output != OutputFormat::Table) {}

    // The notes go to stdout, or to stderr when stdout carries the objects (-o).
    std::ostream& notes() { return print_objects_ ? inv_.err : inv_.out; }
    bool failed() const noexcept { return failed_; }
    json::array& objects() noexcept { return objects_; }

    // nullopt: go on; a value: the exit code.
    // Coroutine parameters by value, and none of class type built at the call
    // (GCC 12 destroys such arguments twice).
    asio::awaitable<std::optional<int>> lease(std::string go_namespace, bool force) {
        json::value lease;
        if (!go_namespace.empty()) {
            auto got =
                co_await s_.client().get(kube::resources::leases(), go_namespace, std::string(core::kGoLeaseName));
            if (!got && got.error().is_not_found()) {
                inv_.err << "warning: no Lease " << go_namespace << "/" << core::kGoLeaseName
                         << ": the Go operator ran there without --leader-elect (its default), or never ran; "
                            "nothing tells whether it still runs: make sure it is stopped\n";
                co_return std::nullopt;
            }
            if (!got) {
                inv_.err << "error: cannot read Lease " << go_namespace << "/" << core::kGoLeaseName << ": "
                         << got.error().describe() << "\n";
                co_return kExitError;
            }
            lease = std::move(got.value());
        } else {
            kube::ListOptions lo;
            lo.field_selector = "metadata.name=" + std::string(core::kGoLeaseName);
            auto list = co_await s_.client().list_all(kube::resources::leases(), "", lo);
            if (!list) {
                inv_.err << "error: cannot look for the Go operator's Lease " << core::kGoLeaseName
                         << " in every namespace: " << list.error().describe()
                         << "; name its namespace with --go-namespace\n";
                co_return kExitError;
            }
            auto& items = list.value().items;
            if (items.empty()) {
                inv_.err << "warning: no Lease " << core::kGoLeaseName
                         << " in any namespace: the Go operator ran without --leader-elect (its default), or is "
                            "gone; nothing tells whether it still runs: make sure it is stopped\n";
                co_return std::nullopt;
            }
            if (items.size() > 1) {
                inv_.err << "error: " << items.size() << " Leases " << core::kGoLeaseName << " (";
                for (std::size_t i = 0; i < items.size(); ++i)
                    inv_.err << (i ? ", " : "") << core::string_at(items[i], {"metadata", "namespace"});
                inv_.err << "): name the Go operator's namespace with --go-namespace\n";
                co_return kExitError;
            }
            lease = std::move(items[0]);
        }

        const auto ns = std::string(core::string_at(lease, {"metadata", "namespace"}));
        const auto name = std::string(core::string_at(lease, {"metadata", "name"}));
        const auto now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
        const auto j = core::judge_go_lease(lease, now);
        const std::string id = "lease " + ns + "/" + name;
        if (j.verdict == core::GoLeaseVerdict::Ours) {
            notes() << id << ": " << j.message << ": kept\n";
            co_return std::nullopt;
        }
        if (j.verdict == core::GoLeaseVerdict::Leading && !force) {
            inv_.err << "error: the Go operator leads: " << id << " is " << j.message
                     << ". Both operators would resize the same pods. Stop it first (scale its Deployment to 0, or "
                        "uninstall it), wait "
                     << j.record.duration_seconds
                     << "s, and run this again; --force takes the Lease over anyway, and a Go leader still running "
                        "stops leading within its renew deadline. Nothing was changed.\n";
            co_return kExitError;
        }
        auto taken = core::go_lease_takeover(lease, kube::format_micro_time(std::chrono::system_clock::now()));
        const std::string outcome = "taken over: held by " + std::string(core::kMigrationLeaseHolder) +
                                    ", so a Go replica started again waits instead of leading (delete the Lease to "
                                    "undo)";
        if (w_.client_dry_run) {
            notes() << id << ": " << j.message << ": " << outcome << w_.suffix << "\n";
            if (print_objects_) objects_.push_back(with_type(std::move(taken), "coordination.k8s.io/v1", "Lease"));
        } else {
            auto put = co_await s_.client().update(kube::resources::leases(), ns, name, std::move(taken), std::string(),
                                                   w_.wo);
            if (!put) {
                inv_.err << "error: cannot take " << id << " over: "
                         << (put.error().is_conflict() ? "it changed meanwhile (the Go operator renewed it: it runs)"
                                                       : put.error().describe())
                         << ". Nothing else was changed.\n";
                co_return kExitError;
            }
            notes() << id << ": " << j.message << ": " << outcome << w_.suffix << "\n";
            if (print_objects_)
                objects_.push_back(with_type(std::move(put.value()), "coordination.k8s.io/v1", "Lease"));
        }
        if (j.verdict == core::GoLeaseVerdict::Leading && !w_.client_dry_run && !w_.wo.dry_run) {
            // A Go leader keeps acting until its renewal fails for the renew
            // deadline, which is shorter than the lease: wait the lease out
            // before reading what it left.
            const auto wait = std::chrono::seconds(j.record.duration_seconds + 1);
            inv_.err << "waiting " << wait.count() << "s for the Go leader to stop\n";
            asio::steady_timer t(co_await asio::this_coro::executor);
            t.expires_after(wait);
            co_await t.async_wait(asio::use_awaitable);
        }
        co_return std::nullopt;
    }

    asio::awaitable<void> webhooks() {
        for (int i = 0; i < 2; ++i) {
            const std::string kind = i == 0 ? "mutatingwebhookconfiguration" : "validatingwebhookconfiguration";
            auto rt = i == 0 ? kube::resources::mutating_webhook_configurations()
                             : kube::resources::validating_webhook_configurations();
            auto list = co_await s_.client().list_all(std::move(rt), std::string(), kube::ListOptions{});
            if (!list) {
                inv_.err << "warning: cannot look for the Go operator's webhooks (" << kind
                         << "s): " << list.error().describe() << "\n";
                continue;
            }
            for (const auto& c : list.value().items) {
                const auto hooks = core::go_webhooks_in(c);
                if (hooks.empty()) continue;
                const std::string name(core::string_at(c, {"metadata", "name"}));
                std::string joined;
                for (const auto& h : hooks) joined += (joined.empty() ? "" : ", ") + h;
                inv_.err << "warning: " << kind << "/" << name << " holds the Go operator's webhooks (" << joined
                         << "): with the Go operator gone they refuse policy writes (failurePolicy Fail), and while it "
                            "runs it sizes new pods too; remove it with the Go operator (kubectl delete "
                         << kind << " " << name << ")\n";
            }
        }
    }

    // Every object of kind `k` in scope (`selector`: a label selector, may be empty).
    asio::awaitable<void> adopt(Kind k, std::string ns, std::string selector) {
        const Target t = target_of(k);
        kube::ListOptions lo;
        lo.label_selector = selector;
        lo.limit = 500;
        auto list = co_await s_.client().list_all(t.rt, ns, lo);
        if (!list) {
            inv_.err << "error: cannot list " << t.kind << "s: " << list.error().describe() << "\n";
            failed_ = true;
            co_return;
        }
        for (auto& obj : list.value().items) co_await adopt_one(k, std::move(obj));
    }

private:
    asio::awaitable<void> adopt_one(Kind k, json::value obj) {
        const Target t = target_of(k);
        const bool is_pod = k == Kind::Pod;
        const auto a = is_pod ? core::adopt_go_pod(obj) : core::adopt_go_policy(obj);
        if (a.notes.empty()) co_return;
        const std::string id = t.kind + " " + where(obj);
        for (const auto& n : a.notes) {
            if (n.action == core::AdoptAction::Conflict)
                inv_.err << "error: " << id << ": " << n.field << ": " << n.why << "\n";
            else notes() << id << ": " << n.field << ": " << core::adopt_action_name(n.action) << ": " << n.why << "\n";
        }
        if (a.conflict()) {
            inv_.err << "error: " << id << ": not migrated; nothing of it was changed\n";
            failed_ = true;
            co_return;
        }
        const std::string ns(core::string_at(obj, {"metadata", "namespace"}));
        const std::string name(core::string_at(obj, {"metadata", "name"}));
        const std::string api_version = is_pod ? "v1" : "attune.io/v1alpha1";
        const std::string kind = is_pod ? "Pod" : "AttunePolicy";
        if (a.patch.empty() && a.status_patch.empty()) {
            notes() << t.resource << "/" << name << " unchanged\n";
            co_return;
        }
        json::value result = std::move(obj);
        const json::object* const patches[] = {&a.patch, &a.status_patch};
        for (const json::object* p : patches) {
            if (p->empty()) continue;
            if (w_.client_dry_run) {
                // The resourceVersion precondition is the server's to check; it is not part of the object shown.
                json::value shown = *p;
                if (auto* m = shown.get_object().if_contains("metadata"); m && m->is_object())
                    m->get_object().erase("resourceVersion");
                result = core::apply_merge_patch(std::move(result), shown);
                continue;
            }
            auto sent = co_await s_.client().patch(t.rt, ns, name, kube::PatchType::JsonMerge, json::serialize(*p),
                                                   p == &a.status_patch ? "status" : "", w_.wo);
            if (!sent) {
                inv_.err << "error: " << id << ": cannot patch" << (p == &a.status_patch ? " its status" : "") << ": "
                         << (sent.error().is_conflict() ? "it changed meanwhile; run migrate again"
                                                        : sent.error().describe())
                         << "\n";
                failed_ = true;
                co_return;
            }
            result = std::move(sent.value());
        }
        notes() << t.resource << "/" << name << " patched" << w_.suffix << "\n";
        if (print_objects_) objects_.push_back(with_type(std::move(result), api_version, kind));
    }

    Invocation& inv_;
    Session& s_;
    const MigrateWrites& w_;
    bool print_objects_;
    bool failed_ = false;
    json::array objects_;
};

}  // namespace

int migrate_from_attune_go(Invocation& inv, const MigrateWrites& w, const std::string& go_namespace, bool force) {
    bool failed = false;
    const int rc = run_in_session(inv, std::chrono::seconds(120), kExitError, [&](Session& s) -> asio::awaitable<int> {
        GoMigration m(inv, s, w);
        if (auto stop = co_await m.lease(go_namespace, force)) co_return *stop;
        co_await m.webhooks();
        const std::string ns = inv.common.all_namespaces ? "" : s.ns();
        co_await m.adopt(Kind::Policy, ns, std::string());
        // Every pod the Go operator resized or boosted carries its label.
        co_await m.adopt(Kind::Pod, ns, std::string(core::kTrackedLabel));
        if (inv.common.output != OutputFormat::Table)
            inv.out << render_manifest_stream(m.objects(), inv.common.output == OutputFormat::Json);
        failed = m.failed();
        co_return kExitOk;
    });
    if (rc != kExitOk) return rc;
    inv.out.flush();
    return failed ? kExitError : kExitOk;
}

}  // namespace attune::cli
