#include "attune/core/policy/resource_tuning.hpp"

namespace attune::core {

ResourceTuning builtin_tuning(ResourceKind kind) {
    ResourceTuning t;
    if (kind == ResourceKind::Cpu) {
        t.percentile = 95;
        t.overhead_percent = 20;
        t.min_allowed = Quantity::from_milli(1);
        t.max_allowed = Quantity::from_milli(4000);
        t.allow_decrease = true;
        t.max_increase_percent = t.max_decrease_percent = 50;
    } else {
        t.percentile = 99;
        t.overhead_percent = 30;
        t.min_allowed = Quantity::from_value(4ll << 20, Quantity::Format::BinarySI);
        t.max_allowed = Quantity::from_value(8ll << 30, Quantity::Format::BinarySI);
        t.allow_decrease = false;
        t.max_increase_percent = t.max_decrease_percent = 30;
    }
    return t;
}

}  // namespace attune::core
