// Real exec credential plugins (tiny shell scripts written to a temp dir):
// the process shell's bounds (hang, output cap, no zombie, io thread not
// blocked), the credential source's caching, expiry, single run and 401
// handling, and kube::Client presenting what the plugin returned (a token,
// or a client certificate that changes on refresh) against a loopback
// HTTPS server.
#include "fast_client_settings.hpp"
#include "run_coro.hpp"
#include "scripted_tls_server.hpp"
#include "test_certs.hpp"

#include <attune/kube/client.hpp>
#include <attune/kube/exec_credential_source.hpp>
#include <attune/kube/exec_process.hpp>
#include <attune/kube/kubeconfig.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace fs = std::filesystem;
namespace json = boost::json;
using Steady = std::chrono::steady_clock;
using test::pki;
using test::run_coro;
using test::ScriptedReply;
using test::ScriptedTlsServer;

struct ExecPlugin : ::testing::Test {
    asio::io_context io;
    fs::path dir;
    void SetUp() override {
        dir = fs::temp_directory_path() / ("attune-exec-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    std::string script(const std::string& name, const std::string& body) {
        const auto p = dir / name;
        test::write_file(p, "#!/bin/sh\n" + body);
        fs::permissions(p, fs::perms::owner_all);
        return p.string();
    }
    // A plugin that counts its runs in `count` and prints a v1 token
    // credential "tok-<n>" (expiring at the content of `exp` if that exists).
    std::string counting_plugin(const std::string& extra = "") {
        return script("plugin", extra + "n=$(cat '" + (dir / "count").string() + "' 2>/dev/null || echo 0)\n"
                      "n=$((n+1)); echo $n > '" + (dir / "count").string() + "'\n"
                      "exp=''; [ -f '" + (dir / "exp").string() + "' ] && exp=\",\\\"expirationTimestamp\\\":\\\"$(cat '" +
                      (dir / "exp").string() + "')\\\"\"\n"
                      "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                      "\"status\":{\"token\":\"tok-%s\"%s}}' \"$n\" \"$exp\"\n");
    }
    int count() {
        std::ifstream in(dir / "count");
        int n = 0;
        in >> n;
        return n;
    }
    ExecSpawn spawn(std::string command, std::chrono::milliseconds timeout = 5s) {
        ExecSpawn s;
        s.command = std::move(command);
        s.env = current_environment();
        s.timeout = timeout;
        return s;
    }
    static ExecConfig config(std::string command) {
        ExecConfig c;
        c.api_version = "client.authentication.k8s.io/v1";
        c.command = std::move(command);
        c.mode = InteractiveMode::Never;
        return c;
    }
    std::shared_ptr<ExecCredentialSource> source(ExecConfig c, ExecPluginOptions o = {},
                                                 ExecCredentialSource::Hooks h = {}) {
        if (!h.stdin_is_terminal) h.stdin_is_terminal = [] { return false; };
        return ExecCredentialSource::make(std::move(c), ExecClusterInfo{}, o, h);
    }
    CredentialResult get(CredentialSource& s) { return run_coro(io, s.get(io.get_executor(), Steady::now() + 30s)); }
};

// No child of this process is left unreaped (zombie) or running.
void expect_no_children() {
    int st = 0;
    EXPECT_EQ(::waitpid(-1, &st, WNOHANG), -1);
    EXPECT_EQ(errno, ECHILD);
}

TEST_F(ExecPlugin, SuccessCapturesStdoutArgsAndEnvironment) {
    auto s = spawn(script("ok", "echo \"out:$1:$2:$FOO\"; echo err >&2; exit 0\n"));
    s.args = {"a b", "c"};
    s.env.push_back("FOO=bar");
    auto r = run_coro(io, run_exec_plugin(io.get_executor(), s));
    EXPECT_EQ(r.how, ExecRun::End::Exited);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.stdout_data, "out:a b:c:bar\n");
    EXPECT_EQ(r.stderr_tail, "err\n");
    expect_no_children();
}

