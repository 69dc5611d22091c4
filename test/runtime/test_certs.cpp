#include "test_certs.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace attune::test {

std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_file(const std::filesystem::path& p, const std::string& content) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out) throw std::runtime_error("cannot write " + p.string());
}

namespace {

void run(const std::string& cmd) {
    if (std::system((cmd + " >/dev/null 2>&1").c_str()) != 0) throw std::runtime_error("failed: " + cmd);
}

void leaf(const std::filesystem::path& d, const std::string& name, const std::string& san, const std::string& ext_usage,
          const std::string& ca = "ca") {
    const auto p = (d / name).string();
    write_file(d / (name + ".ext"), "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n"
                                    "extendedKeyUsage=" + ext_usage + "\n" + (san.empty() ? "" : "subjectAltName=" + san + "\n"));
    run("openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + p + ".key -out " + p +
        ".csr -subj /CN=" + name);
    run("openssl x509 -req -in " + p + ".csr -CA " + (d / (ca + ".crt")).string() + " -CAkey " + (d / (ca + ".key")).string() +
        " -CAcreateserial -days 2 -out " + p + ".crt -extfile " + p + ".ext");
}

TestPki make() {
    TestPki k;
    k.dir = std::filesystem::temp_directory_path() / ("attune-runtime-pki-" + std::to_string(::getpid()));
    std::filesystem::create_directories(k.dir);
    const auto d = k.dir;
    run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=attune-test-ca "
        "-keyout " + (d / "ca.key").string() + " -out " + (d / "ca.crt").string());
    leaf(d, "server", "IP:127.0.0.1,DNS:localhost", "serverAuth");
    leaf(d, "wrongip", "IP:10.1.2.3", "serverAuth");
    leaf(d, "client", "", "clientAuth");
    run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=stranger-ca "
        "-keyout " + (d / "stranger-ca.key").string() + " -out " + (d / "stranger-ca.crt").string());
    leaf(d, "stranger", "", "clientAuth", "stranger-ca");
    leaf(d, "client2", "", "clientAuth");
    k.ca_file = d / "ca.crt";
    k.client_cert_file = d / "client.crt";
    k.client_key_file = d / "client.key";
    k.ca_pem = read_file(k.ca_file);
    k.server_cert_pem = read_file(d / "server.crt");
    k.server_key_pem = read_file(d / "server.key");
    k.wrong_ip_cert_pem = read_file(d / "wrongip.crt");
    k.wrong_ip_key_pem = read_file(d / "wrongip.key");
    k.client_cert_pem = read_file(k.client_cert_file);
    k.client_key_pem = read_file(k.client_key_file);
    k.stranger_cert_pem = read_file(d / "stranger.crt");
    k.stranger_key_pem = read_file(d / "stranger.key");
    k.client2_cert_pem = read_file(d / "client2.crt");
    k.client2_key_pem = read_file(d / "client2.key");
    return k;
}

}  // namespace

const TestPki& pki() {
    static const TestPki kPki = make();
    return kPki;
}

}  // namespace attune::test
