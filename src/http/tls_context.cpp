#include <attune/http/tls_context.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/system/system_error.hpp>

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <stdexcept>

namespace attune::http {
namespace ssl = boost::asio::ssl;

namespace {

void apply_protocol_floor(ssl::context& ctx) {
    ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                    ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
    if (SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION) != 1) {
        throw std::runtime_error("tls: cannot set minimum protocol version TLS 1.2");
    }
}

template <class F>
void load(const char* what, F&& f) {
    try {
        f();
    } catch (const boost::system::system_error& e) {
        throw std::runtime_error(std::string("tls: cannot load ") + what + ": " + e.code().message());
    }
}

void use_client_identity(ssl::context& ctx, const std::string& cert_pem, const std::string& key_pem) {
    load("client-certificate", [&] { ctx.use_certificate_chain(boost::asio::buffer(cert_pem)); });
    load("client-key", [&] { ctx.use_private_key(boost::asio::buffer(key_pem), ssl::context::pem); });
    if (SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
        throw std::runtime_error("tls: client key does not match client certificate");
    }
}

}  // namespace

std::string check_client_identity(const std::string& cert_pem, const std::string& key_pem) {
    try {
        ssl::context ctx(ssl::context::tls_client);
        use_client_identity(ctx, cert_pem, key_pem);
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

ssl::context make_client_tls_context(const TlsOptions& tls) {
    ssl::context ctx(ssl::context::tls_client);
    apply_protocol_floor(ctx);
    if (!tls.ca_pem.empty()) {
        load("certificate-authority", [&] { ctx.add_certificate_authority(boost::asio::buffer(tls.ca_pem)); });
    } else {
        load("system trust store", [&] { ctx.set_default_verify_paths(); });
    }
    if (tls.client_cert_pem.empty() != tls.client_key_pem.empty()) {
        throw std::runtime_error("tls: client certificate and client key must be given together");
    }
    if (!tls.client_cert_pem.empty()) use_client_identity(ctx, tls.client_cert_pem, tls.client_key_pem);
    ctx.set_verify_mode(tls.insecure_skip_verify ? ssl::verify_none : ssl::verify_peer);
    return ctx;
}

ssl::context make_server_tls_context(const std::string& cert_chain_pem, const std::string& key_pem) {
    ssl::context ctx(ssl::context::tls_server);
    apply_protocol_floor(ctx);
    load("server certificate", [&] { ctx.use_certificate_chain(boost::asio::buffer(cert_chain_pem)); });
    load("server key", [&] { ctx.use_private_key(boost::asio::buffer(key_pem), ssl::context::pem); });
    return ctx;
}

bool set_peer_name(SSL* ssl, const std::string& name) {
    boost::system::error_code ec;
    boost::asio::ip::make_address(name, ec);
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    if (!ec) {
        // IP literal: match IP SANs only; SNI must not carry an IP.
        return X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str()) == 1;
    }
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    if (SSL_set1_host(ssl, name.c_str()) != 1) return false;
    return SSL_set_tlsext_host_name(ssl, name.c_str()) == 1;
}

}  // namespace attune::http