TEST_F(ExecPlugin, HangIsKilledAtTheBoundWithItsChildren) {
    const auto pidfile = (dir / "grandchild").string();
    auto s = spawn(script("hang", "sleep 60 & echo $! > '" + pidfile + "'\necho started >&2\nwait\n"), 400ms);
    // The io thread keeps running other work while the plugin hangs.
    int ticks = 0;
    asio::steady_timer tick(io);
    std::function<void(boost::system::error_code)> on_tick = [&](boost::system::error_code ec) {
        if (ec) return;
        ++ticks;
        tick.expires_after(20ms);
        tick.async_wait(on_tick);
    };
    tick.expires_after(20ms);
    tick.async_wait(on_tick);
    const auto t0 = Steady::now();
    auto r = run_coro(io, run_exec_plugin(io.get_executor(), s));
    tick.cancel();
    const auto took = Steady::now() - t0;
    EXPECT_EQ(r.how, ExecRun::End::TimedOut);
    EXPECT_GE(took, 400ms);
    EXPECT_LT(took, 3s);
    EXPECT_GE(ticks, 10) << "the io thread was blocked while the plugin ran";
    EXPECT_EQ(r.stderr_tail, "started\n");
    expect_no_children();
    // The plugin's own child got the SIGKILL too (its process group).
    std::ifstream in(pidfile);
    pid_t gc = 0;
    in >> gc;
    ASSERT_GT(gc, 0);
    for (int i = 0; i < 100 && ::kill(gc, 0) == 0; ++i) {
        std::ifstream stat("/proc/" + std::to_string(gc) + "/stat");
        std::string pid, comm, state;
        stat >> pid >> comm >> state;
        if (state == "Z") break;  // dead, waiting for init to reap it
        std::this_thread::sleep_for(10ms);
    }
    std::ifstream stat("/proc/" + std::to_string(gc) + "/stat");
    std::string p, comm, state;
    if (stat >> p >> comm >> state) {
        EXPECT_EQ(state, "Z") << "grandchild still running";
    }
}

TEST_F(ExecPlugin, StdoutCapKillsAFloodingPlugin) {
    auto s = spawn(script("flood", "yes credential\n"), 5s);
    s.stdout_cap = 4096;
    const auto t0 = Steady::now();
    auto r = run_coro(io, run_exec_plugin(io.get_executor(), s));
    EXPECT_EQ(r.how, ExecRun::End::OutputTooLarge);
    EXPECT_LT(Steady::now() - t0, 2s);
    EXPECT_LE(r.stdout_data.size(), 4096u);
    expect_no_children();
}

TEST_F(ExecPlugin, NonZeroExitKeepsTheStderrTail) {
    auto s = spawn(script("fail", "i=0; while [ $i -lt 300 ]; do echo \"noise $i\" >&2; i=$((i+1)); done\n"
                                  "echo 'fatal: login required' >&2; exit 7\n"));
    s.stderr_tail = 64;
    auto r = run_coro(io, run_exec_plugin(io.get_executor(), s));
    EXPECT_EQ(r.how, ExecRun::End::Exited);
    EXPECT_EQ(r.exit_code, 7);
    EXPECT_TRUE(r.stderr_truncated);
    EXPECT_LE(r.stderr_tail.size(), 64u);
    EXPECT_NE(r.stderr_tail.find("fatal: login required"), std::string::npos) << r.stderr_tail;
}

TEST_F(ExecPlugin, MissingCommandIsNotStarted) {
    auto r = run_coro(io, run_exec_plugin(io.get_executor(), spawn("attune-no-such-plugin-xyz")));
    EXPECT_EQ(r.how, ExecRun::End::NotStarted);
    EXPECT_EQ(r.spawn_errno, ENOENT);
    auto p = run_coro(io, run_exec_plugin(io.get_executor(), spawn((dir / "absent").string())));
    EXPECT_EQ(p.spawn_errno, ENOENT);
}

