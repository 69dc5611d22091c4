#pragma once
// STS AssumeRoleWithWebIdentity (docs/recommender.md#cloudwatch): the query
// protocol's form body of the call, and its XML answer read into
// credentials. The call is not signed: the web identity token is the proof.
// Pure; the shell posts the body and hands back the answer's text.
#include <string>
#include <string_view>

#include "attune/core/aws/sigv4.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core {

// "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=...&
// RoleSessionName=...&WebIdentityToken=...", each value URI-encoded.
std::string sts_web_identity_body(std::string_view role_arn, std::string_view session_name, std::string_view token);

// The <Credentials> of an AssumeRoleWithWebIdentityResponse. Errors:
// "sts_error" (an <ErrorResponse>: its Code and Message, as STS words them),
// "invalid_response" (not that shape: a missing key, token or an
// Expiration that is not RFC 3339).
Result<AwsCredentials> decode_sts_credentials(std::string_view xml);

}  // namespace attune::core
