// kubectl attune version: the plugin's version, the cluster's Kubernetes
// version and the running manager's (see manager_version.hpp for the hook).
#include "commands.hpp"
#include "manager_version.hpp"
#include "session.hpp"

#include <attune/kube/discovery.hpp>

#include <boost/json.hpp>

#include <ostream>

#ifndef ATTUNE_VERSION
#define ATTUNE_VERSION "0.0.0"
#endif

namespace attune::cli {

std::string client_version() { return "v" ATTUNE_VERSION; }

namespace {

struct Versions {
    std::string kubernetes, kubernetes_error;
    ManagerVersionProbe manager;
};

void print(Invocation& inv, const boost::json::object& doc) {
    if (auto text = render_document(inv.common.output, doc)) {
        inv.out << *text;
    } else {
        auto str = [&](const char* k) {
            const auto* v = doc.if_contains(k);
            return v && v->is_string() ? std::string(v->get_string()) : std::string();
        };
        inv.out << "Client Version: " << str("clientVersion") << "\n";
        if (doc.contains("kubernetesVersion")) inv.out << "Kubernetes Version: " << str("kubernetesVersion") << "\n";
        if (doc.contains("managerVersion")) {
            inv.out << "Manager Version: " << str("managerVersion");
            if (auto src = str("managerVersionSource"); !src.empty()) inv.out << " (" << src << ")";
            inv.out << "\n";
        }
    }
}

int run(Invocation& inv) {
    boost::json::object doc;
    doc["clientVersion"] = client_version();
    if (inv.flags.flag("client")) {
        print(inv, doc);
        return kExitOk;
    }
    const std::string mgr_ns = inv.common.ns.empty() ? inv.flags.get("manager-namespace", "attune-system") : inv.common.ns;
    Versions v;
    const int rc =
        run_in_session(inv, std::chrono::seconds(30), kExitError, [&](Session& s) -> boost::asio::awaitable<int> {
            auto sv = co_await kube::probe_server_version(s.client());
            v.kubernetes = sv.git_version;
            v.kubernetes_error = sv.error;
            v.manager = co_await probe_manager_version(s.client(), mgr_ns, "attune-manager");
            co_return kExitOk;
        });
    if (rc != kExitOk) {
        print(inv, doc);
        return rc;
    }
    // Like kubectl: the client version is always printed; a server that
    // cannot be reached is an error (exit 1) after it.
    if (!v.kubernetes_error.empty()) {
        print(inv, doc);
        inv.err << "error: cannot read the Kubernetes version: " << v.kubernetes_error << "\n";
        return kExitError;
    }
    doc["kubernetesVersion"] = v.kubernetes;
    doc["managerVersion"] = v.manager.version.empty() ? "unknown" : v.manager.version;
    doc["managerVersionSource"] = v.manager.version.empty() ? v.manager.error : v.manager.source;
    print(inv, doc);
    return kExitOk;
}

}  // namespace

Command make_version_command() {
    Command c;
    c.name = "version";
    c.summary = "Print the plugin's version, the cluster's Kubernetes version and the manager's";
    c.usage = "kubectl attune version [--client] [-o json|yaml]";
    c.description =
        "The manager's version is read from the attune-manager Deployment (its app.kubernetes.io/version\n"
        "label, else its manager container's image tag) in --manager-namespace, or -n when given.";
    c.flags = {
        {"client", 0, FlagKind::Boolean, "", "the plugin's version only; do not contact the cluster"},
        {"manager-namespace", 0, FlagKind::Value, "NS",
         "namespace of the attune-manager Deployment (default attune-system)"},
    };
    c.run = run;
    return c;
}

}  // namespace attune::cli
