#pragma once
// Lenient reads of API objects for the CLI's records and reports, beside
// core/util/json_path.hpp: a missing or odd field reads as absent, never as an
// error (what the API serves is shown, not judged). Pure.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace attune::cli {

bool iequals(std::string_view a, std::string_view b) noexcept;

// A number (int or double) at obj[key]; `fallback` when absent.
double number_at(const boost::json::value& obj, std::string_view key, double fallback = 0);

// Absent optional text is null in the records ("<none>" in a table).
boost::json::value str_or_null(std::string_view s);

// The status.conditions[] entry of `type`, or nullptr.
const boost::json::value* find_condition(const boost::json::value& obj, std::string_view type);
bool condition_true(const boost::json::value& obj, std::string_view type);

// {cpuRequest, cpuLimit, memoryRequest, memoryLimit} of a status
// recommendation's current/recommended; "0" for what is absent, as the
// status writes it.
boost::json::object resource_values(const boost::json::value* values);

// kubectl's spellings of the workload kinds ("deploy", "deployments",
// "Deployment", "sts", "cj", ...) -> "Deployment", ...; "" when unknown.
std::string canonical_kind(std::string_view kind);

}  // namespace attune::cli
