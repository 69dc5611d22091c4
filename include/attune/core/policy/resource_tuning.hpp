#pragma once
// The effective tuning of one resource (cpu or memory) for one policy, after
// the defaults merge (built-in < AttuneDefaults < AttuneNamespaceDefaults <
// AttunePolicy) and the runtime profile. Every field holds a concrete value:
// the recommender and the apply path read this, never the raw spec.
//
// This is the contract between the API layer (which fills it) and the
// recommender (which reads it). Add fields when a feature needs them; keep
// the names and meanings of the existing ones.
#include <chrono>
#include <optional>

#include "attune/core/util/duration.hpp"
#include "attune/core/model/quantity.hpp"

namespace attune::core {

enum class ResourceKind { Cpu, Memory };

// spec.resourcePolicy controlledValues: whether a resize writes limits too.
enum class ControlledValues { RequestsAndLimits, RequestsOnly };

struct StartupBoost {
    double multiplier = 1.0;              // > 1, <= 10
    std::chrono::seconds duration{0};     // 10s .. 1h
    bool exclude_from_history = false;    // drop CPU samples taken while boosted
    friend bool operator==(const StartupBoost&, const StartupBoost&) = default;
};

// Raise the memory request after an OOMKill (newer upstream; absent = off).
struct OomBump {
    double ratio = 1.2;                   // 1..10
    Quantity min_bump;                    // 100Mi
    int max_bumps = 3;                    // 1..10
    Duration hold = std::chrono::hours(24);
    friend bool operator==(const OomBump&, const OomBump&) = default;
};

// A short history while usage runs hot (newer upstream; absent = off).
struct Surge {
    double trigger_ratio = 1.5;           // > 1, <= 100
    int percentile = 99;
    Duration window = std::chrono::minutes(30);
    friend bool operator==(const Surge&, const Surge&) = default;
};

struct ResourceTuning {
    int percentile = 95;                  // 50, 90, 95 or 99 (cpu 95, memory 99)
    double overhead_percent = 20;         // cpu 20, memory 30 (java memory 40)
    Quantity min_allowed;                 // cpu 1m, memory 4Mi
    Quantity max_allowed;                 // cpu 4000m, memory 8Gi
    ControlledValues controlled_values = ControlledValues::RequestsOnly;
    double burst_sensitivity = 0.1;       // 0 = off, <= 1
    bool allow_decrease = true;           // cpu true, memory false
    int max_increase_percent = 50;        // maxIncreasePercent, else maxChangePercent (cpu 50, memory 30)
    int max_decrease_percent = 50;        // maxDecreasePercent, else maxChangePercent
    int decrease_usage_margin_percent = 10;      // memory: margin above usage for limit decreases
    std::optional<double> memory_from_cpu_ratio; // memory only: GiB per recommended CPU core
    std::optional<StartupBoost> startup_boost;   // cpu only
    std::optional<double> limit_multiplier;      // limit = request x this; nullopt = keep the live ratio
    std::optional<OomBump> oom_bump;             // memory
    std::optional<Surge> surge;
    friend bool operator==(const ResourceTuning&, const ResourceTuning&) = default;
};

// The built-in values (docs/api.md#attunepolicy-spec), before any defaults object.
ResourceTuning builtin_tuning(ResourceKind kind);

}  // namespace attune::core
