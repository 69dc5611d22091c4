#include <attune/kube/exec_credential.hpp>

#include <attune/core/util/base64.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unordered_set>

namespace attune::kube {
namespace json = boost::json;

namespace {

core::Error config_error_of(std::string msg) { return core::make_error("invalid_exec_config", std::move(msg)); }
core::Error output_error(std::string msg) {
    return core::make_error("exec_output", "exec plugin output: " + std::move(msg));
}

std::string trim_right(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
    return s;
}

std::string seconds_text(std::chrono::milliseconds d) {
    const auto ms = d.count();
    std::string s = std::to_string(ms / 1000);
    if (ms % 1000 != 0) {
        std::string frac = std::to_string(1000 + ms % 1000).substr(1);
        while (frac.back() == '0') frac.pop_back();
        s += "." + frac;
    }
    return s + "s";
}

}  // namespace

core::Result<ExecConfig> check_exec_config(const ExecConfigInput& in) {
    if (in.api_version.empty())
        return config_error_of("exec: apiVersion must be set (" + std::string(kExecApiV1) + " or " +
                               std::string(kExecApiV1beta1) + ")");
    if (in.api_version != kExecApiV1 && in.api_version != kExecApiV1beta1)
        return config_error_of("exec: apiVersion '" + in.api_version + "' is not supported (use " +
                               std::string(kExecApiV1) + " or " + std::string(kExecApiV1beta1) + ")");
    if (in.command.empty()) return config_error_of("exec: command must be set");
    for (std::size_t i = 0; i < in.env.size(); ++i) {
        if (in.env[i].name.empty()) return config_error_of("exec: env[" + std::to_string(i) + "] has no name");
        if (in.env[i].name.find('=') != std::string::npos)
            return config_error_of("exec: env[" + std::to_string(i) + "] name '" + in.env[i].name + "' contains '='");
    }
    ExecConfig out;
    out.api_version = in.api_version;
    out.command = in.command;
    out.args = in.args;
    out.env = in.env;
    out.install_hint = in.install_hint;
    out.provide_cluster_info = in.provide_cluster_info;
    if (!in.mode || in.mode->empty()) {
        // v1 makes the plugin say whether it wants stdin; v1beta1 defaulted it.
        if (in.api_version == kExecApiV1)
            return config_error_of("exec: interactiveMode must be set for " + std::string(kExecApiV1) +
                                   " (Never, IfAvailable or Always)");
        out.mode = InteractiveMode::IfAvailable;
    } else if (*in.mode == "Never") {
        out.mode = InteractiveMode::Never;
    } else if (*in.mode == "IfAvailable") {
        out.mode = InteractiveMode::IfAvailable;
    } else if (*in.mode == "Always") {
        out.mode = InteractiveMode::Always;
    } else {
        return config_error_of("exec: interactiveMode '" + *in.mode +
                               "' is not one of Never, IfAvailable, Always");
    }
    return out;
}

std::string resolve_exec_command(const std::string& command, const std::string& kubeconfig_dir) {
    if (command.find('/') == std::string::npos) return command;  // looked up in $PATH
    std::filesystem::path p(command);
    if (p.is_absolute() || kubeconfig_dir.empty()) return p.lexically_normal().string();
    return (std::filesystem::path(kubeconfig_dir) / p).lexically_normal().string();
}

core::Result<bool> decide_interactive(InteractiveMode mode, bool stdin_is_terminal, bool stdin_unavailable,
                                      std::string_view unavailable_reason) {
    switch (mode) {
        case InteractiveMode::Never: return false;
        case InteractiveMode::IfAvailable: return stdin_is_terminal && !stdin_unavailable;
        case InteractiveMode::Always:
            if (!stdin_is_terminal)
                return core::make_error("exec_interactive",
                                        "exec plugin needs a terminal (interactiveMode Always) but standard input is "
                                        "not a terminal");
            if (stdin_unavailable)
                return core::make_error("exec_interactive",
                                        "exec plugin needs a terminal (interactiveMode Always) but standard input is "
                                        "unavailable" +
                                            (unavailable_reason.empty() ? std::string()
                                                                        : ": " + std::string(unavailable_reason)));
            return true;
    }
    return false;
}

std::string exec_info_json(std::string_view api_version, bool interactive, const ExecClusterInfo* cluster) {
    json::object spec;
    if (cluster) {
        json::object c;
        c["server"] = cluster->server;
        if (!cluster->tls_server_name.empty()) c["tls-server-name"] = cluster->tls_server_name;
        if (cluster->insecure_skip_tls_verify) c["insecure-skip-tls-verify"] = true;
        if (!cluster->certificate_authority_data.empty())
            c["certificate-authority-data"] = core::base64_encode(cluster->certificate_authority_data);
        if (!cluster->proxy_url.empty()) c["proxy-url"] = cluster->proxy_url;
        if (cluster->config) c["config"] = *cluster->config;
        spec["cluster"] = std::move(c);
    }
    spec["interactive"] = interactive;
    json::object root;
    root["apiVersion"] = api_version;
    root["kind"] = "ExecCredential";
    root["spec"] = std::move(spec);
    return json::serialize(root);
}

std::vector<std::string> build_exec_env(const std::vector<std::string>& inherited, const std::vector<ExecEnvVar>& extra,
                                        const std::string& exec_info) {
    constexpr std::string_view kInfoName = "KUBERNETES_EXEC_INFO";
    std::unordered_set<std::string> replaced{std::string(kInfoName)};
    for (const auto& e : extra) replaced.insert(e.name);
    std::vector<std::string> out;
    out.reserve(inherited.size() + extra.size() + 1);
    for (const auto& kv : inherited) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) continue;  // not NAME=value: nothing a child can use
        if (replaced.contains(kv.substr(0, eq))) continue;
        out.push_back(kv);
    }
    // A name configured twice: the later entry wins, as the kubeconfig reads.
    std::vector<const ExecEnvVar*> last;
    for (const auto& e : extra) {
        std::erase_if(last, [&](const ExecEnvVar* p) { return p->name == e.name; });
        last.push_back(&e);
    }
    for (const auto* e : last) out.push_back(e->name + "=" + e->value);
    out.push_back(std::string(kInfoName) + "=" + exec_info);
    return out;
}

