#pragma once
// kube::Client settings for loopback tests: no rate limiting to speak of, a
// fixed jitter seed, short backoffs and 2 s phase timeouts.
#include <attune/kube/client.hpp>

namespace attune::test {

inline kube::ClientSettings fast_client_settings() {
    using namespace std::chrono_literals;
    kube::ClientSettings s;
    s.qps = 1000;
    s.burst = 100;
    s.seed = 42;
    s.retry.max_retries = 3;
    s.retry.backoff = {10ms, 2.0, 100ms, 0.5};
    s.transport.limits.connect = 2s;
    s.transport.limits.handshake = 2s;
    s.transport.limits.write = 2s;
    s.transport.limits.read = 2s;
    return s;
}

}  // namespace attune::test
