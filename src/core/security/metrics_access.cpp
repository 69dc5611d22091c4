#include "attune/core/security/metrics_access.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>

#include "../util/json_decode.hpp"

namespace attune::core {

namespace json = boost::json;
using detail::as_object;
using detail::DecodeFailure;
using detail::field;
using detail::opt_array;
using detail::opt_bool;
using detail::opt_object;
using detail::opt_string;

namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::vector<std::string> string_list(const json::object& o, std::string_view key, const std::string& path) {
    std::vector<std::string> out;
    if (const auto* a = opt_array(o, key, path)) {
        for (const auto& v : *a) {
            if (!v.is_string()) detail::fail(path + "." + std::string(key), "expected strings");
            out.emplace_back(v.get_string());
        }
    }
    return out;
}

// The review's kind, checked so that an answer from something else (a proxy's
// error page decoded as JSON, another API) is not read as a verdict.
void expect_kind(const json::object& o, std::string_view kind) {
    const auto got = opt_string(o, "kind", "review");
    if (got != kind) detail::fail("review.kind", "expected " + std::string(kind) + ", got \"" + got + "\"");
}

}  // namespace

std::optional<std::string> bearer_token_of(std::string_view authorization) {
    while (!authorization.empty() && is_space(authorization.front())) authorization.remove_prefix(1);
    constexpr std::string_view kScheme = "bearer";
    if (authorization.size() <= kScheme.size() || !is_space(authorization[kScheme.size()])) return std::nullopt;
    const bool same = std::equal(kScheme.begin(), kScheme.end(), authorization.begin(),
                                 [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
    if (!same) return std::nullopt;
    authorization.remove_prefix(kScheme.size());
    while (!authorization.empty() && is_space(authorization.front())) authorization.remove_prefix(1);
    while (!authorization.empty() && is_space(authorization.back())) authorization.remove_suffix(1);
    // A token is one token68 (RFC 7235): a space inside means a malformed header.
    if (authorization.empty() || std::any_of(authorization.begin(), authorization.end(), is_space))
        return std::nullopt;
    return std::string(authorization);
}

json::value token_review_request(std::string_view token) {
    return json::object{{"apiVersion", "authentication.k8s.io/v1"},
                        {"kind", "TokenReview"},
                        {"spec", json::object{{"token", token}}}};
}

Result<std::optional<ReviewedUser>> decode_token_review(const json::value& review) {
    try {
        const auto& o = as_object(review, "review");
        expect_kind(o, "TokenReview");
        const auto* status = opt_object(o, "status", "review");
        if (!status || !opt_bool(*status, "authenticated", "review.status")) return std::optional<ReviewedUser>();
        const auto* user = opt_object(*status, "user", "review.status");
        if (!user) detail::fail("review.status.user", "missing for an authenticated token");
        ReviewedUser u;
        u.username = opt_string(*user, "username", "review.status.user");
        if (u.username.empty()) detail::fail("review.status.user.username", "missing for an authenticated token");
        u.uid = opt_string(*user, "uid", "review.status.user");
        u.groups = string_list(*user, "groups", "review.status.user");
        if (const auto* extra = opt_object(*user, "extra", "review.status.user"))
            for (const auto& kv : *extra) u.extra[std::string(kv.key())] = string_list(*extra, kv.key(), "review.status.user.extra");
        return std::optional<ReviewedUser>(std::move(u));
    } catch (const DecodeFailure& e) {
        return make_error("invalid_review", e.what());
    }
}

json::value access_review_request(const ReviewedUser& user, std::string_view path, std::string_view verb) {
    json::object spec{{"user", user.username},
                      {"nonResourceAttributes", json::object{{"path", path}, {"verb", verb}}}};
    if (!user.uid.empty()) spec["uid"] = user.uid;
    if (!user.groups.empty()) {
        json::array g;
        for (const auto& s : user.groups) g.emplace_back(s);
        spec["groups"] = std::move(g);
    }
    if (!user.extra.empty()) {
        json::object extra;
        for (const auto& [k, vs] : user.extra) {
            json::array a;
            for (const auto& s : vs) a.emplace_back(s);
            extra[k] = std::move(a);
        }
        spec["extra"] = std::move(extra);
    }
    return json::object{{"apiVersion", "authorization.k8s.io/v1"},
                        {"kind", "SubjectAccessReview"},
                        {"spec", std::move(spec)}};
}

Result<bool> decode_access_review(const json::value& review) {
    try {
        const auto& o = as_object(review, "review");
        expect_kind(o, "SubjectAccessReview");
        const auto* status = opt_object(o, "status", "review");
        return status && opt_bool(*status, "allowed", "review.status") &&
               !opt_bool(*status, "denied", "review.status");
    } catch (const DecodeFailure& e) {
        return make_error("invalid_review", e.what());
    }
}

unsigned http_status_of(MetricsAccess access) {
    switch (access) {
        case MetricsAccess::Allowed: return 200;
        case MetricsAccess::Unauthenticated: return 401;
        case MetricsAccess::Forbidden: return 403;
    }
    return 403;
}

std::optional<MetricsAccess> MetricsAccessCache::lookup(const std::string& token, Clock::time_point now) {
    auto it = entries_.find(token);
    if (it == entries_.end()) return std::nullopt;
    if (it->second.expires <= now) {
        entries_.erase(it);
        return std::nullopt;
    }
    return it->second.access;
}

void MetricsAccessCache::store(const std::string& token, MetricsAccess access, Clock::time_point now) {
    if (options_.capacity == 0) return;
    const auto ttl = access == MetricsAccess::Allowed ? options_.allow_ttl : options_.deny_ttl;
    if (ttl.count() <= 0) return;
    if (!entries_.count(token)) {
        for (auto it = entries_.begin(); it != entries_.end();) it = it->second.expires <= now ? entries_.erase(it) : std::next(it);
        if (entries_.size() >= options_.capacity) {
            auto first = std::min_element(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
                return a.second.expires < b.second.expires;
            });
            entries_.erase(first);
        }
    }
    entries_[token] = Entry{access, now + ttl};
}

}  // namespace attune::core
