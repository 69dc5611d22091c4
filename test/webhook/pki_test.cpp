#include <attune/webhook/pki.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

namespace attune::webhook {
namespace {

constexpr std::int64_t kNow = 1'800'000'000;  // 2027-01-15

ServingNames names() {
    ServingNames n;
    n.dns = {"attune-webhook.attune-system.svc", "attune-webhook.attune-system.svc.cluster.local"};
    n.ips = {"127.0.0.1"};
    return n;
}

TEST(Pki, ACaSignsAServingCertificateForTheWantedNames) {
    const auto ca = generate_ca("attune-webhook-ca", kNow - 60, kNow + 3600);
    const auto srv = issue_serving_certificate(ca, names(), kNow - 60, kNow + 600);
    EXPECT_TRUE(signed_by(srv.cert_pem, ca.cert_pem));
    EXPECT_TRUE(key_matches(srv.cert_pem, srv.key_pem));
    EXPECT_TRUE(key_matches(ca.cert_pem, ca.key_pem));
    EXPECT_FALSE(key_matches(srv.cert_pem, ca.key_pem));
    EXPECT_TRUE(covers_names(srv.cert_pem, names()));
    ServingNames other;
    other.ips = {"10.0.0.1"};
    EXPECT_FALSE(covers_names(srv.cert_pem, other));
    other = {};
    other.dns = {"evil.attune-system.svc"};
    EXPECT_FALSE(covers_names(srv.cert_pem, other));
    const auto other_ca = generate_ca("attune-webhook-ca", kNow - 60, kNow + 3600);
    EXPECT_FALSE(signed_by(srv.cert_pem, other_ca.cert_pem));
}

// A namespace name may take 63 characters: <service>.<namespace>.svc then
// exceeds the 64 a CN can hold; the certificate is issued all the same and
// its SANs carry the whole names.
TEST(Pki, AServiceNameLongerThanACommonNameIsServed) {
    ServingNames n;
    const std::string ns(63, 'n');
    n.dns = {"attune-webhook." + ns + ".svc", "attune-webhook." + ns + ".svc.cluster.local"};
    const auto ca = generate_ca("attune-webhook-ca", kNow - 60, kNow + 3600);
    const auto srv = issue_serving_certificate(ca, n, kNow - 60, kNow + 600);
    EXPECT_TRUE(signed_by(srv.cert_pem, ca.cert_pem));
    EXPECT_TRUE(covers_names(srv.cert_pem, n));
}

TEST(Pki, ValidityAndFingerprintsReadBack) {
    const auto ca = generate_ca("ca", kNow - 60, kNow + 3600);
    const auto info = certificate_info(ca.cert_pem);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->not_before, kNow - 60);
    EXPECT_EQ(info->not_after, kNow + 3600);
    EXPECT_EQ(info->fingerprint.size(), 64u);
    const auto ca2 = generate_ca("ca", kNow - 60, kNow + 3600);
    EXPECT_NE(certificate_info(ca2.cert_pem)->fingerprint, info->fingerprint);
    EXPECT_FALSE(certificate_info("garbage"));
    EXPECT_FALSE(certificate_info(""));
}

TEST(Pki, BundlesSplitIntoTheirCertificates) {
    const auto a = generate_ca("a", kNow, kNow + 100);
    const auto b = generate_ca("b", kNow, kNow + 200);
    const auto parts = split_bundle(a.cert_pem + "junk\n" + b.cert_pem);
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].info.not_after, kNow + 100);
    EXPECT_EQ(parts[1].info.not_after, kNow + 200);
    EXPECT_EQ(parts[0].info.fingerprint, certificate_info(a.cert_pem)->fingerprint);
    EXPECT_TRUE(split_bundle("").empty());
}

TEST(Pki, UnusableCaMaterialIsAClearError) {
    KeyPairPem bad{"nope", "nope"};
    EXPECT_THROW(issue_serving_certificate(bad, names(), kNow, kNow + 1), std::runtime_error);
    const auto ca = generate_ca("ca", kNow, kNow + 100);
    EXPECT_THROW(issue_serving_certificate(ca, ServingNames{}, kNow, kNow + 1), std::runtime_error);
}

// The openssl CLI, an independent implementation, agrees with what we made:
// the chain verifies for the IP and the DNS name, as a TLS client checks it.
TEST(Pki, OpensslVerifiesTheChainForTheNames) {
    const auto now = static_cast<std::int64_t>(std::time(nullptr));
    const auto ca = generate_ca("attune-webhook-ca", now - 60, now + 3600);
    const auto srv = issue_serving_certificate(ca, names(), now - 60, now + 600);
    const auto dir = std::filesystem::temp_directory_path() / ("attune-pki-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "ca.pem") << ca.cert_pem;
    std::ofstream(dir / "srv.pem") << srv.cert_pem;
    const std::string base = "openssl verify -purpose sslserver -CAfile " + (dir / "ca.pem").string() + " ";
    EXPECT_EQ(std::system((base + "-verify_ip 127.0.0.1 " + (dir / "srv.pem").string() + " >/dev/null 2>&1").c_str()), 0);
    EXPECT_EQ(std::system((base + "-verify_hostname attune-webhook.attune-system.svc " + (dir / "srv.pem").string() +
                           " >/dev/null 2>&1").c_str()), 0);
    EXPECT_NE(std::system((base + "-verify_ip 10.9.9.9 " + (dir / "srv.pem").string() + " >/dev/null 2>&1").c_str()), 0);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attune::webhook
