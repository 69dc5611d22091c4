// The exec credential plugin decisions, table by table: the kubeconfig's
// exec config, interactive mode, the plugin's environment and
// KUBERNETES_EXEC_INFO, the ExecCredential it prints, expiry, and the error
// for a failed run. Pure: no process is started here (exec_plugin_test.cpp
// runs real plugins).
#include <attune/kube/exec_credential.hpp>

#include <boost/json.hpp>

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
namespace json = boost::json;
using Sys = std::chrono::system_clock;

// 2026-12-01T10:00:00Z
const Sys::time_point kNow = Sys::time_point(std::chrono::seconds(1796119200));

const std::string kCert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
// A PEM-shaped filler, not a key: the label is assembled so no key marker is
// spelled in the tree (keys are generated at run time, test_certs.cpp).
const std::string kKeyLabel = std::string("EC PRIV") + "ATE KEY";
const std::string kKey = "-----BEGIN " + kKeyLabel + "-----\nMHc\n-----END " + kKeyLabel + "-----\n";

ExecConfigInput input(std::string api, std::optional<std::string> mode) {
    ExecConfigInput in;
    in.api_version = std::move(api);
    in.command = "plugin";
    in.mode = std::move(mode);
    return in;
}

TEST(ExecConfig, ApiVersionsModesAndRequiredFields) {
    struct Row {
        const char* name;
        ExecConfigInput in;
        const char* error;  // substring; null: accepted
        InteractiveMode mode;
    };
    auto with = [](ExecConfigInput in, auto f) {
        f(in);
        return in;
    };
    const std::vector<Row> rows = {
        {"v1 Never", input("client.authentication.k8s.io/v1", "Never"), nullptr, InteractiveMode::Never},
        {"v1 IfAvailable", input("client.authentication.k8s.io/v1", "IfAvailable"), nullptr,
         InteractiveMode::IfAvailable},
        {"v1 Always", input("client.authentication.k8s.io/v1", "Always"), nullptr, InteractiveMode::Always},
        {"v1 requires interactiveMode",
         input("client.authentication.k8s.io/v1", std::nullopt),
         "interactiveMode must be set for client.authentication.k8s.io/v1",
         {}},
        {"v1 empty interactiveMode is unset",
         input("client.authentication.k8s.io/v1", ""),
         "interactiveMode must be set",
         {}},
        {"v1beta1 defaults to IfAvailable", input("client.authentication.k8s.io/v1beta1", std::nullopt), nullptr,
         InteractiveMode::IfAvailable},
        {"v1beta1 Never", input("client.authentication.k8s.io/v1beta1", "Never"), nullptr, InteractiveMode::Never},
        {"v1alpha1 refused",
         input("client.authentication.k8s.io/v1alpha1", "Never"),
         "apiVersion 'client.authentication.k8s.io/v1alpha1' is not supported",
         {}},
        {"other group refused", input("example.com/v1", "Never"), "is not supported", {}},
        {"no apiVersion", input("", "Never"), "apiVersion must be set", {}},
        {"unknown mode",
         input("client.authentication.k8s.io/v1", "Sometimes"),
         "interactiveMode 'Sometimes' is not one of Never, IfAvailable, Always",
         {}},
        {"no command",
         with(input("client.authentication.k8s.io/v1", "Never"), [](auto& i) { i.command.clear(); }),
         "command must be set",
         {}},
        {"env without name",
         with(input("client.authentication.k8s.io/v1", "Never"),
              [](auto& i) {
                  i.env = {{"A", "1"}, {"", "x"}};
              }),
         "env[1] has no name",
         {}},
        {"env name with =",
         with(input("client.authentication.k8s.io/v1", "Never"),
              [](auto& i) {
                  i.env = {{"A=B", "1"}};
              }),
         "contains '='",
         {}},
    };
    for (const auto& r : rows) {
        auto got = check_exec_config(r.in);
        if (!r.error) {
            ASSERT_TRUE(got.ok()) << r.name << ": " << got.error().message;
            EXPECT_EQ(got.value().mode, r.mode) << r.name;
            EXPECT_EQ(got.value().api_version, r.in.api_version) << r.name;
        } else {
            ASSERT_FALSE(got.ok()) << r.name;
            EXPECT_EQ(got.error().code, "invalid_exec_config") << r.name;
            EXPECT_NE(got.error().message.find(r.error), std::string::npos) << r.name << ": " << got.error().message;
        }
    }
}

