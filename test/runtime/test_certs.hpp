#pragma once
// Throwaway PKI for the loopback TLS tests, generated once per test process
// with the openssl CLI: a CA, a server certificate for IP 127.0.0.1 and DNS
// localhost, a server certificate for the wrong IP, a client certificate, and
// a client certificate from another CA.
#include <filesystem>
#include <string>

namespace attune::test {

struct TestPki {
    std::filesystem::path dir;
    std::string ca_pem;
    std::string server_cert_pem, server_key_pem;        // SAN: IP 127.0.0.1, DNS localhost
    std::string wrong_ip_cert_pem, wrong_ip_key_pem;    // SAN: IP 10.1.2.3 only
    std::string client_cert_pem, client_key_pem;
    std::string stranger_cert_pem, stranger_key_pem;    // clientAuth, signed by a CA of its own
    std::string client2_cert_pem, client2_key_pem;  // CN=client2: a rotated identity
    std::filesystem::path ca_file, client_cert_file, client_key_file;
};

// Generated on first use; throws if openssl fails.
const TestPki& pki();

std::string read_file(const std::filesystem::path& p);
void write_file(const std::filesystem::path& p, const std::string& content);

}  // namespace attune::test