TEST_F(ExecPlugin, SourceReportsEachFailureClearlyAndFast) {
    struct Row {
        const char* name;
        std::string command;
        std::vector<std::string> want;
    };
    const std::vector<Row> rows = {
        {"garbage",
         script("garbage", "echo 'this is not json'\n"),
         {"exec plugin output: not JSON", "this is not json"}},
        {"wrong kind",
         script(
             "kind",
             "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"Secret\",\"status\":{\"token\":\"x\"}}'\n"),
         {"kind is 'Secret'"}},
        {"no credential",
         script(
             "empty",
             "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{}}'\n"),
         {"neither a token nor a client certificate"}},
        {"expired",
         script("expired",
                "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                "\"status\":{\"token\":\"x\",\"expirationTimestamp\":\"2001-01-01T00:00:00Z\"}}'\n"),
         {"2001-01-01T00:00:00Z has already passed"}},
        {"bad cert pair",
         script("badcert",
                "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                "\"status\":{\"clientCertificateData\":\"-----BEGIN CERTIFICATE-----\\\\nAAAA\\\\n-----END "
                "CERTIFICATE-----\\\\n\",\"clientKeyData\":\"-----BEGIN " +
                    std::string("PRIV") +
                    "ATE KEY-----\\\\nAAAA\\\\n-----END "
                    "PRIV" +
                    std::string("ATE KEY-----\\\\n\"}}'\n")),
         {"status.clientCertificateData/clientKeyData: tls: cannot load client-certificate"}},
        {"exit code",
         script("exit", "echo 'token expired, run sso login' >&2; exit 2\n"),
         {"failed with exit code 2; stderr: token expired, run sso login"}},
        {"missing",
         "attune-no-such-plugin-xyz",
         {"attune-no-such-plugin-xyz not found in $PATH", "brew install nothing"}},
        {"hang", script("slow", "sleep 30\n"), {"did not finish within 0.3s and was killed"}},
    };
    for (const auto& r : rows) {
        auto c = config(r.command);
        c.install_hint = "brew install nothing";
        ExecPluginOptions o;
        o.timeout = 300ms;
        auto src = source(c, o);
        const auto t0 = Steady::now();
        auto got = get(*src);
        EXPECT_LT(Steady::now() - t0, 3s) << r.name;
        ASSERT_FALSE(got.value) << r.name;
        for (const auto& w : r.want) EXPECT_NE(got.error.find(w), std::string::npos) << r.name << ": " << got.error;
        if (std::string(r.name) != "missing") {
            EXPECT_EQ(got.error.find("brew install"), std::string::npos) << r.name << ": hint only when missing";
        }
    }
    expect_no_children();
}

TEST_F(ExecPlugin, AlwaysWithoutTerminalIsAnErrorAndNothingRuns) {
    auto c = config(counting_plugin());
    c.mode = InteractiveMode::Always;
    auto src = source(c);
    auto got = get(*src);
    ASSERT_FALSE(got.value);
    EXPECT_NE(got.error.find("standard input is not a terminal"), std::string::npos) << got.error;
    EXPECT_EQ(count(), 0);
}

TEST_F(ExecPlugin, ExecInfoAndConfiguredEnvReachThePlugin) {
    const auto seen = (dir / "seen").string();
    auto c = config(script("env", "printf '%s\\n%s\\n' \"$KUBERNETES_EXEC_INFO\" \"$REGION\" > '" + seen + "'\n" +
                                      "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t\"}}'\n"));
    c.env = {{"REGION", "eu-west-1"}};
    c.provide_cluster_info = true;
    ExecClusterInfo cl;
    cl.server = "https://127.0.0.1:6443";
    cl.certificate_authority_data = "CA";
    cl.config = json::parse(R"({"audience":"a1"})");
    ExecCredentialSource::Hooks h;
    h.stdin_is_terminal = [] { return true; };  // IfAvailable with a terminal would be interactive
    auto src = ExecCredentialSource::make(c, cl, ExecPluginOptions{}, h);
    ASSERT_TRUE(get(*src).value);
    std::ifstream in(seen);
    std::string info, region;
    std::getline(in, info);
    std::getline(in, region);
    EXPECT_EQ(region, "eu-west-1");
    auto v = json::parse(info);
    EXPECT_EQ(v.at("apiVersion").as_string(), "client.authentication.k8s.io/v1");
    EXPECT_EQ(v.at("kind").as_string(), "ExecCredential");
    EXPECT_FALSE(v.at("spec").at("interactive").as_bool());  // Never
    EXPECT_EQ(v.at("spec").at("cluster").at("server").as_string(), "https://127.0.0.1:6443");
    EXPECT_EQ(v.at("spec").at("cluster").at("certificate-authority-data").as_string(), "Q0E=");
    EXPECT_EQ(v.at("spec").at("cluster").at("config").at("audience").as_string(), "a1");
}

