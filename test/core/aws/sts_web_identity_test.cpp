// core::sts_web_identity_body and decode_sts_credentials: the form STS
// AssumeRoleWithWebIdentity is posted, and its XML answers.
#include "attune/core/aws/sts_web_identity.hpp"

#include "attune/core/util/timestamp.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

TEST(StsWebIdentity, TheBodyEncodesEveryValue) {
    EXPECT_EQ(sts_web_identity_body("arn:aws:iam::123:role/a b", "attune-manager", "eyJ.x+y/z="),
              "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123%3Arole%2Fa%20b"
              "&RoleSessionName=attune-manager&WebIdentityToken=eyJ.x%2By%2Fz%3D");
}

TEST(StsWebIdentity, TheAnswersCredentialsAreRead) {
    const auto c =
        decode_sts_credentials(R"(<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <SubjectFromWebIdentityToken>system:serviceaccount:attune:manager</SubjectFromWebIdentityToken>
    <Credentials>
      <SessionToken>FwoG&amp;token</SessionToken>
      <SecretAccessKey>wJalr/secret</SecretAccessKey>
      <Expiration>2026-12-07T19:00:00Z</Expiration>
      <AccessKeyId>ASIATEMP</AccessKeyId>
    </Credentials>
  </AssumeRoleWithWebIdentityResult>
</AssumeRoleWithWebIdentityResponse>)");
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c.value().access_key_id, "ASIATEMP");
    EXPECT_EQ(c.value().secret_access_key, "wJalr/secret");
    EXPECT_EQ(c.value().session_token, "FwoG&token");
    EXPECT_EQ(format_timestamp(std::chrono::time_point_cast<std::chrono::seconds>(c.value().expiration)),
              "2026-12-07T19:00:00Z");
}

TEST(StsWebIdentity, ErrorsAndBrokenAnswersAreClearErrors) {
    struct Case {
        const char* xml;
        const char* code;
        const char* says;
    };
    for (const auto& c :
         {Case{"<ErrorResponse><Error><Type>Sender</Type><Code>InvalidIdentityToken</Code><Message>Token is "
               "expired</Message></Error></ErrorResponse>",
               "sts_error", "InvalidIdentityToken: Token is expired"},
          Case{"<html>gateway</html>", "invalid_response", "without <Credentials>"},
          Case{"<Credentials><AccessKeyId>A</AccessKeyId><SecretAccessKey>S</SecretAccessKey></Credentials>",
               "invalid_response", "without <SessionToken>"},
          Case{"<Credentials><AccessKeyId>A</AccessKeyId><SecretAccessKey>S</SecretAccessKey><SessionToken>T"
               "</SessionToken><Expiration>tomorrow</Expiration></Credentials>",
               "invalid_response", "<Expiration>"}}) {
        const auto r = decode_sts_credentials(c.xml);
        ASSERT_FALSE(r) << c.xml;
        EXPECT_EQ(r.error().code, c.code);
        EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
    }
}

}  // namespace
}  // namespace attune::core