TEST(ExecConfig, FieldsPassThrough) {
    auto in = input("client.authentication.k8s.io/v1", "Never");
    in.args = {"token", "--cluster", "c"};
    in.env = {{"A", "1"}};
    in.install_hint = "apt install plugin";
    in.provide_cluster_info = true;
    auto got = check_exec_config(in);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got.value().args, in.args);
    ASSERT_EQ(got.value().env.size(), 1u);
    EXPECT_EQ(got.value().env[0].value, "1");
    EXPECT_EQ(got.value().install_hint, "apt install plugin");
    EXPECT_TRUE(got.value().provide_cluster_info);
}

TEST(ExecConfig, CommandPathsResolveLikeClientcmd) {
    struct Row {
        const char* command;
        const char* dir;
        const char* want;
    };
    const Row rows[] = {
        {"aws", "/home/u/.kube", "aws"},  // bare name: $PATH at run time
        {"./bin/plugin", "/home/u/.kube", "/home/u/.kube/bin/plugin"},
        {"bin/plugin", "/home/u/.kube", "/home/u/.kube/bin/plugin"},
        {"../tools/plugin", "/home/u/.kube", "/home/u/tools/plugin"},
        {"/usr/local/bin/plugin", "/home/u/.kube", "/usr/local/bin/plugin"},
    };
    for (const auto& r : rows) EXPECT_EQ(resolve_exec_command(r.command, r.dir), r.want) << r.command;
}

TEST(ExecInteractive, ModeAgainstTerminal) {
    struct Row {
        InteractiveMode mode;
        bool terminal, unavailable;
        std::optional<bool> want;  // nullopt: an error
        const char* error;
    };
    const Row rows[] = {
        {InteractiveMode::Never, false, false, false, nullptr},
        {InteractiveMode::Never, true, false, false, nullptr},
        {InteractiveMode::IfAvailable, false, false, false, nullptr},
        {InteractiveMode::IfAvailable, true, false, true, nullptr},
        {InteractiveMode::IfAvailable, true, true, false, nullptr},
        {InteractiveMode::Always, true, false, true, nullptr},
        {InteractiveMode::Always, false, false, std::nullopt, "standard input is not a terminal"},
        {InteractiveMode::Always, true, true, std::nullopt,
         "standard input is unavailable: the manager runs unattended"},
    };
    for (const auto& r : rows) {
        auto got = decide_interactive(r.mode, r.terminal, r.unavailable, "the manager runs unattended");
        if (r.want) {
            ASSERT_TRUE(got.ok()) << static_cast<int>(r.mode);
            EXPECT_EQ(got.value(), *r.want) << static_cast<int>(r.mode) << r.terminal << r.unavailable;
        } else {
            ASSERT_FALSE(got.ok());
            EXPECT_EQ(got.error().code, "exec_interactive");
            EXPECT_NE(got.error().message.find(r.error), std::string::npos) << got.error().message;
        }
    }
}

TEST(ExecInfo, WithoutClusterInfo) {
    EXPECT_EQ(exec_info_json("client.authentication.k8s.io/v1", false, nullptr),
              R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false}})");
    EXPECT_EQ(exec_info_json("client.authentication.k8s.io/v1beta1", true, nullptr),
              R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","spec":{"interactive":true}})");
}

