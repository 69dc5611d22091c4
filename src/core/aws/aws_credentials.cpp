#include "attune/core/aws/aws_credentials.hpp"

namespace attune::core {

std::string AwsCredentialPlan::describe() const {
    if (kind == AwsCredentialKind::Keys)
        return "access key " + keys.access_key_id + (keys.session_token.empty() ? "" : " with a session token");
    return "role " + role_arn + " by web identity (" + token_file + ")";
}

Result<AwsCredentialPlan> plan_aws_credentials(const AwsEnvironment& env, std::string_view policy_role_arn) {
    AwsCredentialPlan p;
    if (!env.role_session_name.empty()) p.session_name = env.role_session_name;
    if (!policy_role_arn.empty()) {
        if (env.web_identity_token_file.empty())
            return make_error("no_credentials",
                              "spec.metricsSource.cloudwatch.roleArn is assumed with a web identity token "
                              "(AWS_WEB_IDENTITY_TOKEN_FILE, as IRSA sets it), and the manager has none");
        p.kind = AwsCredentialKind::WebIdentity;
        p.role_arn = std::string(policy_role_arn);
        p.token_file = env.web_identity_token_file;
        return p;
    }
    if (!env.access_key_id.empty() || !env.secret_access_key.empty()) {
        if (env.access_key_id.empty() || env.secret_access_key.empty())
            return make_error("no_credentials", std::string("the manager's environment has ") +
                                                    (env.access_key_id.empty() ? "AWS_SECRET_ACCESS_KEY without "
                                                                                 "AWS_ACCESS_KEY_ID"
                                                                               : "AWS_ACCESS_KEY_ID without "
                                                                                 "AWS_SECRET_ACCESS_KEY"));
        p.keys = AwsCredentials{env.access_key_id, env.secret_access_key, env.session_token, {}};
        return p;
    }
    if (!env.role_arn.empty() && !env.web_identity_token_file.empty()) {
        p.kind = AwsCredentialKind::WebIdentity;
        p.role_arn = env.role_arn;
        p.token_file = env.web_identity_token_file;
        return p;
    }
    return make_error("no_credentials",
                      "no AWS credentials: the manager's environment has neither AWS_ACCESS_KEY_ID and "
                      "AWS_SECRET_ACCESS_KEY nor AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE (IRSA)");
}

bool aws_credentials_fresh(const AwsCredentials& c, std::chrono::system_clock::time_point now) {
    if (c.access_key_id.empty()) return false;
    return c.expiration == std::chrono::system_clock::time_point{} || now + kAwsCredentialRefreshMargin < c.expiration;
}

}  // namespace attune::core
