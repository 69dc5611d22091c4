#pragma once
// Where the apiserver is and how to authenticate: the output of kubeconfig
// or in-cluster loading, the input of kube::Client.
#include <attune/http/tls_options.hpp>
#include <attune/kube/credentials.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

namespace attune::kube {

// Every malformed configuration input ends here, with a message that names
// the file and the field.
class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct RestConfig {
    std::string host;         // DNS name or IP literal (no brackets)
    std::string port = "443";
    std::string path_prefix;  // server URL path, e.g. "/k8s/clusters/x"; usually empty
    http::TlsOptions tls;
    // Bearer token or client certificate obtained per request: a fixed or
    // file token, or an exec plugin. Null: the static tls client certificate
    // (or no authentication) only.
    std::shared_ptr<CredentialSource> credentials;
    std::string default_namespace = "default";
    std::string context;  // the kubeconfig context used, for logs
};

// Splits "https://host:port/prefix" into the config. Only https is accepted.
// Throws ConfigError.
void parse_server_url(std::string_view url, RestConfig& out);

}  // namespace attune::kube