TEST(ExecInfo, ClusterFieldsAndExtensionConfig) {
    ExecClusterInfo c;
    c.server = "https://10.0.0.1:6443";
    c.tls_server_name = "kubernetes";
    c.certificate_authority_data = "-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n";
    c.proxy_url = "http://proxy:3128";
    c.config = json::parse(R"({"audience":"06e3fbd18de8","n":3})");
    const auto v = json::parse(exec_info_json("client.authentication.k8s.io/v1", false, &c));
    const auto& cl = v.at("spec").at("cluster").as_object();
    EXPECT_EQ(cl.at("server").as_string(), "https://10.0.0.1:6443");
    EXPECT_EQ(cl.at("tls-server-name").as_string(), "kubernetes");
    EXPECT_EQ(cl.at("proxy-url").as_string(), "http://proxy:3128");
    EXPECT_EQ(cl.at("certificate-authority-data").as_string(),
              "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCmNhCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K");
    EXPECT_EQ(cl.at("config").at("audience").as_string(), "06e3fbd18de8");
    EXPECT_EQ(cl.at("config").at("n").as_int64(), 3);
    EXPECT_FALSE(cl.contains("insecure-skip-tls-verify"));  // omitted when false
    EXPECT_FALSE(v.at("spec").at("interactive").as_bool());

    ExecClusterInfo bare;
    bare.server = "https://h";
    bare.insecure_skip_tls_verify = true;
    const auto b = json::parse(exec_info_json("client.authentication.k8s.io/v1", false, &bare));
    const auto& bc = b.at("spec").at("cluster").as_object();
    EXPECT_TRUE(bc.at("insecure-skip-tls-verify").as_bool());
    EXPECT_EQ(bc.size(), 2u) << json::serialize(bc);  // server + insecure only: empty fields are omitted
}

TEST(ExecEnv, InheritedPlusConfiguredThenExecInfo) {
    const std::vector<std::string> inherited = {"PATH=/bin", "HOME=/h", "KUBERNETES_EXEC_INFO=stale", "junk",
                                                "=odd", "AWS_PROFILE=dev"};
    const std::vector<ExecEnvVar> extra = {{"AWS_PROFILE", "prod"}, {"X", "1"}, {"X", "2"}, {"EMPTY", ""}};
    const auto env = build_exec_env(inherited, extra, "{}");
    const std::vector<std::string> want = {"PATH=/bin", "HOME=/h", "AWS_PROFILE=prod", "X=2", "EMPTY=",
                                           "KUBERNETES_EXEC_INFO={}"};
    EXPECT_EQ(env, want);
    EXPECT_EQ(build_exec_env({}, {}, "i"), std::vector<std::string>{"KUBERNETES_EXEC_INFO=i"});
}

std::string cred(const std::string& api, const std::string& status, const std::string& kind = "ExecCredential") {
    return R"({"apiVersion":")" + api + R"(","kind":")" + kind + R"(","spec":{"interactive":false},"status":)" + status +
           "}";
}