TEST_F(ExecPlugin, CachedUntilExpiryThenRunAgain) {
    auto wall = std::make_shared<std::chrono::system_clock::time_point>(std::chrono::sys_days{std::chrono::year{2029} / 1 / 1});
    ExecCredentialSource::Hooks h;
    h.wall_clock = [wall] { return *wall; };
    test::write_file(dir / "exp", "2030-01-01T00:00:00Z");
    auto src = source(config(counting_plugin()), {}, h);
    auto a = get(*src);
    ASSERT_TRUE(a.value) << a.error;
    EXPECT_EQ(a.value->token, "tok-1");
    auto b = get(*src);
    EXPECT_EQ(b.value->token, "tok-1");
    EXPECT_EQ(b.value->generation, a.value->generation);
    EXPECT_EQ(count(), 1);
    // Past its expirationTimestamp: the plugin runs again.
    *wall = std::chrono::sys_days{std::chrono::year{2030} / 6 / 1};
    test::write_file(dir / "exp", "2031-01-01T00:00:00Z");
    auto c = get(*src);
    ASSERT_TRUE(c.value) << c.error;
    EXPECT_EQ(c.value->token, "tok-2");
    EXPECT_NE(c.value->generation, a.value->generation);
    EXPECT_EQ(count(), 2);
    EXPECT_EQ(src->runs(), 2u);
}

TEST_F(ExecPlugin, WithoutExpiryKeptUntilRefused) {
    auto src = source(config(counting_plugin()));
    auto a = get(*src);
    ASSERT_TRUE(a.value) << a.error;
    for (int i = 0; i < 3; ++i) EXPECT_EQ(get(*src).value->token, "tok-1");
    EXPECT_TRUE(src->refused(a.value->generation));
    auto b = get(*src);
    EXPECT_EQ(b.value->token, "tok-2");
    // A late 401 for the old generation does not throw away the new one.
    EXPECT_TRUE(src->refused(a.value->generation));
    EXPECT_EQ(get(*src).value->token, "tok-2");
    EXPECT_EQ(count(), 2);
}

TEST_F(ExecPlugin, ConcurrentCallersShareOneRun) {
    auto src = source(config(counting_plugin("sleep 0.3\n")));
    std::vector<std::string> tokens;
    int done = 0;
    for (int i = 0; i < 5; ++i) {
        asio::co_spawn(io, src->get(io.get_executor(), Steady::now() + 10s),
                       [&](std::exception_ptr, CredentialResult r) {
                           tokens.push_back(r.value ? r.value->token : r.error);
                           if (++done == 5) io.stop();
                       });
    }
    io.run();
    ASSERT_EQ(tokens.size(), 5u);
    for (const auto& t : tokens) EXPECT_EQ(t, "tok-1");
    EXPECT_EQ(count(), 1);
    EXPECT_EQ(src->runs(), 1u);
}

