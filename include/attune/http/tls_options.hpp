#pragma once
// TLS material and policy for a client connection. Plain values, no Asio,
// so configuration code (kubeconfig) stays cheap to compile.
#include <string>

namespace attune::http {

struct TlsOptions {
    std::string ca_pem;            // empty: system trust store
    std::string client_cert_pem;   // optional client certificate chain
    std::string client_key_pem;
    std::string server_name;       // name to verify (and SNI); empty: the host
    bool insecure_skip_verify = false;  // only reachable through an explicit opt-in
};

}  // namespace attune::http
