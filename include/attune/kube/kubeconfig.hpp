#pragma once
// Loading a RestConfig from kubeconfig files (kubectl's rules) or from the
// in-cluster service account. Every malformed input is a ConfigError whose
// message names the file, the entry and the field.
#include <attune/kube/exec_credential.hpp>
#include <attune/kube/rest_config.hpp>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attune::kube {

struct KubeconfigOptions {
    std::string kubeconfig_flag;                // --kubeconfig: exactly this file, which must exist
    std::string context;                        // --context: overrides current-context
    std::optional<std::string> kubeconfig_env;  // $KUBECONFIG (':'-separated list)
    std::filesystem::path home;                 // for ~/.kube/config
    bool allow_insecure_tls = false;            // without it, insecure-skip-tls-verify is refused
    ExecPluginOptions exec;                     // how a users[].user.exec plugin is run
};

struct KubeconfigSource {
    std::filesystem::path path;  // relative paths inside resolve against its directory
    std::string content;
};

// Merges the sources in order (for clusters, users and contexts the first
// definition of a name wins; the first non-empty current-context wins) and
// resolves the selected context.
// A user with an exec plugin gets an ExecCredentialSource (nothing runs
// yet: the plugin runs on the first request).
RestConfig resolve_kubeconfig(const std::vector<KubeconfigSource>& sources, std::string_view context,
                              bool allow_insecure_tls, const ExecPluginOptions& exec = {});

// Reads the files named by --kubeconfig, else $KUBECONFIG (missing entries
// skipped, at least one must exist), else ~/.kube/config.
RestConfig load_kubeconfig(const KubeconfigOptions& opts);

// Every context the merged sources define, sorted by name (as
// `kubectl config get-contexts -o name`); a malformed file is a ConfigError.
std::vector<std::string> kubeconfig_context_names(const std::vector<KubeconfigSource>& sources);
// The same over the files load_kubeconfig reads.
std::vector<std::string> list_kubeconfig_contexts(const KubeconfigOptions& opts);

struct InClusterOptions {
    std::string service_host;  // $KUBERNETES_SERVICE_HOST
    std::string service_port;  // $KUBERNETES_SERVICE_PORT
    std::filesystem::path dir = "/var/run/secrets/kubernetes.io/serviceaccount";
    std::chrono::seconds token_refresh{60};  // bound tokens rotate; re-read this often
};

RestConfig load_in_cluster(const InClusterOptions& opts);

// Environment-driven choice used by the binaries: --kubeconfig, $KUBECONFIG,
// in-cluster when KUBERNETES_SERVICE_HOST is set, then ~/.kube/config.
RestConfig load_default_config(std::string kubeconfig_flag, std::string context, bool allow_insecure_tls,
                               ExecPluginOptions exec = {});
// The contexts of the files load_default_config would read (--kubeconfig,
// $KUBECONFIG, ~/.kube/config); in-cluster credentials have none.
std::vector<std::string> list_default_contexts(std::string kubeconfig_flag);

}  // namespace attune::kube
