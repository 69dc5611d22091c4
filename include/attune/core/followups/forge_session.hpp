#pragma once
// The REST calls that open or update a policy's pull request, as plain
// request values, and the decoding of each answer: a state machine the shell
// drives (start, then on_answer with each response until done or failed).
// Pure. docs/api.md#gitops-pull-requests lists the calls:
//
// GitHub (REST v3, docs.github.com/rest): list the open pull requests of the
// branch (GET /repos/R/pulls?state=open&head=OWNER:BRANCH&base=BASE); the
// branch (GET /repos/R/git/ref/heads/BRANCH), created from the base's head
// when missing (GET .../git/ref/heads/BASE, POST /repos/R/git/refs); per
// file, its content on the branch (GET /repos/R/contents/PATH?ref=BRANCH)
// and, when the edit changes it, a commit (PUT /repos/R/contents/PATH with
// the blob sha of the file it replaces); then the pull request, updated
// (PATCH /repos/R/pulls/N) or opened (POST /repos/R/pulls), and its labels
// (POST /repos/R/issues/N/labels).
//
// GitLab (REST v4, docs.gitlab.com/api): the open merge requests of the
// branch (GET /projects/P/merge_requests?state=opened&source_branch=&target_branch=);
// the branch (GET /projects/P/repository/branches/BRANCH), created from the
// base when missing (POST /projects/P/repository/branches); per file, its
// content on the branch (GET /projects/P/repository/files/PATH?ref=BRANCH);
// one commit of every changed file (POST /projects/P/repository/commits);
// then the merge request, updated (PUT /projects/P/merge_requests/IID) or
// opened (POST /projects/P/merge_requests), labels included.
//
// The token is no part of this: the shell adds it to every request.
#include <attune/core/util/result.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace attune::core {

enum class ForgeProvider { GitHub, GitLab };

struct ForgeRequest {
    std::string method;  // GET | POST | PUT | PATCH
    std::string target;  // path and query, after the apiUrl's own path
    std::string body;    // JSON; empty: none
    std::string what;    // for messages: "create the branch"
    friend bool operator==(const ForgeRequest&, const ForgeRequest&) = default;
};

// One file the branch edits: `edit` gets the file's content on the branch
// (nullopt: it does not exist yet) and returns the new content.
struct ForgeFile {
    std::string path;
    std::function<Result<std::string>(const std::optional<std::string>& current)> edit;
};

struct ForgeSessionInputs {
    ForgeProvider provider = ForgeProvider::GitHub;
    std::string repository;  // owner/name, group/project
    std::string branch, base;
    std::string title, body;
    std::vector<std::string> labels;
    std::vector<ForgeFile> files;
    // Per file: the commit message (pull_request_commit_message).
    std::function<std::string(const std::string& path)> commit_message;
};

struct ForgeDone {
    std::string url;  // the pull request's page
    std::int64_t number = 0;
    bool updated = false;                 // an open pull request took the change
    std::vector<std::string> committed;  // the files a commit changed
};

struct ForgeFailed {
    std::string message;  // which call, the status, the forge's own message
    unsigned status = 0;
};

using ForgeStep = std::variant<ForgeRequest, ForgeDone, ForgeFailed>;

class ForgeSession {
public:
    explicit ForgeSession(ForgeSessionInputs in);
    ForgeStep start();
    // The answer to the last request: its HTTP status and body.
    ForgeStep on_answer(unsigned status, std::string_view body);

private:
    enum class Phase {
        ListPulls,
        GetBranch,
        GetBase,
        CreateBranch,
        GetFile,
        PutFile,
        Commit,
        UpdatePull,
        CreatePull,
        AddLabels,
        Finished
    };
    ForgeStep fail(unsigned status, std::string_view body);
    ForgeStep fail_because(unsigned status, std::string_view why);
    ForgeStep file_step();
    ForgeStep pull_step();
    ForgeRequest request(std::string method, std::string target, std::string body, std::string what);
    std::string repo_path() const;
    bool github() const noexcept { return in_.provider == ForgeProvider::GitHub; }

    ForgeSessionInputs in_;
    Phase phase_ = Phase::ListPulls;
    ForgeRequest last_;
    std::optional<std::int64_t> existing_;  // the open pull request's number (GitLab: iid)
    std::string existing_url_;
    std::string base_sha_;
    std::size_t file_ = 0;
    std::string file_sha_;   // GitHub: the blob the PUT replaces
    std::string new_content_;
    bool file_exists_ = false;
    std::vector<std::string> actions_;  // GitLab: the commit's actions, as JSON
    ForgeDone done_;
};

// A path segment or query value with everything but RFC 3986's unreserved
// characters percent-encoded ("a/b" becomes "a%2Fb").
std::string forge_escape(std::string_view s);

}  // namespace attune::core