TEST(ExecOutput, StrictParsing) {
    const std::string v1 = "client.authentication.k8s.io/v1";
    const std::string beta = "client.authentication.k8s.io/v1beta1";
    const std::string cert_json = json::serialize(json::value(kCert));
    const std::string key_json = json::serialize(json::value(kKey));
    struct Row {
        const char* name;
        std::string output;
        std::string want_api;
        const char* error;  // null: accepted
    };
    const std::vector<Row> rows = {
        {"token", cred(v1, R"({"token":"abc"})"), v1, nullptr},
        {"token v1beta1", cred(beta, R"({"token":"abc"})"), beta, nullptr},
        {"token with expiry", cred(v1, R"({"token":"abc","expirationTimestamp":"2026-12-01T10:10:00Z"})"), v1, nullptr},
        {"fractional expiry", cred(v1, R"({"token":"abc","expirationTimestamp":"2026-12-01T11:10:00.5+01:00"})"), v1,
         nullptr},
        {"cert and key", cred(v1, R"({"clientCertificateData":)" + cert_json + R"(,"clientKeyData":)" + key_json + "}"),
         v1, nullptr},
        {"null expiry", cred(v1, R"({"token":"abc","expirationTimestamp":null})"), v1, nullptr},
        {"not JSON", "hello world", v1, "not JSON"},
        {"empty", "", v1, "it was empty"},
        {"array", "[1]", v1, "not a JSON object"},
        {"wrong kind", cred(v1, R"({"token":"abc"})", "Secret"), v1, "kind is 'Secret', want ExecCredential"},
        {"no kind", R"({"apiVersion":"client.authentication.k8s.io/v1","status":{"token":"a"}})", v1,
         "kind is missing"},
        {"v1beta1 answer to v1", cred(beta, R"({"token":"abc"})"), v1,
         "apiVersion is 'client.authentication.k8s.io/v1beta1' but the kubeconfig asks for client.authentication.k8s.io/v1"},
        {"no apiVersion", R"({"kind":"ExecCredential","status":{"token":"a"}})", v1, "apiVersion is missing"},
        {"no status", R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})", v1, "no status"},
        {"status not object", cred(v1, "\"abc\""), v1, "status must be an object"},
        {"neither", cred(v1, "{}"), v1, "neither a token nor a client certificate and key"},
        {"empty token", cred(v1, R"({"token":""})"), v1, "neither a token nor"},
        {"cert only", cred(v1, R"({"clientCertificateData":)" + cert_json + "}"), v1,
         "clientCertificateData without status.clientKeyData"},
        {"key only", cred(v1, R"({"clientKeyData":)" + key_json + "}"), v1,
         "clientKeyData without status.clientCertificateData"},
        {"cert not PEM", cred(v1, R"({"clientCertificateData":"abc","clientKeyData":)" + key_json + "}"), v1,
         "clientCertificateData is not a PEM certificate"},
        {"key not PEM", cred(v1, R"({"clientCertificateData":)" + cert_json + R"(,"clientKeyData":)" + cert_json + "}"),
         v1, "clientKeyData is not a PEM private key"},
        {"token not string", cred(v1, R"({"token":42})"), v1, "status.token must be a string"},
        {"token with newline", cred(v1, R"({"token":"a\nb"})"), v1, "line break"},
        {"unknown status field", cred(v1, R"({"token":"a","tokn":"b"})"), v1,
         "status.tokn is not a field of ExecCredentialStatus"},
        {"bad timestamp", cred(v1, R"({"token":"a","expirationTimestamp":"tomorrow"})"), v1,
         "'tomorrow' is not an RFC 3339 time"},
        {"expired", cred(v1, R"({"token":"a","expirationTimestamp":"2026-12-01T09:59:59Z"})"), v1,
         "2026-12-01T09:59:59Z has already passed"},
        {"timestamp not string", cred(v1, R"({"token":"a","expirationTimestamp":5})"), v1,
         "expirationTimestamp must be a string"},
    };
    for (const auto& r : rows) {
        auto got = parse_exec_credential(r.output, r.want_api, kNow);
        if (!r.error) {
            EXPECT_TRUE(got.ok()) << r.name << ": " << got.error().message;
        } else {
            ASSERT_FALSE(got.ok()) << r.name;
            EXPECT_EQ(got.error().code, "exec_output") << r.name;
            EXPECT_NE(got.error().message.find(r.error), std::string::npos) << r.name << ": " << got.error().message;
        }
    }
}

TEST(ExecOutput, ValuesAreKept) {
    auto t = parse_exec_credential(
        cred("client.authentication.k8s.io/v1", R"({"token":"abc","expirationTimestamp":"2026-12-01T10:10:00Z"})"),
        "client.authentication.k8s.io/v1", kNow);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t.value().token, "abc");
    ASSERT_TRUE(t.value().expiration);
    EXPECT_EQ(core::format_timestamp(*t.value().expiration), "2026-12-01T10:10:00Z");
    EXPECT_TRUE(t.value().client_certificate_pem.empty());

    auto c = parse_exec_credential(cred("client.authentication.k8s.io/v1",
                                        R"({"clientCertificateData":)" + json::serialize(json::value(kCert)) +
                                            R"(,"clientKeyData":)" + json::serialize(json::value(kKey)) + "}"),
                                   "client.authentication.k8s.io/v1", kNow);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c.value().client_certificate_pem, kCert);
    EXPECT_EQ(c.value().client_key_pem, kKey);
    EXPECT_FALSE(c.value().expiration);  // kept until a 401
}