namespace {

// A string field of `o`: absent or null is empty; any other type is an error.
core::Result<std::string> string_field(const json::object& o, std::string_view key, std::string_view where) {
    const auto* v = o.if_contains(key);
    if (!v || v->is_null()) return std::string();
    if (!v->is_string()) return output_error(std::string(where) + std::string(key) + " must be a string");
    return std::string(v->get_string());
}

bool looks_like_pem(std::string_view s, std::string_view label_suffix) {
    const auto begin = s.find("-----BEGIN ");
    if (begin == std::string_view::npos) return false;
    const auto end = s.find("-----", begin + 11);
    if (end == std::string_view::npos) return false;
    const auto label = s.substr(begin + 11, end - begin - 11);
    return label.size() >= label_suffix.size() && label.substr(label.size() - label_suffix.size()) == label_suffix &&
           s.find("-----END ", end) != std::string_view::npos;
}

}  // namespace

core::Result<ExecCredential> parse_exec_credential(std::string_view output, std::string_view api_version,
                                                   std::chrono::system_clock::time_point now) {
    boost::system::error_code ec;
    json::value v = json::parse(output, ec);
    if (ec) {
        auto head = std::string(output.substr(0, 80));
        if (const auto nl = head.find_first_of("\r\n"); nl != std::string::npos) head.resize(nl);
        return output_error("not JSON (" + ec.message() + ")" + (output.empty() ? ": it was empty" : ": " + head));
    }
    if (!v.is_object()) return output_error("not a JSON object");
    const auto& o = v.get_object();
    auto av = string_field(o, "apiVersion", "");
    if (!av) return av.error();
    auto kind = string_field(o, "kind", "");
    if (!kind) return kind.error();
    if (kind.value() != "ExecCredential")
        return output_error(kind.value().empty() ? "kind is missing (want ExecCredential)"
                                                 : "kind is '" + kind.value() + "', want ExecCredential");
    if (av.value() != api_version)
        return output_error(av.value().empty() ? "apiVersion is missing (want " + std::string(api_version) + ")"
                                               : "apiVersion is '" + av.value() + "' but the kubeconfig asks for " +
                                                     std::string(api_version));
    const auto* st = o.if_contains("status");
    if (!st || st->is_null()) return output_error("no status");
    if (!st->is_object()) return output_error("status must be an object");
    const auto& so = st->get_object();
    for (const auto& kv : so) {
        const auto k = kv.key();
        if (k != "token" && k != "clientCertificateData" && k != "clientKeyData" && k != "expirationTimestamp")
            return output_error("status." + std::string(k) + " is not a field of ExecCredentialStatus");
    }
    ExecCredential out;
    auto token = string_field(so, "token", "status.");
    if (!token) return token.error();
    auto cert = string_field(so, "clientCertificateData", "status.");
    if (!cert) return cert.error();
    auto key = string_field(so, "clientKeyData", "status.");
    if (!key) return key.error();
    auto exp = string_field(so, "expirationTimestamp", "status.");
    if (!exp) return exp.error();
    if (token.value().empty() && cert.value().empty() && key.value().empty())
        return output_error("status has neither a token nor a client certificate and key");
    if (cert.value().empty() != key.value().empty())
        return output_error(cert.value().empty() ? "status.clientKeyData without status.clientCertificateData"
                                                 : "status.clientCertificateData without status.clientKeyData");
    if (token.value().find_first_of("\r\n") != std::string::npos)
        return output_error("status.token contains a line break");
    if (!cert.value().empty()) {
        if (!looks_like_pem(cert.value(), "CERTIFICATE"))
            return output_error("status.clientCertificateData is not a PEM certificate");
        if (!looks_like_pem(key.value(), "PRIVATE KEY"))
            return output_error("status.clientKeyData is not a PEM private key");
    }
    if (!exp.value().empty()) {
        auto t = core::parse_timestamp(exp.value());
        if (!t) return output_error("status.expirationTimestamp '" + exp.value() + "' is not an RFC 3339 time");
        if (!exec_credential_valid(t.value(), now))
            return output_error("status.expirationTimestamp " + exp.value() + " has already passed");
        out.expiration = t.value();
    }
    out.token = std::move(token).value();
    out.client_certificate_pem = std::move(cert).value();
    out.client_key_pem = std::move(key).value();
    return out;
}

