#pragma once
// kubectl attune doctor's report: rows in a `%-22s %-4s [%s] %s`
// table (ok / WARN / FAIL, [required] / [optional]). The exit status is 1
// only when a required row FAILs; an optional row never flips it, whatever
// it says. Pure.
#include <boost/json/object.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attune::cli {

enum class DoctorStatus { Ok, Warn, Fail };

struct DoctorRow {
    std::string name;  // at most 22 characters, so the table stays aligned
    DoctorStatus status = DoctorStatus::Ok;
    bool required = false;
    std::string detail;
};

DoctorRow make_row(std::string name, bool required, DoctorStatus status, std::string detail);

std::string_view status_label(DoctorStatus s) noexcept;  // "ok", "WARN", "FAIL"

// "a, b, c", or "a, b and 3 more" past `max_shown`: the node and policy
// lists in row details.
std::string join_names(const std::vector<std::string>& names, std::size_t max_shown = SIZE_MAX,
                       std::string_view sep = ", ");

// One line per row, `%-22s %-4s [%s] %s`. With colour, only the status word
// is painted (green, yellow, red) and the padding stays as without.
std::string render_doctor_table(std::span<const DoctorRow> rows, bool colour);

// A required row FAILs.
bool doctor_failed(std::span<const DoctorRow> rows) noexcept;

// {"rows": [{name, status, required, detail}], "failed": bool}; the caller
// may add more keys (doctor adds "capabilities").
boost::json::object doctor_json(std::span<const DoctorRow> rows);

}  // namespace attune::cli
