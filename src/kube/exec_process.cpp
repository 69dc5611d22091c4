#include <attune/kube/exec_process.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <memory>
#include <utility>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace attune::kube {
namespace asio = boost::asio;
using Steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::vector<std::string> current_environment() {
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e) out.emplace_back(*e);
    return out;
}

namespace {

constexpr auto kAsTuple = asio::as_tuple(asio::use_awaitable);

// Closes what it holds unless released: no path leaks a pipe end.
struct FdGuard {
    int fd = -1;
    ~FdGuard() {
        if (fd >= 0) ::close(fd);
    }
    int release() { return std::exchange(fd, -1); }
};

// What the readers and the supervising loop share.
struct RunIo {
    explicit RunIo(const asio::any_io_executor& ex) : out(ex), err(ex), wake(ex) {}
    asio::posix::stream_descriptor out, err;
    asio::steady_timer wake;  // cancelled by a reader to end the supervisor's nap early
    std::string out_data, err_tail;
    bool out_done = false, err_done = true, err_truncated = false, too_large = false;
    std::size_t out_cap = 0, tail_cap = 0;
};

asio::awaitable<void> read_stdout(std::shared_ptr<RunIo> io) {
    std::array<char, 8192> buf;
    for (;;) {
        auto [ec, n] = co_await io->out.async_read_some(asio::buffer(buf), kAsTuple);
        if (n > 0) {
            if (io->out_data.size() + n > io->out_cap) {
                io->too_large = true;
                break;
            }
            io->out_data.append(buf.data(), n);
        }
        if (ec) break;
    }
    io->out_done = true;
    io->wake.cancel();
}

asio::awaitable<void> read_stderr(std::shared_ptr<RunIo> io) {
    std::array<char, 4096> buf;
    for (;;) {
        auto [ec, n] = co_await io->err.async_read_some(asio::buffer(buf), kAsTuple);
        if (n > 0) {
            io->err_tail.append(buf.data(), n);
            if (io->err_tail.size() > 2 * io->tail_cap) {
                io->err_tail.erase(0, io->err_tail.size() - io->tail_cap);
                io->err_truncated = true;
            }
        }
        if (ec) break;
    }
    if (io->err_tail.size() > io->tail_cap) {
        io->err_tail.erase(0, io->err_tail.size() - io->tail_cap);
        io->err_truncated = true;
    }
    io->err_done = true;
    io->wake.cancel();
}

asio::awaitable<void> nap(asio::steady_timer& t, std::chrono::milliseconds d) {
    t.expires_after(d);
    co_await t.async_wait(kAsTuple);
}

// After SIGKILL the child is normally gone at once; a process stuck in the
// kernel is polled for a while and then left to a background reaper, so
// neither the caller nor the io thread waits on it.
asio::awaitable<void> reap_later(asio::any_io_executor ex, pid_t pid) {
    asio::steady_timer t(ex);
    for (int i = 0; i < 3600; ++i) {
        int st = 0;
        const pid_t w = ::waitpid(pid, &st, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR)) co_return;
        co_await nap(t, 1s);
    }
    spdlog::warn("exec plugin child did not die after SIGKILL pid={}", pid);
}

}  // namespace

