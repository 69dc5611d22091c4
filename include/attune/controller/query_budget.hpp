#pragma once
// One metrics API client's request budget and hold-off, and the cache of
// such clients, shared by the Datadog and CloudWatch sources: a token bucket that spaces the
// queries (a query that would wait longer than it may is refused, without
// reserving, so it does not push the others back), and a hold after the
// service said "slow down" or did not answer, during which nothing is sent.
#include <attune/kube/token_bucket.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace attune::controller {

class QueryBudget {
public:
    using Clock = std::chrono::steady_clock;
    // `what` names the budget in refusals: "the Datadog request budget of this API key".
    QueryBudget(double qps, int burst, Clock::time_point now, std::string what);

    // Zero: send now. A wait: send after that long (a token is reserved for
    // it). nullopt: do not send; `why` says why.
    struct Admission {
        std::optional<std::chrono::nanoseconds> wait;
        std::string why;
    };
    Admission admit(Clock::time_point now, std::chrono::nanoseconds max_wait);

    // Nothing is admitted until `until`; refusals say `why` and the time left.
    void hold(Clock::time_point until, std::string why);
    void release() { held_until_ = {}; }

private:
    kube::TokenBucket bucket_;
    std::string what_;
    Clock::time_point held_until_{};
    std::string failure_;
};

// The metrics API clients of one kind (Datadog's, CloudWatch's), each with
// its QueryBudget, by an identity the cache's owner chooses: created on
// first use, dropped once unused for `idle_ttl`, the least recently used
// one dropped past `max_clients`.
template <class Client>
class BudgetedClients {
public:
    using Clock = QueryBudget::Clock;
    BudgetedClients(std::size_t max_clients, std::chrono::seconds idle_ttl)
        : max_(std::max<std::size_t>(max_clients, 1)), idle_ttl_(idle_ttl) {}

    // The client of `id`, marked used; null when there is none (idle ones are dropped first).
    std::shared_ptr<Client> find(const std::string& id, Clock::time_point now) {
        std::erase_if(entries_, [&](const auto& e) { return now - e.second.used > idle_ttl_; });
        auto it = entries_.find(id);
        if (it == entries_.end()) return nullptr;
        it->second.used = now;
        return it->second.client;
    }
    void add(const std::string& id, std::shared_ptr<Client> client, QueryBudget budget, Clock::time_point now) {
        if (entries_.size() >= max_) {
            auto lru = std::min_element(entries_.begin(), entries_.end(),
                                        [](const auto& a, const auto& b) { return a.second.used < b.second.used; });
            entries_.erase(lru);
        }
        entries_.insert_or_assign(id, Entry{std::move(client), std::move(budget), now});
    }
    // The client's budget; null once it was dropped from the cache (nothing holds it back then).
    QueryBudget* budget(const std::shared_ptr<Client>& client) {
        for (auto& [id, e] : entries_)
            if (e.client == client) return &e.budget;
        return nullptr;
    }
    QueryBudget::Admission admit(const std::shared_ptr<Client>& client, Clock::time_point now,
                                 std::chrono::nanoseconds max_wait) {
        auto* b = budget(client);
        if (!b) return {std::chrono::nanoseconds(0), ""};
        return b->admit(now, max_wait);
    }
    void hold(const std::shared_ptr<Client>& client, Clock::time_point until, std::string why) {
        if (auto* b = budget(client)) b->hold(until, std::move(why));
    }
    void release(const std::shared_ptr<Client>& client) {
        if (auto* b = budget(client)) b->release();
    }
    // Shuts every client down and forgets them.
    void shutdown() noexcept {
        for (auto& [id, e] : entries_) e.client->shutdown();
        entries_.clear();
    }
    std::size_t size() const noexcept { return entries_.size(); }

private:
    struct Entry {
        std::shared_ptr<Client> client;
        QueryBudget budget;
        Clock::time_point used;
    };
    std::size_t max_;
    std::chrono::seconds idle_ttl_;
    std::map<std::string, Entry> entries_;
};

}  // namespace attune::controller
