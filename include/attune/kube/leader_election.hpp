#pragma once
// Lease-based leader election (coordination.k8s.io/v1), client-go semantics:
// lease 15 s, renew deadline 10 s, retry 2 s; expiry judged on our own clock
// from when we last saw the record change; clean release on shutdown
// (holderIdentity "" and leaseDurationSeconds 1).
#include <attune/kube/client.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace attune::kube {

struct LeaderElectionConfig {
    LeaderElectionConfig() = default;
    LeaderElectionConfig(std::string ns, std::string name, std::string identity,
                         std::chrono::seconds lease = std::chrono::seconds(15),
                         std::chrono::seconds renew = std::chrono::seconds(10),
                         std::chrono::seconds retry = std::chrono::seconds(2))
        : ns(std::move(ns)), name(std::move(name)), identity(std::move(identity)), lease_duration(lease),
          renew_deadline(renew), retry_period(retry) {}
    std::string ns;
    std::string name;
    std::string identity;
    std::chrono::seconds lease_duration{15};
    std::chrono::seconds renew_deadline{10};
    std::chrono::seconds retry_period{2};
};

struct LeaseRecord {
    LeaseRecord() = default;
    std::string holder;
    long long duration_seconds = 0;
    std::string acquire_time, renew_time;
    long long transitions = 0;
    std::string resource_version;
};

// Pure decision logic.
class LeaseFsm {
public:
    using Clock = std::chrono::steady_clock;
    enum class Action { Create, Take, Renew, Wait };

    explicit LeaseFsm(LeaderElectionConfig cfg) : cfg_(std::move(cfg)) {}

    // `observed`: the lease as just read (nullopt: it does not exist).
    Action decide(const std::optional<LeaseRecord>& observed, Clock::time_point now);
    // Result of the write that followed a create/take/renew.
    void on_write(bool ok, Clock::time_point now);
    // Leader while the last successful write is younger than the renew deadline.
    bool is_leader(Clock::time_point now) const;
    // When leadership lapses without another renewal (nullopt: never renewed).
    std::optional<Clock::time_point> valid_until() const;
    const LeaderElectionConfig& config() const noexcept { return cfg_; }

private:
    LeaderElectionConfig cfg_;
    std::optional<LeaseRecord> last_seen_;
    Clock::time_point last_seen_at_{};
    std::optional<Clock::time_point> last_renew_;
};

LeaseRecord lease_from_json(const boost::json::value& lease);

// What a writer holds: leadership, and until when it is good without a
// further renewal (the last renewal's send time + the renew deadline).
// Another manager can take the lease only lease_duration after it last saw
// our record change, which is later than valid_until.
struct FencingToken {
    FencingToken() = default;
    FencingToken(bool leader, std::chrono::steady_clock::time_point until) : leader(leader), valid_until(until) {}
    bool leader = false;
    std::chrono::steady_clock::time_point valid_until{};
};

class LeaderElector {
public:
    using WallClock = std::function<std::chrono::system_clock::time_point()>;
    using MonotonicClock = std::function<LeaseFsm::Clock::time_point()>;

    // `mono` replaces the steady clock (tests); the lease's own reads and
    // writes go through client::direct, outside the shared request queue,
    // the rate limiter and the retries, each step bounded by the time left
    // before the renew deadline.
    LeaderElector(Client& c, LeaderElectionConfig cfg, WallClock now = nullptr, MonotonicClock mono = nullptr);

    void on_started_leading(std::function<void()> f) { started_ = std::move(f); }
    void on_stopped_leading(std::function<void()> f) { stopped_ = std::move(f); }

    // Campaigns and renews until stop(); then releases the lease if held.
    boost::asio::awaitable<void> run();
    void stop() noexcept;
    // Computed at the call from the last successful renewal, not from the
    // campaign loop: false once the renew deadline passed without one, even
    // while a renewal is still in flight. Check it before every write.
    bool is_leader() const noexcept;
    bool is_leader_at(LeaseFsm::Clock::time_point now) const noexcept;
    FencingToken fence() const noexcept;

    // One round: read, decide, write. Exposed for tests.
    boost::asio::awaitable<void> step();
    // Writes holderIdentity "" / leaseDurationSeconds 1 when we hold the lease.
    boost::asio::awaitable<void> release();

private:
    LeaseRecord next_record(LeaseFsm::Action act, const std::optional<LeaseRecord>& observed) const;
    boost::asio::awaitable<Client::JsonResult> write(bool create, boost::json::value body,
                                                     std::chrono::milliseconds deadline);
    // How long the next lease call may take: what is left of the renew
    // deadline while leading, else the renew deadline; at least 100 ms.
    std::chrono::milliseconds budget(LeaseFsm::Clock::time_point until) const;

    Client& client_;
    LeaseFsm fsm_;
    WallClock now_;
    MonotonicClock mono_;
    std::function<void()> started_, stopped_;
    bool leading_ = false;
    bool stopping_ = false;
    std::optional<LeaseRecord> current_;
    std::shared_ptr<void> timer_;  // the run() sleep, cancelled by stop()
};

}  // namespace attune::kube