asio::awaitable<ExecRun> run_exec_plugin(asio::any_io_executor ex, ExecSpawn spec) {
    ExecRun result;
    result.timeout = spec.timeout;
    result.stdout_cap = spec.stdout_cap;
    result.stderr_captured = !spec.interactive;

    int out_pipe[2], err_pipe[2] = {-1, -1};
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
        result.how = ExecRun::End::NotStarted;
        result.spawn_errno = errno;
        co_return result;
    }
    FdGuard out_r{out_pipe[0]}, out_w{out_pipe[1]}, err_r, err_w;
    if (!spec.interactive) {
        if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
            result.how = ExecRun::End::NotStarted;
            result.spawn_errno = errno;
            co_return result;
        }
        err_r.fd = err_pipe[0];
        err_w.fd = err_pipe[1];
    }

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (!spec.interactive) posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_w.fd, STDOUT_FILENO);
    if (!spec.interactive) posix_spawn_file_actions_adddup2(&fa, err_w.fd, STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    // Asio's sockets are not close-on-exec: the plugin must not inherit the
    // apiserver connections, the listeners or anything else open here.
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);  // e.g. an ignored SIGPIPE is not inherited
    if (!spec.interactive) {
        flags |= POSIX_SPAWN_SETPGROUP;
        posix_spawnattr_setpgroup(&attr, 0);
    }
    posix_spawnattr_setflags(&attr, flags);

    std::vector<char*> argv;
    argv.push_back(spec.command.data());
    for (auto& a : spec.args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& e : spec.env) envp.push_back(e.data());
    envp.push_back(nullptr);

    pid_t pid = 0;
    const int rc = ::posix_spawnp(&pid, spec.command.c_str(), &fa, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    // The child has its copies; ours must go, or EOF never comes.
    ::close(out_w.release());
    if (err_w.fd >= 0) ::close(err_w.release());
    if (rc != 0) {
        result.how = ExecRun::End::NotStarted;
        result.spawn_errno = rc;
        co_return result;
    }
    const auto started = Steady::now();
    const auto deadline = started + spec.timeout;

    auto io = std::make_shared<RunIo>(ex);
    io->out_cap = spec.stdout_cap;
    io->tail_cap = spec.stderr_tail;
    io->out.assign(out_r.release());
    asio::co_spawn(ex, read_stdout(io), asio::detached);
    if (err_r.fd >= 0) {
        io->err.assign(err_r.release());
        io->err_done = false;
        asio::co_spawn(ex, read_stderr(io), asio::detached);
    }

    // Supervise: the child's exit is polled (no SIGCHLD handler to share
    // with the rest of the process), the readers cut naps short.
    bool reaped = false, killed = false;
    int status = 0;
    Steady::time_point reaped_at{};
    auto step = 2ms;
    for (;;) {
        if (!reaped) {
            const pid_t w = ::waitpid(pid, &status, WNOHANG);
            if (w == pid) {
                reaped = true;
                reaped_at = Steady::now();
            } else if (w < 0 && errno != EINTR) {
                reaped = true;  // not ours to wait for any more (ECHILD)
                reaped_at = Steady::now();
                status = 0;
            }
        }
        const auto now = Steady::now();
        if (io->too_large) {
            result.how = ExecRun::End::OutputTooLarge;
            break;
        }
        if (reaped && io->out_done && io->err_done) break;
        // Exited, but something it started still holds the pipes: what came is what there is.
        if (reaped && now - reaped_at > 200ms) break;
        if (now >= deadline) {
            if (!reaped) result.how = ExecRun::End::TimedOut;
            break;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
        co_await nap(io->wake, std::min<std::chrono::milliseconds>(std::max(step, 1ms), std::max(left, 1ms)));
        step = std::min<std::chrono::milliseconds>(step * 2, 50ms);
    }
    if (!reaped) {
        ::kill(spec.interactive ? pid : -pid, SIGKILL);
        killed = true;
        asio::steady_timer t(ex);
        for (int i = 0; i < 100 && !reaped; ++i) {
            const pid_t w = ::waitpid(pid, &status, WNOHANG);
            if (w == pid || (w < 0 && errno != EINTR)) reaped = true;
            else co_await nap(t, 10ms);
        }
        if (!reaped) asio::co_spawn(ex, reap_later(ex, pid), asio::detached);
    }
    boost::system::error_code ignored;
    io->out.close(ignored);
    io->err.close(ignored);
    result.stdout_data = std::move(io->out_data);
    result.stderr_tail = std::move(io->err_tail);
    result.stderr_truncated = io->err_truncated;
    if (result.how == ExecRun::End::Exited) {  // not ended by us (timeout, output cap)
        if (WIFEXITED(status)) {
            result.how = ExecRun::End::Exited;
            result.exit_code = WEXITSTATUS(status);
        } else if (WIFSIGNALED(status)) {
            result.how = ExecRun::End::Signalled;
            result.signal = WTERMSIG(status);
        }
    }
    spdlog::debug("exec plugin finished command={} pid={} duration_ms={} killed={} stdout_bytes={}", spec.command, pid,
                  std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - started).count(), killed,
                  result.stdout_data.size());
    co_return result;
}

}  // namespace attune::kube
