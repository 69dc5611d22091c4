// core::plan_aws_credentials and aws_credentials_fresh: which credentials a
// CloudWatch policy is signed with, and when temporary ones are renewed.
#include "attune/core/aws/aws_credentials.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

using namespace std::chrono_literals;

TEST(AwsCredentials, ThePlanFollowsRoleArnThenKeysThenIrsa) {
    AwsEnvironment keys;
    keys.access_key_id = "AKID";
    keys.secret_access_key = "secret";
    keys.session_token = "tok";
    AwsEnvironment irsa;
    irsa.role_arn = "arn:aws:iam::1:role/env";
    irsa.web_identity_token_file = "/var/run/token";
    AwsEnvironment both = keys;
    both.role_arn = irsa.role_arn;
    both.web_identity_token_file = irsa.web_identity_token_file;
    both.role_session_name = "mine";
    struct Case {
        const char* name;
        AwsEnvironment env;
        const char* policy_role;
        AwsCredentialKind kind;
        const char* role;
        const char* session;
    };
    const Case cases[] = {
        {"keys", keys, "", AwsCredentialKind::Keys, "", "attune-manager"},
        {"irsa", irsa, "", AwsCredentialKind::WebIdentity, "arn:aws:iam::1:role/env", "attune-manager"},
        {"keys win over the environment's role", both, "", AwsCredentialKind::Keys, "", "mine"},
        {"the policy's role with the token", irsa, "arn:aws:iam::2:role/p", AwsCredentialKind::WebIdentity,
         "arn:aws:iam::2:role/p", "attune-manager"},
        {"the policy's role wins over keys", both, "arn:aws:iam::2:role/p", AwsCredentialKind::WebIdentity,
         "arn:aws:iam::2:role/p", "mine"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        auto p = plan_aws_credentials(c.env, c.policy_role);
        ASSERT_TRUE(p) << p.error().message;
        EXPECT_EQ(p.value().kind, c.kind);
        EXPECT_EQ(p.value().role_arn, c.role);
        EXPECT_EQ(p.value().session_name, c.session);
        if (c.kind == AwsCredentialKind::Keys) {
            EXPECT_EQ(p.value().keys.session_token, "tok");
            EXPECT_EQ(p.value().describe(), "access key AKID with a session token");
        } else {
            EXPECT_EQ(p.value().token_file, "/var/run/token");
        }
    }
}

TEST(AwsCredentials, MissingCredentialsSayWhatToSet) {
    AwsEnvironment half;
    half.access_key_id = "AKID";
    AwsEnvironment role_only;
    role_only.role_arn = "arn:aws:iam::1:role/env";
    struct Case {
        AwsEnvironment env;
        const char* policy_role;
        const char* says;
    };
    for (const auto& c : {Case{{}, "", "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY nor AWS_ROLE_ARN"},
                          Case{half, "", "AWS_ACCESS_KEY_ID without AWS_SECRET_ACCESS_KEY"},
                          Case{role_only, "", "nor AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE"},
                          Case{half, "arn:aws:iam::2:role/p", "roleArn is assumed with a web identity token"}}) {
        auto p = plan_aws_credentials(c.env, c.policy_role);
        ASSERT_FALSE(p);
        EXPECT_EQ(p.error().code, "no_credentials");
        EXPECT_NE(p.error().message.find(c.says), std::string::npos) << p.error().message;
    }
}

TEST(AwsCredentials, TemporaryCredentialsAreRenewedFiveMinutesBeforeTheyExpire) {
    const auto now = std::chrono::system_clock::time_point(1'700'000'000s);
    AwsCredentials c{"AKID", "s", "t", now + 10min};
    EXPECT_TRUE(aws_credentials_fresh(c, now));
    EXPECT_TRUE(aws_credentials_fresh(c, now + 4min));
    EXPECT_FALSE(aws_credentials_fresh(c, now + 5min));
    EXPECT_FALSE(aws_credentials_fresh(c, now + 11min));
    c.expiration = {};
    EXPECT_TRUE(aws_credentials_fresh(c, now + 1000h)) << "long-term keys do not expire";
    EXPECT_FALSE(aws_credentials_fresh(AwsCredentials{}, now)) << "none yet";
}

}  // namespace
}  // namespace attune::core