bool exec_credential_valid(const std::optional<core::Timestamp>& expiration,
                           std::chrono::system_clock::time_point now) {
    return !expiration || now <= *expiration;
}

core::Error describe_exec_failure(const ExecConfig& cfg, const ExecRun& run) {
    const std::string who = "exec plugin: executable " + cfg.command;
    std::string msg;
    bool hint = false;
    switch (run.how) {
        case ExecRun::End::NotStarted:
            if (run.spawn_errno == ENOENT) {
                msg = who + (cfg.command.find('/') == std::string::npos ? " not found in $PATH" : " not found");
            } else if (run.spawn_errno == EACCES) {
                msg = who + " cannot be executed (permission denied)";
            } else {
                msg = who + " could not be started: " + std::generic_category().message(run.spawn_errno);
            }
            hint = run.spawn_errno == ENOENT || run.spawn_errno == EACCES || run.spawn_errno == ENOEXEC;
            break;
        case ExecRun::End::Exited: msg = who + " failed with exit code " + std::to_string(run.exit_code); break;
        case ExecRun::End::Signalled: {
            const char* name = sigabbrev_np(run.signal);
            msg = who + " was killed by signal " + std::to_string(run.signal) +
                  (name ? " (SIG" + std::string(name) + ")" : std::string());
            break;
        }
        case ExecRun::End::TimedOut:
            msg = who + " did not finish within " + seconds_text(run.timeout) + " and was killed";
            break;
        case ExecRun::End::OutputTooLarge:
            msg = who + " wrote more than " + std::to_string(run.stdout_cap) + " bytes to stdout and was killed";
            break;
    }
    if (run.how != ExecRun::End::NotStarted) {
        if (!run.stderr_captured) {
            msg += " (its stderr is above)";
        } else if (auto tail = trim_right(run.stderr_tail); !tail.empty()) {
            msg += "; stderr: " + std::string(run.stderr_truncated ? "..." : "") + tail;
        }
    }
    if (hint && !cfg.install_hint.empty()) msg += "\n\n" + trim_right(cfg.install_hint);
    return core::make_error("exec_failed", std::move(msg));
}

}  // namespace attune::kube