TEST(ExecExpiry, ValidUntilTheTimestamp) {
    const auto ts = [](Sys::time_point t) { return std::chrono::time_point_cast<std::chrono::seconds>(t); };
    EXPECT_TRUE(exec_credential_valid(std::nullopt, kNow));
    EXPECT_TRUE(exec_credential_valid(ts(kNow + 1s), kNow));
    EXPECT_TRUE(exec_credential_valid(ts(kNow), kNow));
    EXPECT_FALSE(exec_credential_valid(ts(kNow), kNow + 1ms));
    EXPECT_FALSE(exec_credential_valid(ts(kNow - 60s), kNow));
}

TEST(ExecFailure, Messages) {
    ExecConfig bare;
    bare.command = "aws-iam-authenticator";
    bare.install_hint = "Install it with: apt-get install aws-iam-authenticator\n";
    ExecConfig path = bare;
    path.command = "/opt/bin/plugin";
    auto run_of = [](ExecRun::End how) {
        ExecRun r;
        r.how = how;
        r.timeout = 30s;
        r.stdout_cap = 1024;
        return r;
    };
    struct Row {
        const char* name;
        ExecConfig cfg;
        ExecRun run;
        std::vector<std::string> has;
        std::vector<std::string> lacks;
    };
    ExecRun enoent = run_of(ExecRun::End::NotStarted);
    enoent.spawn_errno = ENOENT;
    ExecRun eacces = enoent;
    eacces.spawn_errno = EACCES;
    ExecRun emfile = enoent;
    emfile.spawn_errno = EMFILE;
    ExecRun exit3 = run_of(ExecRun::End::Exited);
    exit3.exit_code = 3;
    exit3.stderr_tail = "error: no SSO session\n\n";
    ExecRun exit3_truncated = exit3;
    exit3_truncated.stderr_truncated = true;
    ExecRun interactive = exit3;
    interactive.stderr_captured = false;
    ExecRun signalled = run_of(ExecRun::End::Signalled);
    signalled.signal = SIGSEGV;
    ExecRun slow = run_of(ExecRun::End::TimedOut);
    ExecRun half = run_of(ExecRun::End::TimedOut);
    half.timeout = 1500ms;
    ExecRun big = run_of(ExecRun::End::OutputTooLarge);
    const std::vector<Row> rows = {
        {"missing bare name",
         bare,
         enoent,
         {"executable aws-iam-authenticator not found in $PATH",
          "\n\nInstall it with: apt-get install aws-iam-authenticator"},
         {}},
        {"missing path", path, enoent, {"executable /opt/bin/plugin not found", "Install it with"}, {"$PATH"}},
        {"not executable", path, eacces, {"cannot be executed (permission denied)", "Install it with"}, {}},
        {"other spawn failure", path, emfile, {"could not be started"}, {"Install it with"}},
        {"exit code with stderr",
         bare,
         exit3,
         {"failed with exit code 3; stderr: error: no SSO session"},
         {"Install it with", "...", "session\n"}},
        {"stderr tail truncated", bare, exit3_truncated, {"stderr: ...error: no SSO session"}, {}},
        {"interactive stderr not captured", bare, interactive, {"exit code 3 (its stderr is above)"}, {"no SSO"}},
        {"signal", bare, signalled, {"was killed by signal 11 (SIGSEGV)"}, {}},
        {"timeout", bare, slow, {"did not finish within 30s and was killed"}, {"Install"}},
        {"fractional timeout", bare, half, {"within 1.5s"}, {}},
        {"output cap", bare, big, {"wrote more than 1024 bytes to stdout and was killed"}, {}},
    };
    for (const auto& r : rows) {
        const auto e = describe_exec_failure(r.cfg, r.run);
        EXPECT_EQ(e.code, "exec_failed") << r.name;
        for (const auto& h : r.has) EXPECT_NE(e.message.find(h), std::string::npos) << r.name << ": " << e.message;
        for (const auto& l : r.lacks) EXPECT_EQ(e.message.find(l), std::string::npos) << r.name << ": " << e.message;
    }
    ExecConfig no_hint = bare;
    no_hint.install_hint.clear();
    EXPECT_EQ(describe_exec_failure(no_hint, enoent).message, "exec plugin: executable aws-iam-authenticator not found in $PATH");
}

}  // namespace
}  // namespace attune::kube
