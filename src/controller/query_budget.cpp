#include <attune/controller/query_budget.hpp>

namespace attune::controller {

QueryBudget::QueryBudget(double qps, int burst, Clock::time_point now, std::string what)
    : bucket_(qps, burst, now), what_(std::move(what)) {}

QueryBudget::Admission QueryBudget::admit(Clock::time_point now, std::chrono::nanoseconds max_wait) {
    if (now < held_until_) {
        const auto left = std::chrono::ceil<std::chrono::seconds>(held_until_ - now).count();
        return {std::nullopt, failure_ + " (not asked again for " + std::to_string(left) + " s)"};
    }
    if (bucket_.qps() > 0) {
        // The wait a reservation would get, without reserving: a query that
        // will not wait must not push the others further back.
        const double missing = 1.0 - bucket_.available(now);
        const auto wait = missing <= 0
                              ? std::chrono::nanoseconds(0)
                              : std::chrono::nanoseconds(static_cast<long long>(missing / bucket_.qps() * 1e9));
        if (wait > max_wait) {
            const std::string rate =
                bucket_.qps() >= 1
                    ? std::to_string(static_cast<long long>(bucket_.qps() + 0.5)) + " a second"
                    : "one every " + std::to_string(static_cast<long long>(1.0 / bucket_.qps() + 0.5)) + " s";
            return {std::nullopt, what_ + " (" + std::to_string(bucket_.burst()) + " at once, then " + rate +
                                      ") is spent: the query waits for the next refresh"};
        }
    }
    return {bucket_.reserve(now), ""};
}

void QueryBudget::hold(Clock::time_point until, std::string why) {
    held_until_ = until;
    failure_ = std::move(why);
}

}  // namespace attune::controller
