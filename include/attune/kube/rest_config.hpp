#pragma once
// Where the apiserver is and how to authenticate: the output of kubeconfig
// or in-cluster loading, the input of kube::client.
#include <attune/http/tls_options.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

namespace attune::kube {

// Every malformed configuration input ends here, with a message that names
// the file and the field.
class config_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A bearer token, fixed or read from a file. A file is re-read when older than
// the refresh interval (bound service-account tokens rotate); a failed re-read
// keeps the last good token.
class token_source {
public:
    using clock = std::chrono::steady_clock;

    static std::shared_ptr<token_source> fixed(std::string token);
    // Throws config_error if the first read fails or the file is empty.
    // reread_when_changed: also re-read as soon as the file's modification
    // time changes (one stat per current(); a mounted Secret that rotates).
    static std::shared_ptr<token_source> from_file(std::filesystem::path path,
                                                   std::chrono::seconds refresh = std::chrono::seconds(60),
                                                   bool reread_when_changed = false);

    const std::string& current(clock::time_point now);
    // Re-reads the file now (after a 401, say); false if that failed and the
    // last good token stays. A fixed token: false.
    bool force_reread();
    const std::filesystem::path& file() const noexcept { return path_; }

private:
    token_source() = default;
    bool reread();
    std::filesystem::file_time_type mtime() const;
    std::string token_;
    std::filesystem::path path_;
    std::chrono::seconds refresh_{60};
    bool watch_mtime_ = false;
    std::filesystem::file_time_type mtime_{};
    clock::time_point read_at_{};
};

struct rest_config {
    std::string host;         // DNS name or IP literal (no brackets)
    std::string port = "443";
    std::string path_prefix;  // server URL path, e.g. "/k8s/clusters/x"; usually empty
    http::tls_options tls;
    std::shared_ptr<token_source> token;  // may be null (client-certificate auth)
    std::string default_namespace = "default";
    std::string context;  // the kubeconfig context used, for logs
};

// Splits "https://host:port/prefix" into the config. Only https is accepted.
// Throws config_error.
void parse_server_url(std::string_view url, rest_config& out);

}  // namespace attune::kube
