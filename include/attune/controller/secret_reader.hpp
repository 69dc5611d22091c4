#pragma once
// Reads one key of a Secret through the API, for a policy's
// bearerTokenSecret / tls.caSecret. Only used with --allow-secret-reads
// (core::validate_effective_policy refuses such a policy otherwise), and the
// RBAC for it comes only with the kustomize component secret-reads. Values
// are cached for a short while so a hundred workloads of one policy read the
// Secret once, and a rotated Secret is picked up within the TTL.
#include <attune/core/util/result.hpp>
#include <attune/kube/client.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <map>
#include <string>

namespace attune::controller {

class SecretReader {
public:
    using Clock = std::chrono::steady_clock;
    explicit SecretReader(kube::Client& client, std::chrono::seconds ttl = std::chrono::seconds(60),
                          std::size_t max_entries = 256);

    // data[key] of Secret ns/name, base64-decoded. Error "secret_unreadable"
    // whose message says what to fix (not found, forbidden, no such key).
    boost::asio::awaitable<core::Result<std::string>> read(std::string ns, std::string name, std::string key);

private:
    struct Entry {
        core::Result<std::string> value = core::make_error("secret_unreadable", "not read");
        Clock::time_point read_at;
    };
    kube::Client& client_;
    std::chrono::seconds ttl_;
    std::size_t max_entries_;
    std::map<std::string, Entry> cache_;  // "ns/name/key"
};

}  // namespace attune::controller
