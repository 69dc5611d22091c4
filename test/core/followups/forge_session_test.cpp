#include "attune/core/followups/forge_session.hpp"

#include "attune/core/util/base64.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace attune::core {
namespace {
namespace json = boost::json;

ForgeSessionInputs inputs(ForgeProvider p, std::vector<std::string> labels = {"attune", "rightsizing"}) {
    ForgeSessionInputs in;
    in.provider = p;
    in.repository = p == ForgeProvider::GitHub ? "org/manifests" : "group/sub/manifests";
    in.branch = "attune/recommendations-shop-web";
    in.base = "main";
    in.title = "T";
    in.body = "B";
    in.labels = std::move(labels);
    in.commit_message = [](const std::string& path) { return "commit " + path; };
    in.files.push_back({"apps/web.yaml", [](const std::optional<std::string>& current) -> Result<std::string> {
                            return current ? *current + "edited\n" : std::string("new\n");
                        }});
    return in;
}

// One exchange of the script: the request the session must make, the answer it gets.
struct Exchange {
    const char* method;
    const char* target;
    unsigned status;
    std::string answer;
};

// Drives the session through the script; returns its last step.
ForgeStep run(ForgeSession& s, const std::vector<Exchange>& script, std::vector<ForgeRequest>* seen = nullptr) {
    auto step = s.start();
    for (const auto& e : script) {
        auto* req = std::get_if<ForgeRequest>(&step);
        EXPECT_TRUE(req) << "expected " << e.method << " " << e.target;
        if (!req) return step;
        EXPECT_EQ(req->method, e.method);
        EXPECT_EQ(req->target, e.target);
        if (seen) seen->push_back(*req);
        step = s.on_answer(e.status, e.answer);
    }
    return step;
}

TEST(ForgeSession, GitHubOpensABranchCommitsTheFileOpensAndLabelsThePullRequest) {
    ForgeSession s(inputs(ForgeProvider::GitHub));
    std::vector<ForgeRequest> seen;
    auto end = run(s,
                   {
                       {"GET", "/repos/org/manifests/pulls?state=open&head=org%3Aattune%2Frecommendations-shop-web&base=main&per_page=100", 200, "[]"},
                       {"GET", "/repos/org/manifests/git/ref/heads/attune/recommendations-shop-web", 404, R"({"message":"Not Found"})"},
                       {"GET", "/repos/org/manifests/git/ref/heads/main", 200, R"({"object":{"sha":"abc"}})"},
                       {"POST", "/repos/org/manifests/git/refs", 201, "{}"},
                       {"GET", "/repos/org/manifests/contents/apps/web.yaml?ref=attune%2Frecommendations-shop-web", 404, "{}"},
                       {"PUT", "/repos/org/manifests/contents/apps/web.yaml", 201, "{}"},
                       {"POST", "/repos/org/manifests/pulls", 201, R"({"number":7,"html_url":"https://gh/org/manifests/pull/7"})"},
                       {"POST", "/repos/org/manifests/issues/7/labels", 200, "[]"},
                   },
                   &seen);
    auto* done = std::get_if<ForgeDone>(&end);
    ASSERT_TRUE(done);
    EXPECT_EQ(done->url, "https://gh/org/manifests/pull/7");
    EXPECT_EQ(done->number, 7);
    EXPECT_FALSE(done->updated);
    EXPECT_EQ(done->committed, std::vector<std::string>{"apps/web.yaml"});
    ASSERT_EQ(seen.size(), 8u);
    EXPECT_EQ(json::parse(seen[3].body), json::parse(R"({"ref":"refs/heads/attune/recommendations-shop-web","sha":"abc"})"));
    const auto put = json::parse(seen[5].body);
    EXPECT_EQ(base64_decode(put.at("content").as_string()), std::optional<std::string>("new\n"));
    EXPECT_EQ(put.at("branch"), "attune/recommendations-shop-web");
    EXPECT_EQ(put.at("message"), "commit apps/web.yaml");
    EXPECT_FALSE(put.as_object().contains("sha")) << "a new file replaces no blob";
    EXPECT_EQ(json::parse(seen[6].body),
              json::parse(R"({"title":"T","head":"attune/recommendations-shop-web","base":"main","body":"B"})"));
    EXPECT_EQ(json::parse(seen[7].body), json::parse(R"({"labels":["attune","rightsizing"]})"));
}

TEST(ForgeSession, GitHubUpdatesTheOpenPullRequestAndReplacesTheFileBlob) {
    ForgeSession s(inputs(ForgeProvider::GitHub, {}));
    std::vector<ForgeRequest> seen;
    auto end = run(s,
                   {
                       {"GET", "/repos/org/manifests/pulls?state=open&head=org%3Aattune%2Frecommendations-shop-web&base=main&per_page=100", 200,
                        R"([{"number":9,"html_url":"https://gh/pull/9","head":{"ref":"someone-else"}},)"
                        R"({"number":7,"html_url":"https://gh/pull/7","head":{"ref":"attune/recommendations-shop-web"}}])"},
                       {"GET", "/repos/org/manifests/git/ref/heads/attune/recommendations-shop-web", 200, "{}"},
                       {"GET", "/repos/org/manifests/contents/apps/web.yaml?ref=attune%2Frecommendations-shop-web", 200,
                        R"({"type":"file","sha":"blob1","content":")" + base64_encode("old\n") + "\"}"},
                       {"PUT", "/repos/org/manifests/contents/apps/web.yaml", 200, "{}"},
                       {"PATCH", "/repos/org/manifests/pulls/7", 200, R"({"number":7,"html_url":"https://gh/pull/7"})"},
                   },
                   &seen);
    auto* done = std::get_if<ForgeDone>(&end);
    ASSERT_TRUE(done);
    EXPECT_TRUE(done->updated);
    EXPECT_EQ(done->url, "https://gh/pull/7");
    const auto put = json::parse(seen[3].body);
    EXPECT_EQ(put.at("sha"), "blob1");
    EXPECT_EQ(base64_decode(put.at("content").as_string()), std::optional<std::string>("old\nedited\n"));
    EXPECT_EQ(json::parse(seen[4].body), json::parse(R"({"title":"T","body":"B"})"));
}

TEST(ForgeSession, GitLabBranchesCommitsOnceAndOpensTheMergeRequestWithLabels) {
    ForgeSession s(inputs(ForgeProvider::GitLab));
    std::vector<ForgeRequest> seen;
    auto end = run(s,
                   {
                       {"GET", "/projects/group%2Fsub%2Fmanifests/merge_requests?state=opened&source_branch=attune%2Frecommendations-shop-web&target_branch=main", 200, "[]"},
                       {"GET", "/projects/group%2Fsub%2Fmanifests/repository/branches/attune%2Frecommendations-shop-web", 404, "{}"},
                       {"POST", "/projects/group%2Fsub%2Fmanifests/repository/branches?branch=attune%2Frecommendations-shop-web&ref=main", 201, "{}"},
                       {"GET", "/projects/group%2Fsub%2Fmanifests/repository/files/apps%2Fweb.yaml?ref=attune%2Frecommendations-shop-web", 200,
                        R"({"encoding":"base64","blob_id":"b","content":")" + base64_encode("old\n") + "\"}"},
                       {"POST", "/projects/group%2Fsub%2Fmanifests/repository/commits", 201, "{}"},
                       {"POST", "/projects/group%2Fsub%2Fmanifests/merge_requests", 201, R"({"iid":3,"web_url":"https://gl/mr/3"})"},
                   },
                   &seen);
    auto* done = std::get_if<ForgeDone>(&end);
    ASSERT_TRUE(done);
    EXPECT_EQ(done->url, "https://gl/mr/3");
    EXPECT_EQ(done->number, 3);
    EXPECT_EQ(json::parse(seen[4].body),
              json::parse(R"({"branch":"attune/recommendations-shop-web","commit_message":"commit apps/web.yaml",)"
                          R"("actions":[{"action":"update","file_path":"apps/web.yaml","content":"old\nedited\n"}]})"));
    EXPECT_EQ(json::parse(seen[5].body),
              json::parse(R"({"source_branch":"attune/recommendations-shop-web","target_branch":"main","title":"T",)"
                          R"("description":"B","labels":"attune,rightsizing"})"));
}

TEST(ForgeSession, GitLabUpdatesTheOpenMergeRequestWithoutACommitWhenTheFileHoldsTheValues) {
    auto in = inputs(ForgeProvider::GitLab, {"a"});
    in.files[0].edit = [](const std::optional<std::string>& current) -> Result<std::string> { return *current; };
    ForgeSession s(std::move(in));
    std::vector<ForgeRequest> seen;
    auto end = run(s,
                   {
                       {"GET", "/projects/group%2Fsub%2Fmanifests/merge_requests?state=opened&source_branch=attune%2Frecommendations-shop-web&target_branch=main", 200,
                        R"([{"iid":3,"web_url":"https://gl/mr/3"}])"},
                       {"GET", "/projects/group%2Fsub%2Fmanifests/repository/branches/attune%2Frecommendations-shop-web", 200, "{}"},
                       {"GET", "/projects/group%2Fsub%2Fmanifests/repository/files/apps%2Fweb.yaml?ref=attune%2Frecommendations-shop-web", 200,
                        R"({"content":")" + base64_encode("same\n") + "\"}"},
                       {"PUT", "/projects/group%2Fsub%2Fmanifests/merge_requests/3", 200, R"({"iid":3,"web_url":"https://gl/mr/3"})"},
                   },
                   &seen);
    auto* done = std::get_if<ForgeDone>(&end);
    ASSERT_TRUE(done);
    EXPECT_TRUE(done->updated);
    EXPECT_TRUE(done->committed.empty());
    EXPECT_EQ(json::parse(seen[3].body), json::parse(R"({"title":"T","description":"B","labels":"a"})"));
}

TEST(ForgeSession, AnErrorAnswerEndsTheSessionNamingTheCallAndTheForgesMessage) {
    struct Case {
        const char* what;
        ForgeProvider provider;
        std::vector<Exchange> script;
        const char* want;
    } cases[] = {
        {"the list fails", ForgeProvider::GitHub,
         {{"GET", "/repos/org/manifests/pulls?state=open&head=org%3Aattune%2Frecommendations-shop-web&base=main&per_page=100", 401,
           R"({"message":"Bad credentials"})"}},
         "github: list the open pull requests (GET /repos/org/manifests/pulls) answered 401: Bad credentials"},
        {"a missing base branch", ForgeProvider::GitLab,
         {{"GET", "/projects/group%2Fsub%2Fmanifests/merge_requests?state=opened&source_branch=attune%2Frecommendations-shop-web&target_branch=main", 200, "[]"},
          {"GET", "/projects/group%2Fsub%2Fmanifests/repository/branches/attune%2Frecommendations-shop-web", 404, "{}"},
          {"POST", "/projects/group%2Fsub%2Fmanifests/repository/branches?branch=attune%2Frecommendations-shop-web&ref=main", 400,
           R"({"message":"Invalid reference name: main"})"}},
         "gitlab: create the branch (POST /projects/group%2Fsub%2Fmanifests/repository/branches) answered 400: Invalid reference name: main"},
        {"a server error without JSON", ForgeProvider::GitHub,
         {{"GET", "/repos/org/manifests/pulls?state=open&head=org%3Aattune%2Frecommendations-shop-web&base=main&per_page=100", 502,
           "<html>bad gateway</html>"}},
         "github: list the open pull requests (GET /repos/org/manifests/pulls) answered 502"},
        {"a list that is no list", ForgeProvider::GitHub,
         {{"GET", "/repos/org/manifests/pulls?state=open&head=org%3Aattune%2Frecommendations-shop-web&base=main&per_page=100", 200, "{}"}},
         "answered 200: the answer is not a JSON list"},
    };
    for (const auto& c : cases) {
        ForgeSession s(inputs(c.provider));
        auto end = run(s, c.script);
        auto* f = std::get_if<ForgeFailed>(&end);
        ASSERT_TRUE(f) << c.what;
        EXPECT_NE(f->message.find(c.want), std::string::npos) << c.what << ": " << f->message;
    }
}

TEST(ForgeSession, AFileTheEditRefusesFailsBeforeAnyCommit) {
    auto in = inputs(ForgeProvider::GitHub);
    in.files[0].edit = [](const std::optional<std::string>&) -> Result<std::string> {
        return make_error("workload_not_in_file", "no document is Deployment shop/web");
    };
    ForgeSession s(std::move(in));
    auto end = run(s, {
                          {"GET", "/repos/org/manifests/pulls?state=open&head=org%3Aattune%2Frecommendations-shop-web&base=main&per_page=100", 200, "[]"},
                          {"GET", "/repos/org/manifests/git/ref/heads/attune/recommendations-shop-web", 200, "{}"},
                          {"GET", "/repos/org/manifests/contents/apps/web.yaml?ref=attune%2Frecommendations-shop-web", 200,
                           R"({"type":"file","sha":"b","content":"eA=="})"},
                      });
    auto* f = std::get_if<ForgeFailed>(&end);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->message, "apps/web.yaml: no document is Deployment shop/web");
}

TEST(ForgeSession, EscapesEverythingButUnreservedCharacters) {
    EXPECT_EQ(forge_escape("group/project"), "group%2Fproject");
    EXPECT_EQ(forge_escape("a b:c~d_e.f-g"), "a%20b%3Ac~d_e.f-g");
}

}  // namespace
}  // namespace attune::core
