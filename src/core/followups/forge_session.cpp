#include "attune/core/followups/forge_session.hpp"

#include "attune/core/util/base64.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace attune::core {
namespace json = boost::json;

namespace {

bool unreserved(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_' || c == '~';
}

// Each segment escaped, the slashes kept: GitHub's ref and contents paths.
std::string escape_segments(std::string_view s) {
    std::string out;
    for (std::size_t start = 0; start <= s.size();) {
        const auto end = std::min(s.find('/', start), s.size());
        if (start > 0) out += '/';
        out += forge_escape(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

bool ok(unsigned status) { return status >= 200 && status < 300; }

std::optional<json::value> parse(std::string_view body) {
    boost::system::error_code ec;
    auto v = json::parse(body, ec);
    if (ec) return std::nullopt;
    return v;
}

std::string str(const json::value& v, std::string_view key) {
    const auto* o = v.if_object();
    const auto* f = o ? o->if_contains(key) : nullptr;
    return f && f->is_string() ? std::string(f->get_string()) : std::string();
}

std::optional<std::int64_t> num(const json::value& v, std::string_view key) {
    const auto* o = v.if_object();
    const auto* f = o ? o->if_contains(key) : nullptr;
    if (f && f->is_int64()) return f->get_int64();
    if (f && f->is_uint64()) return static_cast<std::int64_t>(f->get_uint64());
    return std::nullopt;
}

// The forge's own explanation ("message" on both, "error" on GitLab's 4xx),
// cut short: an answer is never quoted whole.
std::string forge_message(std::string_view body) {
    std::string text;
    if (auto v = parse(body)) {
        text = str(*v, "message");
        if (text.empty()) text = str(*v, "error");
        if (text.empty())
            if (const auto* o = v->if_object(); o && o->contains("message")) text = json::serialize(o->at("message"));
    }
    if (text.size() > 200) text = text.substr(0, 200) + "...";
    for (auto& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}

}  // namespace

std::string forge_escape(std::string_view s) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (char c : s) {
        if (unreserved(c)) {
            out += c;
        } else {
            const auto u = static_cast<unsigned char>(c);
            out += '%';
            out += kHex[u >> 4];
            out += kHex[u & 15];
        }
    }
    return out;
}

ForgeSession::ForgeSession(ForgeSessionInputs in) : in_(std::move(in)) {}

std::string ForgeSession::repo_path() const {
    return github() ? "/repos/" + escape_segments(in_.repository) : "/projects/" + forge_escape(in_.repository);
}

ForgeRequest ForgeSession::request(std::string method, std::string target, std::string body, std::string what) {
    last_ = ForgeRequest{std::move(method), repo_path() + target, std::move(body), std::move(what)};
    return last_;
}

ForgeStep ForgeSession::fail(unsigned status, std::string_view body) { return fail_because(status, forge_message(body)); }

ForgeStep ForgeSession::fail_because(unsigned status, std::string_view why) {
    phase_ = Phase::Finished;
    std::string msg = (github() ? "github: " : "gitlab: ") + last_.what + " (" + last_.method + " " +
                      last_.target.substr(0, last_.target.find('?')) + ") answered " + std::to_string(status);
    if (!why.empty()) msg += ": " + std::string(why);
    return ForgeFailed{std::move(msg), status};
}

ForgeStep ForgeSession::start() {
    phase_ = Phase::ListPulls;
    if (github()) {
        const auto owner = in_.repository.substr(0, in_.repository.find('/'));
        return request("GET",
                       "/pulls?state=open&head=" + forge_escape(owner + ":" + in_.branch) +
                           "&base=" + forge_escape(in_.base) + "&per_page=100",
                       "", "list the open pull requests");
    }
    return request("GET",
                   "/merge_requests?state=opened&source_branch=" + forge_escape(in_.branch) +
                       "&target_branch=" + forge_escape(in_.base),
                   "", "list the open merge requests");
}

ForgeStep ForgeSession::file_step() {
    if (file_ >= in_.files.size()) {
        if (!github() && !actions_.empty()) {
            phase_ = Phase::Commit;
            std::string actions = "[";
            for (std::size_t i = 0; i < actions_.size(); ++i) actions += (i ? "," : "") + actions_[i];
            actions += "]";
            std::string paths;
            for (const auto& f : done_.committed) paths += (paths.empty() ? "" : ", ") + f;
            const json::object head{{"branch", in_.branch},
                                    {"commit_message", in_.commit_message ? in_.commit_message(paths) : paths}};
            auto body = json::serialize(head);
            body.pop_back();  // the actions are JSON already
            body += ",\"actions\":" + actions + "}";
            return request("POST", "/repository/commits", std::move(body), "commit the manifests");
        }
        return pull_step();
    }
    phase_ = Phase::GetFile;
    const auto& path = in_.files[file_].path;
    if (github())
        return request("GET", "/contents/" + escape_segments(path) + "?ref=" + forge_escape(in_.branch), "",
                       "read " + path);
    return request("GET", "/repository/files/" + forge_escape(path) + "?ref=" + forge_escape(in_.branch), "",
                   "read " + path);
}

ForgeStep ForgeSession::pull_step() {
    if (existing_) {
        phase_ = Phase::UpdatePull;
        if (github())
            return request("PATCH", "/pulls/" + std::to_string(*existing_),
                           json::serialize(json::object{{"title", in_.title}, {"body", in_.body}}),
                           "update the pull request");
        std::string labels;
        for (const auto& l : in_.labels) labels += (labels.empty() ? "" : ",") + l;
        return request("PUT", "/merge_requests/" + std::to_string(*existing_),
                       json::serialize(json::object{{"title", in_.title}, {"description", in_.body}, {"labels", labels}}),
                       "update the merge request");
    }
    phase_ = Phase::CreatePull;
    if (github())
        return request("POST", "/pulls",
                       json::serialize(json::object{
                           {"title", in_.title}, {"head", in_.branch}, {"base", in_.base}, {"body", in_.body}}),
                       "open the pull request");
    std::string labels;
    for (const auto& l : in_.labels) labels += (labels.empty() ? "" : ",") + l;
    return request("POST", "/merge_requests",
                   json::serialize(json::object{{"source_branch", in_.branch},
                                                {"target_branch", in_.base},
                                                {"title", in_.title},
                                                {"description", in_.body},
                                                {"labels", labels}}),
                   "open the merge request");
}

ForgeStep ForgeSession::on_answer(unsigned status, std::string_view body) {
    switch (phase_) {
        case Phase::ListPulls: {
            if (!ok(status)) return fail(status, body);
            auto v = parse(body);
            if (!v || !v->is_array()) return fail_because(status, "the answer is not a JSON list");
            for (const auto& pr : v->get_array()) {
                // GitHub filters on head already; an older server may not.
                if (github()) {
                    const auto* head = pr.is_object() ? pr.get_object().if_contains("head") : nullptr;
                    if (head && !str(*head, "ref").empty() && str(*head, "ref") != in_.branch) continue;
                }
                existing_ = num(pr, github() ? "number" : "iid");
                existing_url_ = str(pr, github() ? "html_url" : "web_url");
                if (existing_) break;
            }
            phase_ = Phase::GetBranch;
            if (github())
                return request("GET", "/git/ref/" + escape_segments("heads/" + in_.branch), "", "read the branch");
            return request("GET", "/repository/branches/" + forge_escape(in_.branch), "", "read the branch");
        }
        case Phase::GetBranch:
            if (ok(status)) return file_step();
            if (status != 404) return fail(status, body);
            if (github()) {
                phase_ = Phase::GetBase;
                return request("GET", "/git/ref/" + escape_segments("heads/" + in_.base), "", "read the base branch");
            }
            phase_ = Phase::CreateBranch;
            return request("POST",
                           "/repository/branches?branch=" + forge_escape(in_.branch) + "&ref=" + forge_escape(in_.base),
                           "", "create the branch");
        case Phase::GetBase: {
            if (!ok(status)) return fail(status, body);
            auto v = parse(body);
            const auto* obj = v && v->is_object() ? v->get_object().if_contains("object") : nullptr;
            base_sha_ = obj ? str(*obj, "sha") : "";
            if (base_sha_.empty()) return fail_because(status, "the answer has no object.sha");
            phase_ = Phase::CreateBranch;
            return request("POST", "/git/refs",
                           json::serialize(json::object{{"ref", "refs/heads/" + in_.branch}, {"sha", base_sha_}}),
                           "create the branch");
        }
        case Phase::CreateBranch:
            if (!ok(status)) return fail(status, body);
            return file_step();
        case Phase::GetFile: {
            const auto& f = in_.files[file_];
            std::optional<std::string> current;
            if (ok(status)) {
                auto v = parse(body);
                if (!v || !v->is_object()) return fail_because(status, "the answer is not a JSON object");
                if (github() && !str(*v, "type").empty() && str(*v, "type") != "file")
                    return fail_because(status, f.path + " is a " + str(*v, "type") + ", not a file");
                auto decoded = base64_decode(str(*v, "content"));
                if (!decoded) return fail_because(status, "the content of " + f.path + " is not base64");
                current = std::move(*decoded);
                file_sha_ = str(*v, github() ? "sha" : "blob_id");
            } else if (status != 404) {
                return fail(status, body);
            }
            file_exists_ = current.has_value();
            Result<std::string> edited = make_error("invalid_config", "no edit for " + f.path);
            if (f.edit) edited = f.edit(current);
            if (!edited) {
                phase_ = Phase::Finished;
                return ForgeFailed{f.path + ": " + edited.error().message, 0};
            }
            if (current && *current == edited.value()) {  // the repository holds these values already
                ++file_;
                return file_step();
            }
            new_content_ = std::move(edited).value();
            done_.committed.push_back(f.path);
            if (!github()) {
                actions_.push_back(json::serialize(json::object{{"action", file_exists_ ? "update" : "create"},
                                                                {"file_path", f.path},
                                                                {"content", new_content_}}));
                ++file_;
                return file_step();
            }
            phase_ = Phase::PutFile;
            json::object put{{"message", in_.commit_message ? in_.commit_message(f.path) : f.path},
                             {"content", base64_encode(new_content_)},
                             {"branch", in_.branch}};
            if (file_exists_) put["sha"] = file_sha_;
            return request("PUT", "/contents/" + escape_segments(f.path), json::serialize(put), "commit " + f.path);
        }
        case Phase::PutFile:
            if (!ok(status)) return fail(status, body);
            ++file_;
            return file_step();
        case Phase::Commit:
            if (!ok(status)) return fail(status, body);
            return pull_step();
        case Phase::UpdatePull:
        case Phase::CreatePull: {
            if (!ok(status)) return fail(status, body);
            const bool updated = phase_ == Phase::UpdatePull;
            auto v = parse(body);
            done_.updated = updated;
            done_.number = updated ? *existing_ : (v ? num(*v, github() ? "number" : "iid").value_or(0) : 0);
            done_.url = v ? str(*v, github() ? "html_url" : "web_url") : "";
            if (done_.url.empty()) done_.url = existing_url_;
            if (!updated && (done_.number == 0 || done_.url.empty()))
                return fail_because(status, "the answer names no pull request (number and page)");
            if (github() && !in_.labels.empty()) {
                phase_ = Phase::AddLabels;
                json::array labels;
                for (const auto& l : in_.labels) labels.push_back(json::value(l));
                return request("POST", "/issues/" + std::to_string(done_.number) + "/labels",
                               json::serialize(json::object{{"labels", std::move(labels)}}), "label the pull request");
            }
            phase_ = Phase::Finished;
            return done_;
        }
        case Phase::AddLabels:
            if (!ok(status)) return fail(status, body);
            phase_ = Phase::Finished;
            return done_;
        case Phase::Finished: break;
    }
    return ForgeFailed{"no request was pending", status};
}

}  // namespace attune::core
