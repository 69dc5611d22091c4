#pragma once
// One reason the upgrade gate gives for a block, its class, its tagged line
// ("[ACTIONABLE] calico: upgrade calico to >= 3.30.0 ..."), and the exit code
// a list of reasons maps to. The nightly report reads the same lines back. Pure.
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace attune::core {

// Actionable blocks alert (docs/upgrade-gate.md); waiting-upstream and pinned are "held",
// which is quiet.
enum class BlockClass { Actionable, Waiting, Pinned };

std::string_view tag_of(BlockClass c);  // "ACTIONABLE", "WAITING", "PINNED"
inline bool is_held(BlockClass c) { return c != BlockClass::Actionable; }

struct GateReason {
    BlockClass cls = BlockClass::Actionable;
    std::string check;    // "addon", "removed-api", "containerd"
    std::string subject;  // the addon, API or node
    std::string message;

    std::string line() const;  // "[TAG] subject: message"
};

// The gate's exit codes.
inline constexpr int kGateSafe = 0;
inline constexpr int kGateActionable = 2;
inline constexpr int kGateError = 3;  // fail-safe: any failure to evaluate
inline constexpr int kGateHeld = 4;

// 0 with no reasons; 4 when any reason is held (held wins: acting on the
// actionable ones would not unblock the target yet); else 2.
int gate_exit_code(std::span<const GateReason> reasons);

// A reason line as printed. Lines without a known tag (older gate output)
// come back with no class, their whole text as `text`.
struct ReasonLine {
    std::optional<BlockClass> cls;
    std::string text;  // after the tag, or the whole line
};
ReasonLine parse_reason_line(std::string_view line);

}  // namespace attune::core
