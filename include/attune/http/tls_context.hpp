#pragma once
// Building OpenSSL contexts with the project's TLS policy: TLS 1.2 minimum,
// peer verification on unless explicitly disabled.
#include <attune/http/https_client.hpp>

#include <boost/asio/ssl/context.hpp>

#include <string>

typedef struct ssl_st SSL;

namespace attune::http {

// Client context: CA bundle (or system store), optional client certificate.
// Throws std::runtime_error naming the part that failed to load.
boost::asio::ssl::context make_client_tls_context(const TlsOptions& tls);

// Loads a client certificate chain and key the way make_client_tls_context
// does; empty when usable, else the reason (bad PEM, key not matching).
std::string check_client_identity(const std::string& cert_pem, const std::string& key_pem);

// Server context for our own listeners (webhook, metrics, test servers).
boost::asio::ssl::context make_server_tls_context(const std::string& cert_chain_pem, const std::string& key_pem);

// Arms per-connection verification of `name`: an IP literal is matched against
// IP SANs, anything else against DNS SANs (and sent as SNI). Returns false if
// OpenSSL refused the name.
bool set_peer_name(SSL* ssl, const std::string& name);

}  // namespace attune::http
