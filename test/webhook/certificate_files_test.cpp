#include <attune/webhook/certificate_files.hpp>
#include <attune/webhook/pki.hpp>

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace attune::webhook {
namespace {

struct FilesTest : ::testing::Test {
    boost::asio::io_context io;
    http::HttpsServer server{io.get_executor(), [](const http::ServerRequest&) { return http::ServerReply(); }, {}};
    std::shared_ptr<WebhookMetrics> metrics = WebhookMetrics::standalone();
    std::filesystem::path dir = std::filesystem::temp_directory_path() / ("attune-cert-files-" + std::to_string(::getpid()));
    KeyPairPem ca = generate_ca("ca", 0, 4'000'000'000);

    FilesTest() { std::filesystem::create_directories(dir); }
    ~FilesTest() override { std::filesystem::remove_all(dir); }

    KeyPairPem write(const KeyPairPem& kp) {
        std::ofstream(dir / "tls.crt") << kp.cert_pem;
        std::ofstream(dir / "tls.key") << kp.key_pem;
        return kp;
    }
    KeyPairPem issue() {
        ServingNames n;
        n.ips = {"127.0.0.1"};
        return issue_serving_certificate(ca, n, 0, 4'000'000'000);
    }
};

TEST_F(FilesTest, ServesTheFilesAndReloadsOnlyWhenTheyChange) {
    CertificateFiles files(server, dir.string(), std::chrono::seconds(1), *metrics);
    std::string error;
    EXPECT_FALSE(files.reload(error));
    EXPECT_NE(error.find("no tls.crt and tls.key"), std::string::npos);
    write(issue());
    ASSERT_TRUE(files.reload(error)) << error;
    EXPECT_TRUE(files.loaded());
    EXPECT_TRUE(files.reload(error));
    EXPECT_EQ(server.stats().certificate_generation, 1u);  // unchanged files: no reload
    write(issue());
    ASSERT_TRUE(files.reload(error));
    EXPECT_EQ(server.stats().certificate_generation, 2u);
}

TEST_F(FilesTest, AHalfWrittenRenewalKeepsTheOldCertificate) {
    CertificateFiles files(server, dir.string(), std::chrono::seconds(1), *metrics);
    const auto first = write(issue());
    std::string error;
    ASSERT_TRUE(files.reload(error));
    std::ofstream(dir / "tls.crt") << issue().cert_pem;  // the key is still the old one
    EXPECT_FALSE(files.reload(error));
    EXPECT_NE(error.find("does not match"), std::string::npos) << error;
    EXPECT_EQ(server.stats().certificate_generation, 1u);
}

}  // namespace
}  // namespace attune::webhook
