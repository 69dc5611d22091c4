#pragma once
// A kube::Client for the runtime's scripted loopback apiserver, without
// retries, so each scripted reply answers exactly one call.
#include <attune/kube/client.hpp>

#include "../runtime/scripted_tls_server.hpp"
#include "../runtime/test_certs.hpp"

#include <memory>
#include <string>

namespace attune::test {

inline std::unique_ptr<kube::Client> scripted_client(boost::asio::io_context& io, const ScriptedTlsServer& server) {
    kube::RestConfig rc;
    rc.host = "127.0.0.1";
    rc.port = std::to_string(server.port());
    rc.tls.ca_pem = pki().ca_pem;
    kube::ClientSettings s;
    s.retry.max_retries = 0;
    return std::make_unique<kube::Client>(io.get_executor(), rc, s);
}

}  // namespace attune::test
