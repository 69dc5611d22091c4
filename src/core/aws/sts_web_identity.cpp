#include "attune/core/aws/sts_web_identity.hpp"

#include <optional>

#include "attune/core/util/timestamp.hpp"

namespace attune::core {

namespace {

// The text of the first <tag>...</tag> in `xml`, entities decoded; nullopt
// when there is none. STS's answers are flat enough for this: no CDATA, no
// attributes on the elements read here.
std::optional<std::string> element(std::string_view xml, std::string_view tag) {
    const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
    const auto a = xml.find(open);
    if (a == std::string_view::npos) return std::nullopt;
    const auto from = a + open.size();
    const auto b = xml.find(close, from);
    if (b == std::string_view::npos) return std::nullopt;
    const auto raw = xml.substr(from, b - from);
    std::string out;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != '&') {
            out += raw[i];
            continue;
        }
        static constexpr std::pair<std::string_view, char> kEntities[] = {{"&amp;", '&'},
                                                                          {"&lt;", '<'},
                                                                          {"&gt;", '>'},
                                                                          {"&quot;", '"'},
                                                                          {"&apos;", '\''}};
        bool done = false;
        for (const auto& [name, c] : kEntities) {
            if (raw.substr(i, name.size()) == name) {
                out += c;
                i += name.size() - 1;
                done = true;
                break;
            }
        }
        if (!done) out += '&';
    }
    return out;
}

}  // namespace

std::string sts_web_identity_body(std::string_view role_arn, std::string_view session_name, std::string_view token) {
    return "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=" + aws_uri_encode(role_arn, false) +
           "&RoleSessionName=" + aws_uri_encode(session_name, false) +
           "&WebIdentityToken=" + aws_uri_encode(token, false);
}

Result<AwsCredentials> decode_sts_credentials(std::string_view xml) {
    if (xml.find("<ErrorResponse") != std::string_view::npos || xml.find("<Error>") != std::string_view::npos) {
        const auto code = element(xml, "Code").value_or("(no code)");
        const auto message = element(xml, "Message").value_or("(no message)");
        return make_error("sts_error", code + ": " + message);
    }
    const auto block = element(xml, "Credentials");
    if (!block) return make_error("invalid_response", "STS answered without <Credentials>");
    AwsCredentials c;
    const std::pair<const char*, std::string*> fields[] = {{"AccessKeyId", &c.access_key_id},
                                                           {"SecretAccessKey", &c.secret_access_key},
                                                           {"SessionToken", &c.session_token}};
    for (const auto& [tag, out] : fields) {
        auto v = element(*block, tag);
        if (!v || v->empty())
            return make_error("invalid_response", std::string("STS credentials without <") + tag + ">");
        *out = std::move(*v);
    }
    const auto expiration = element(*block, "Expiration");
    if (!expiration) return make_error("invalid_response", "STS credentials without <Expiration>");
    const auto t = parse_timestamp(*expiration);
    if (!t) return make_error("invalid_response", "STS credentials' <Expiration>: " + t.error().message);
    c.expiration = t.value();
    return c;
}

}  // namespace attune::core
