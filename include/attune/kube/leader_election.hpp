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

struct leader_election_config {
    leader_election_config() = default;
    leader_election_config(std::string ns_, std::string name_, std::string identity_,
                           std::chrono::seconds lease = std::chrono::seconds(15),
                           std::chrono::seconds renew = std::chrono::seconds(10),
                           std::chrono::seconds retry = std::chrono::seconds(2))
        : ns(std::move(ns_)), name(std::move(name_)), identity(std::move(identity_)), lease_duration(lease),
          renew_deadline(renew), retry_period(retry) {}
    std::string ns;
    std::string name;
    std::string identity;
    std::chrono::seconds lease_duration{15};
    std::chrono::seconds renew_deadline{10};
    std::chrono::seconds retry_period{2};
};

struct lease_record {
    lease_record() = default;
    std::string holder;
    long long duration_seconds = 0;
    std::string acquire_time, renew_time;
    long long transitions = 0;
    std::string resource_version;
};

// Pure decision logic.
class lease_fsm {
public:
    using clock = std::chrono::steady_clock;
    enum class action { create, take, renew, wait };

    explicit lease_fsm(leader_election_config cfg) : cfg_(std::move(cfg)) {}

    // `observed`: the lease as just read (nullopt: it does not exist).
    action decide(const std::optional<lease_record>& observed, clock::time_point now);
    // Result of the write that followed a create/take/renew.
    void on_write(bool ok, clock::time_point now);
    // Leader while the last successful write is younger than the renew deadline.
    bool is_leader(clock::time_point now) const;
    // When leadership lapses without another renewal (nullopt: never renewed).
    std::optional<clock::time_point> valid_until() const;
    const leader_election_config& config() const noexcept { return cfg_; }

private:
    leader_election_config cfg_;
    std::optional<lease_record> last_seen_;
    clock::time_point last_seen_at_{};
    std::optional<clock::time_point> last_renew_;
};

lease_record lease_from_json(const boost::json::value& lease);

// What a writer holds: leadership, and until when it is good without a
// further renewal (the last renewal's send time + the renew deadline).
// Another manager can take the lease only lease_duration after it last saw
// our record change, which is later than valid_until.
struct fencing_token {
    fencing_token() = default;
    fencing_token(bool leader_, std::chrono::steady_clock::time_point until)
        : leader(leader_), valid_until(until) {}
    bool leader = false;
    std::chrono::steady_clock::time_point valid_until{};
};

class leader_elector {
public:
    using wall_clock = std::function<std::chrono::system_clock::time_point()>;
    using monotonic_clock = std::function<lease_fsm::clock::time_point()>;

    // `mono` replaces the steady clock (tests); the lease's own reads and
    // writes go through client::direct, outside the shared request queue,
    // the rate limiter and the retries, each step bounded by the time left
    // before the renew deadline.
    leader_elector(client& c, leader_election_config cfg, wall_clock now = nullptr, monotonic_clock mono = nullptr);

    void on_started_leading(std::function<void()> f) { started_ = std::move(f); }
    void on_stopped_leading(std::function<void()> f) { stopped_ = std::move(f); }

    // Campaigns and renews until stop(); then releases the lease if held.
    boost::asio::awaitable<void> run();
    void stop() noexcept;
    // Computed at the call from the last successful renewal, not from the
    // campaign loop: false once the renew deadline passed without one, even
    // while a renewal is still in flight. Check it before every write.
    bool is_leader() const noexcept;
    bool is_leader_at(lease_fsm::clock::time_point now) const noexcept;
    fencing_token fence() const noexcept;

    // One round: read, decide, write. Exposed for tests.
    boost::asio::awaitable<void> step();
    // Writes holderIdentity "" / leaseDurationSeconds 1 when we hold the lease.
    boost::asio::awaitable<void> release();

private:
    lease_record next_record(lease_fsm::action act, const std::optional<lease_record>& observed) const;
    boost::asio::awaitable<client::json_result> write(bool create, boost::json::value body,
                                                      std::chrono::milliseconds deadline);
    // How long the next lease call may take: what is left of the renew
    // deadline while leading, else the renew deadline; at least 100 ms.
    std::chrono::milliseconds budget(lease_fsm::clock::time_point until) const;

    client& client_;
    lease_fsm fsm_;
    wall_clock now_;
    monotonic_clock mono_;
    std::function<void()> started_, stopped_;
    bool leading_ = false;
    bool stopping_ = false;
    std::optional<lease_record> current_;
    std::shared_ptr<void> timer_;  // the run() sleep, cancelled by stop()
};

}  // namespace attune::kube
