#pragma once
// Exec credential plugins (kubeconfig users[].user.exec), the decisions only:
// which API versions and interactive modes are accepted, what the plugin's
// environment and KUBERNETES_EXEC_INFO hold, how its ExecCredential output is
// judged and what a failed run is reported as. Pure: no processes, no clocks
// (the caller passes "now"). The behaviour follows client-go's exec
// authenticator (staging/src/k8s.io/client-go/plugin/pkg/client/auth/exec)
// and the client.authentication.k8s.io API (v1 and v1beta1).
#include <attune/core/util/result.hpp>
#include <attune/core/util/timestamp.hpp>

#include <boost/json/value.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attune::kube {

inline constexpr std::string_view kExecApiV1 = "client.authentication.k8s.io/v1";
inline constexpr std::string_view kExecApiV1beta1 = "client.authentication.k8s.io/v1beta1";
// The cluster extension whose value reaches the plugin as spec.cluster.config.
inline constexpr std::string_view kExecClusterExtension = "client.authentication.k8s.io/exec";

enum class InteractiveMode { Never, IfAvailable, Always };

struct ExecEnvVar {
    std::string name;
    std::string value;
};

// users[].user.exec after validation (see check_exec_config).
struct ExecConfig {
    std::string api_version;
    std::string command;  // as written, or resolved against the kubeconfig's directory (see resolve_exec_command)
    std::vector<std::string> args;
    std::vector<ExecEnvVar> env;
    std::string install_hint;
    InteractiveMode mode = InteractiveMode::IfAvailable;
    bool provide_cluster_info = false;
};

// How this process runs plugins (not part of the kubeconfig).
struct ExecPluginOptions {
    // Hard bound on one run; the plugin (and, when it has its own process
    // group, its children) is killed at it. client-go has none; a daemon
    // cannot wait forever on a hung helper.
    std::chrono::milliseconds timeout{30'000};
    std::size_t stdout_cap = 1u << 20;  // an ExecCredential is a few KiB even with a certificate chain
    std::size_t stderr_tail = 4096;     // how much of stderr an error quotes
    // The caller uses stdin itself, or runs unattended (the manager): no
    // plugin gets it, and interactiveMode Always is an error.
    bool stdin_unavailable = false;
    std::string stdin_unavailable_reason;
};

// The fields of ExecConfig as they appear in the kubeconfig, before checks.
struct ExecConfigInput {
    std::string api_version;
    std::string command;
    std::vector<std::string> args;
    std::vector<ExecEnvVar> env;
    std::string install_hint;
    std::optional<std::string> mode;  // interactiveMode; absent: v1beta1 defaults to IfAvailable, v1 refuses
    bool provide_cluster_info = false;
};

// Validates and defaults: apiVersion must be v1 or v1beta1, command and every
// env name non-empty, interactiveMode one of Never/IfAvailable/Always (and
// given at all for v1). Error code "invalid_exec_config"; the message names
// the field.
core::Result<ExecConfig> check_exec_config(const ExecConfigInput& in);

// A command containing '/' is a path: relative ones resolve against the
// directory of the kubeconfig that defined them (clientcmd's rule). A bare
// name is looked up in $PATH when run.
std::string resolve_exec_command(const std::string& command, const std::string& kubeconfig_dir);

// What spec.cluster carries when provideClusterInfo is set.
struct ExecClusterInfo {
    std::string server;
    std::string tls_server_name;
    bool insecure_skip_tls_verify = false;
    std::string certificate_authority_data;  // raw PEM; sent base64-encoded
    std::string proxy_url;
    std::optional<boost::json::value> config;  // extensions[client.authentication.k8s.io/exec]
};

// Whether stdin is handed to the plugin. Never: no. IfAvailable: when stdin
// is a terminal and the caller has not reserved it. Always: the same, but
// otherwise an error ("exec_interactive").
core::Result<bool> decide_interactive(InteractiveMode mode, bool stdin_is_terminal, bool stdin_unavailable,
                                      std::string_view unavailable_reason);

// The ExecCredential the plugin receives in KUBERNETES_EXEC_INFO:
// apiVersion, kind, spec.interactive and, when `cluster` is given,
// spec.cluster.
std::string exec_info_json(std::string_view api_version, bool interactive, const ExecClusterInfo* cluster);

// The plugin's environment: the inherited one, with each configured variable
// added (replacing an inherited one of the same name), then
// KUBERNETES_EXEC_INFO. Entries are "NAME=value".
std::vector<std::string> build_exec_env(const std::vector<std::string>& inherited, const std::vector<ExecEnvVar>& extra,
                                        const std::string& exec_info);

// What a successful plugin run yields.
struct ExecCredential {
    std::string token;
    std::string client_certificate_pem;  // both or neither
    std::string client_key_pem;
    std::optional<core::Timestamp> expiration;  // none: valid until the server refuses it
};

// Judges the plugin's stdout strictly: a JSON object of kind ExecCredential
// in `api_version`, a status with a token and/or a PEM certificate and key
// pair (both), string fields of string type, no unknown status fields, and
// an RFC 3339 expirationTimestamp that is still in the future at `now`.
// Error code "exec_output"; the message says what is wrong.
core::Result<ExecCredential> parse_exec_credential(std::string_view output, std::string_view api_version,
                                                   std::chrono::system_clock::time_point now);

// A cached credential is used while this holds: no expiration, or now is not
// past it.
bool exec_credential_valid(const std::optional<core::Timestamp>& expiration,
                           std::chrono::system_clock::time_point now);

// How one run of the plugin ended, as the process shell observed it.
struct ExecRun {
    enum class End {
        Exited,          // exit_code set (0: success)
        Signalled,       // killed by `signal` (not by us)
        TimedOut,        // still running at the bound: we killed it
        NotStarted,      // spawn failed with `spawn_errno` (ENOENT: missing)
        OutputTooLarge,  // stdout exceeded the cap: we killed it
    };
    End how = End::Exited;
    int exit_code = 0;
    int signal = 0;
    int spawn_errno = 0;
    std::string stdout_data;
    std::string stderr_tail;      // the last bytes of stderr (when captured)
    bool stderr_truncated = false;  // earlier stderr was dropped
    bool stderr_captured = true;  // false: it went to our own stderr (interactive)
    std::chrono::milliseconds timeout{0};
    std::size_t stdout_cap = 0;
};

// The error for a run that did not produce usable output ("exec_failed"),
// with the install hint where client-go shows one: when the executable is
// missing or cannot be executed. `command` is the plugin as configured.
core::Error describe_exec_failure(const ExecConfig& cfg, const ExecRun& run);

}  // namespace attune::kube
