#pragma once
// Which bearer token a Prometheus query carries (docs/security.md, "Where
// credentials go"). The manager's own token (--prometheus-bearer-token-file)
// goes only to the addresses the operator listed; a policy's Secret token
// goes only where that policy points. Pure: origins are compared as text
// after normalisation, nothing is resolved.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/util/result.hpp"

namespace attune::core {

// "scheme://host:port", lower case, a trailing dot dropped from the host, an
// IPv6 host in canonical form and brackets: the key two addresses are
// compared by. `port` must be given (the scheme's default filled in by the
// caller's URL parser); a path plays no part.
std::string normalized_origin(std::string_view scheme, std::string_view host, std::string_view port);

// normalized_origin() of an http(s) URL: the port defaults to 80 / 443; a
// path is ignored. Error "invalid_config" naming the fault (no scheme or
// host, userinfo, a bad port). Both sides of the comparison (the flag's list
// and a policy's address) go through this one reading.
Result<std::string> origin_of_url(std::string_view url);

struct PrometheusTokenRules {
    bool has_flag_token = false;                  // --prometheus-bearer-token-file is set
    std::vector<std::string> flag_token_origins;  // --prometheus-token-addresses, normalized_origin()
    bool allow_plaintext_credentials = false;     // --allow-plaintext-prometheus-credentials
};

enum class TokenSource { None, Secret, Flag };

struct TokenDecision {
    TokenSource source = TokenSource::None;
    // Why the manager's token is not sent to this origin ("" when it is, or
    // when there is none or a Secret's token replaces it): for the log and
    // for a 401/403 message.
    std::string withheld;
    // A credential that would go over plain http without the opt-in: the
    // query must not be made (code "invalid_config").
    std::optional<Error> refused;
};

// `origin`: normalized_origin() of the policy's address. `has_secret_token`:
// the policy names a bearerTokenSecret (its token always wins).
TokenDecision decide_prometheus_token(std::string_view origin, bool has_secret_token, const PrometheusTokenRules& rules);

}  // namespace attune::core
