#pragma once
// metav1.LabelSelector: matchLabels AND every matchExpression. Pure.
// An absent or empty selector selects everything; an invalid one is an
// error, and the caller selects nothing. (AttunePolicy's schema refuses an
// empty targetRef.selector, so a policy never selects everything by accident.)
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/util/result.hpp"

namespace boost::json {
class value;
}  // namespace boost::json

namespace attune::core {

using LabelMap = std::map<std::string, std::string, std::less<>>;

struct LabelRequirement {
    enum class Op { In, NotIn, Exists, DoesNotExist };
    std::string key;
    Op op = Op::Exists;
    std::vector<std::string> values;

    bool matches(const LabelMap& labels) const;
    friend bool operator==(const LabelRequirement&, const LabelRequirement&) = default;
};

struct LabelSelector {
    LabelMap match_labels;
    std::vector<LabelRequirement> expressions;

    bool matches(const LabelMap& labels) const;
    bool selects_everything() const noexcept { return match_labels.empty() && expressions.empty(); }
    friend bool operator==(const LabelSelector&, const LabelSelector&) = default;
};

// `selector` may be null (absent). Error code "invalid_selector"; messages
// start with `path` (e.g. "spec.targetRef.selector.matchExpressions[0]").
Result<LabelSelector> parse_label_selector(const boost::json::value* selector, std::string_view path = "selector");

// metadata.labels of an object (non-string values skipped).
LabelMap labels_of(const boost::json::value& obj);
// metadata.annotations, read the same way.
LabelMap annotations_of(const boost::json::value& obj);

}  // namespace attune::core
