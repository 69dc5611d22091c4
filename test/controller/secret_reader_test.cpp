// Secret reads for bearerTokenSecret / tls.caSecret against a scripted
// apiserver: the key's value decoded, clear messages for what to fix, and one
// read per TTL.
#include <attune/controller/secret_reader.hpp>

#include "../runtime/run_coro.hpp"
#include "scripted_client.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace attune::controller {
namespace {
using attune::test::ScriptedReply;

struct Fixture {
    boost::asio::io_context io;
    attune::test::ScriptedTlsServer server{io, attune::test::pki().server_cert_pem, test::pki().server_key_pem};
    std::unique_ptr<kube::Client> client = test::scripted_client(io, server);
    std::unique_ptr<SecretReader> reader = std::make_unique<SecretReader>(*client);
    // core::Result has no empty state, so the value is carried out by hand.
    core::Result<std::string> read(const char* name, const char* key) {
        std::optional<core::Result<std::string>> out;
        attune::test::run_coro(io, [&]() -> boost::asio::awaitable<void> {
            out.emplace(co_await reader->read("shop", name, key));
        }());
        return std::move(*out);
    }
};

TEST(SecretReader, ReadsTheKeyOnceAndSaysWhatIsWrong) {
    Fixture f;
    // "s3cr3t-token" in base64.
    f.server.script(ScriptedReply::http(200, R"({"kind":"Secret","data":{"token":"czNjcjN0LXRva2Vu"}})"));
    auto v = f.read("prom", "token");
    ASSERT_TRUE(v.ok()) << v.error().message;
    EXPECT_EQ(v.value(), "s3cr3t-token");
    ASSERT_EQ(f.server.requests().size(), 1u);
    EXPECT_EQ(f.server.requests()[0].target, "/api/v1/namespaces/shop/secrets/prom");
    EXPECT_TRUE(f.read("prom", "token").ok());
    EXPECT_EQ(f.server.requests().size(), 1u);  // cached

    f.server.script(ScriptedReply::http(200, R"({"kind":"Secret","data":{"other":"eA=="}})"));
    auto missing = f.read("prom", "ca.crt");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().message, "Secret shop/prom: has no key \"ca.crt\"");

    f.server.script(ScriptedReply::status(404, "NotFound", "secrets \"gone\" not found"));
    EXPECT_EQ(f.read("gone", "token").error().message, "Secret shop/gone: not found");
    f.server.script(
        ScriptedReply::status(403, "Forbidden",
                              "secrets \"locked\" is forbidden: User \"m\" cannot get resource \"secrets\""));
    auto forbidden = f.read("locked", "token");
    ASSERT_FALSE(forbidden.ok());
    EXPECT_NE(forbidden.error().message.find("components/secret-reads"), std::string::npos) << forbidden.error().message;
    EXPECT_NE(forbidden.error().message.find("secretReads.namespaces"), std::string::npos) << forbidden.error().message;
    EXPECT_NE(forbidden.error().message.find("cannot get resource \"secrets\""), std::string::npos)
        << forbidden.error().message;
    f.server.script(ScriptedReply::http(200, R"({"kind":"Secret","data":{"token":"***"}})"));
    EXPECT_NE(f.read("bad", "token").error().message.find("not valid base64"), std::string::npos);
}

}  // namespace
}  // namespace attune::controller