TEST_F(ExecPlugin, AWaiterGivesUpAtItsDeadlineWhileTheRunGoesOn) {
    auto src = source(config(counting_plugin("sleep 0.5\n")));
    const auto t0 = Steady::now();
    auto r = run_coro(io, src->get(io.get_executor(), Steady::now() + 100ms));
    EXPECT_LT(Steady::now() - t0, 400ms);
    ASSERT_FALSE(r.value);
    EXPECT_NE(r.error.find("still running"), std::string::npos) << r.error;
    auto later = get(*src);  // joins the same run
    ASSERT_TRUE(later.value) << later.error;
    EXPECT_EQ(later.value->token, "tok-1");
    EXPECT_EQ(count(), 1);
}

ClientSettings fast_settings() { return test::fast_client_settings(); }

const std::string kPodJson = R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns"}})";

struct ExecClient : ExecPlugin {
    ScriptedTlsServer server{io, pki().server_cert_pem, pki().server_key_pem};
    RestConfig cfg(std::shared_ptr<CredentialSource> s) {
        RestConfig c;
        c.host = "127.0.0.1";
        c.port = std::to_string(server.port());
        c.tls.ca_pem = pki().ca_pem;
        c.credentials = std::move(s);
        return c;
    }
    static bool has(const test::RecordedRequest& r, const std::string& s) {
        return r.head.find(s) != std::string::npos;
    }
};

TEST_F(ExecClient, UnauthorizedRerunsThePluginAndRetriesOnce) {
    server.script(ScriptedReply::http(200, kPodJson));
    server.script(ScriptedReply::status(401, "Unauthorized", "token revoked"));
    server.script(ScriptedReply::http(200, kPodJson));
    auto src = source(config(counting_plugin()));
    Client c(io.get_executor(), cfg(src), fast_settings());
    EXPECT_TRUE(run_coro(io, c.get(resources::pods(), "ns", "p")).ok());
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(server.requests().size(), 3u);
    EXPECT_TRUE(has(server.requests()[0], "Authorization: Bearer tok-1"));
    EXPECT_TRUE(has(server.requests()[1], "Authorization: Bearer tok-1"));
    EXPECT_TRUE(has(server.requests()[2], "Authorization: Bearer tok-2"));
    EXPECT_EQ(count(), 2);
}

TEST_F(ExecClient, ASecond401IsTheCallersError) {
    server.script(ScriptedReply::status(401, "Unauthorized", "no"));
    server.script(ScriptedReply::status(401, "Unauthorized", "still no"));
    auto src = source(config(counting_plugin()));
    Client c(io.get_executor(), cfg(src), fast_settings());
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, 401);
    EXPECT_EQ(server.requests().size(), 2u);
    EXPECT_EQ(count(), 2);
}

TEST_F(ExecClient, PluginFailureIsACredentialsErrorAndNothingIsSent) {
    auto c0 = config("attune-no-such-plugin-xyz");
    c0.install_hint = "see docs/cli.md";
    Client c(io.get_executor(), cfg(source(c0)), fast_settings());
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::Credentials);
    EXPECT_NE(r.error().describe().find("cannot obtain credentials: exec plugin: executable attune-no-such-plugin-xyz not found"),
              std::string::npos)
        << r.error().describe();
    EXPECT_NE(r.error().describe().find("see docs/cli.md"), std::string::npos);
    EXPECT_EQ(server.requests().size(), 0u);
}

TEST_F(ExecClient, WatchRetriesOnceAfter401) {
    server.script(ScriptedReply::status(401, "Unauthorized", "expired"));
    server.script(ScriptedReply::watch_stream({}));
    auto src = source(config(counting_plugin()));
    Client c(io.get_executor(), cfg(src), fast_settings());
    WatchOptions wo;
    auto r = run_coro(io, c.watch(resources::pods(), "ns", wo));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(server.requests().size(), 2u);
    EXPECT_TRUE(has(server.requests()[1], "Authorization: Bearer tok-2"));
}

