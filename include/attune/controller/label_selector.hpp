#pragma once
// metav1.LabelSelector: matchLabels AND every matchExpression. Pure.
// An absent or empty selector selects everything (as AttunePolicy documents);
// an invalid one is an error, and the caller selects nothing.
#include <attune/core/result.hpp>

#include <boost/json/value.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace attune::controller {

using label_map = std::map<std::string, std::string, std::less<>>;

struct label_requirement {
    enum class op { in, not_in, exists, does_not_exist };
    std::string key;
    op what = op::exists;
    std::vector<std::string> values;

    bool matches(const label_map& labels) const;
};

struct label_selector {
    label_map match_labels;
    std::vector<label_requirement> expressions;

    bool matches(const label_map& labels) const;
    bool selects_everything() const noexcept { return match_labels.empty() && expressions.empty(); }
};

// `selector` may be null (absent). Error code "invalid_selector".
core::result<label_selector> parse_label_selector(const boost::json::value* selector);

// metadata.labels of an object (non-string values skipped).
label_map labels_of(const boost::json::value& obj);

}  // namespace attune::controller
