#pragma once
// Where the CloudWatch source's AWS credentials come from
// (docs/recommender.md#cloudwatch), decided from the manager's environment
// and the policy's roleArn as plain values, and how long temporary ones are
// used. Pure: the shell reads the environment and the token file, and calls STS.
//
//  1. the policy names roleArn: that role, assumed with the web identity
//     token of AWS_WEB_IDENTITY_TOKEN_FILE (IRSA) through STS
//     AssumeRoleWithWebIdentity;
//  2. AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN
//     when set): those keys;
//  3. AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE (IRSA): that role, assumed
//     with the token as in 1.
#include <chrono>
#include <string>
#include <string_view>

#include "attune/core/aws/sigv4.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core {

struct AwsEnvironment {
    std::string access_key_id;            // AWS_ACCESS_KEY_ID
    std::string secret_access_key;        // AWS_SECRET_ACCESS_KEY
    std::string session_token;            // AWS_SESSION_TOKEN
    std::string role_arn;                 // AWS_ROLE_ARN
    std::string web_identity_token_file;  // AWS_WEB_IDENTITY_TOKEN_FILE
    std::string role_session_name;        // AWS_ROLE_SESSION_NAME
};

enum class AwsCredentialKind { Keys, WebIdentity };

struct AwsCredentialPlan {
    AwsCredentialKind kind = AwsCredentialKind::Keys;
    AwsCredentials keys;     // Keys
    std::string role_arn;    // WebIdentity
    std::string token_file;  // WebIdentity
    std::string session_name = "attune-manager";
    // For messages and the clients' cache key: never a secret.
    std::string describe() const;
    friend bool operator==(const AwsCredentialPlan&, const AwsCredentialPlan&) = default;
};

// Error "no_credentials": none of the three, only one of the two keys, or a
// roleArn without a web identity token file; the message says what to set.
Result<AwsCredentialPlan> plan_aws_credentials(const AwsEnvironment& env, std::string_view policy_role_arn);

// Temporary credentials are renewed this long before they expire, so a
// request signed with them is not refused in flight.
inline constexpr std::chrono::minutes kAwsCredentialRefreshMargin{5};
bool aws_credentials_fresh(const AwsCredentials& c, std::chrono::system_clock::time_point now);

}  // namespace attune::core