// The plugin hands out a client certificate: client (CN=client) first; after
// a 401 it hands out client2, and the request is retried on a connection
// that presents the new identity.
TEST_F(ExecClient, ClientCertificateFromThePluginRotatesOnRefresh) {
    server.request_client_certificate(pki().ca_pem);
    test::write_file(dir / "c1.crt", pki().client_cert_pem);
    test::write_file(dir / "c1.key", pki().client_key_pem);
    test::write_file(dir / "c2.crt", pki().client2_cert_pem);
    test::write_file(dir / "c2.key", pki().client2_key_pem);
    const auto d = dir.string();
    const auto plugin = script("certs",
                               "n=$(cat '" + d + "/count' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '" + d + "/count'\n"
                               "python3 -c 'import json,sys; print(json.dumps({\"apiVersion\":\"client.authentication.k8s.io/v1\","
                               "\"kind\":\"ExecCredential\",\"status\":{\"clientCertificateData\":open(sys.argv[1]).read(),"
                               "\"clientKeyData\":open(sys.argv[2]).read()}}))' '" + d + "/c'$n'.crt' '" + d + "/c'$n'.key'\n");
    server.script(ScriptedReply::http(200, kPodJson));
    server.script(ScriptedReply::status(401, "Unauthorized", "certificate revoked"));
    server.script(ScriptedReply::http(200, kPodJson));
    Client c(io.get_executor(), cfg(source(config(plugin))), fast_settings());
    EXPECT_TRUE(run_coro(io, c.get(resources::pods(), "ns", "p")).ok());
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(server.requests().size(), 3u);
    EXPECT_EQ(server.requests()[0].client_cn, "client");
    EXPECT_EQ(server.requests()[1].client_cn, "client");
    EXPECT_EQ(server.requests()[2].client_cn, "client2");
    EXPECT_NE(server.requests()[2].connection, server.requests()[1].connection);  // a new handshake
    EXPECT_EQ(server.requests()[2].head.find("Authorization"), std::string::npos);  // certificate only
    EXPECT_EQ(count(), 2);
}

// From the kubeconfig: a relative command resolves against the kubeconfig's
// directory, and the cluster extension reaches the plugin.
TEST_F(ExecPlugin, KubeconfigUserWithExecRunsThePlugin) {
    fs::create_directories(dir / "bin");
    const auto seen = (dir / "seen").string();
    test::write_file(dir / "bin" / "p", "#!/bin/sh\necho \"$KUBERNETES_EXEC_INFO\" > '" + seen + "'\n"
                                        "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"kc\"}}'\n");
    fs::permissions(dir / "bin" / "p", fs::perms::owner_all);
    const std::string yaml = "current-context: c\n"
                             "clusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:6443\n"
                             "    extensions:\n    - name: client.authentication.k8s.io/exec\n"
                             "      extension:\n        audience: \"123\"\n        region: eu\n        n: 5\n"
                             "contexts:\n- name: c\n  context: {cluster: k, user: u}\n"
                             "users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
                             "      command: ./bin/p\n      provideClusterInfo: true\n";
    auto rc = resolve_kubeconfig({{dir / "config", yaml}}, "", false);
    auto* src = dynamic_cast<ExecCredentialSource*>(rc.credentials.get());
    ASSERT_NE(src, nullptr);
    EXPECT_EQ(src->config().command, (dir / "bin" / "p").string());
    EXPECT_EQ(src->config().mode, InteractiveMode::IfAvailable);
    auto got = get(*rc.credentials);
    ASSERT_TRUE(got.value) << got.error;
    EXPECT_EQ(got.value->token, "kc");
    std::ifstream in(seen);
    std::string info;
    std::getline(in, info);
    auto v = json::parse(info);
    EXPECT_EQ(v.at("apiVersion").as_string(), "client.authentication.k8s.io/v1beta1");
    const auto& cfg = v.at("spec").at("cluster").at("config");
    EXPECT_EQ(cfg.at("audience").as_string(), "123");  // quoted: stays a string
    EXPECT_EQ(cfg.at("region").as_string(), "eu");
    EXPECT_EQ(cfg.at("n").as_int64(), 5);
}

}  // namespace
}  // namespace attune::kube
