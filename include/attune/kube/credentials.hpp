#pragma once
// What authenticates a request to the apiserver, obtained per request: a
// bearer token (fixed or from a file) or what an exec credential plugin
// returns (a token, or a client certificate and key). kube::Client asks the
// source before every attempt and tells it about a 401.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace attune::kube {

struct Credential {
    std::string token;            // empty: no Authorization header
    std::string client_cert_pem;  // with client_key_pem: the TLS client identity
    std::string client_key_pem;
    // Changes whenever any field above does; a 401 names the generation it
    // was answered for, so one refusal drops one credential only once.
    std::uint64_t generation = 0;
};

// A credential, or why none could be had.
struct CredentialResult {
    CredentialResult() = default;
    std::optional<Credential> value;
    std::string error;
};

class CredentialSource {
public:
    using Clock = std::chrono::steady_clock;
    virtual ~CredentialSource() = default;

    // The credential for a request about to be sent. May have to obtain one
    // first (an exec plugin run, itself bounded); waits at most until
    // `deadline` for it.
    virtual boost::asio::awaitable<CredentialResult> get(boost::asio::any_io_executor ex,
                                                         Clock::time_point deadline) = 0;
    // A request sent with `generation` was answered 401: that credential is
    // dropped. True when the next get() can yield a different one, so one
    // retry of the request is worth it.
    virtual bool refused(std::uint64_t generation) = 0;
};

// A bearer token, fixed or read from a file. A file is re-read when older than
// the refresh interval (bound service-account tokens rotate); a failed re-read
// keeps the last good token.
class TokenSource final : public CredentialSource {
public:
    static std::shared_ptr<TokenSource> fixed(std::string token);
    // Throws ConfigError if the first read fails or the file is empty.
    // reread_when_changed: also re-read as soon as the file's modification
    // time changes (one stat per current(); a mounted Secret that rotates).
    static std::shared_ptr<TokenSource> from_file(std::filesystem::path path,
                                                  std::chrono::seconds refresh = std::chrono::seconds(60),
                                                  bool reread_when_changed = false);

    const std::string& current(Clock::time_point now);
    // Re-reads the file now (after a 401, say); false if that failed and the
    // last good token stays. A fixed token: false.
    bool force_reread();
    const std::filesystem::path& file() const noexcept { return path_; }

    boost::asio::awaitable<CredentialResult> get(boost::asio::any_io_executor ex, Clock::time_point deadline) override;
    // Re-reads the file; true if that gave a different token.
    bool refused(std::uint64_t generation) override;

private:
    TokenSource() = default;
    bool reread();
    std::filesystem::file_time_type mtime() const;
    std::string token_;
    std::uint64_t generation_ = 1;
    std::filesystem::path path_;
    std::chrono::seconds refresh_{60};
    bool watch_mtime_ = false;
    std::filesystem::file_time_type mtime_{};
    Clock::time_point read_at_{};
};

}  // namespace attune::kube
