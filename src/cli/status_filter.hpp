#pragma once
// `kubectl attune status --filter WORD`: which status records (status_records.hpp)
// to print, by the words the Go plugin accepts. Pure.
#include <boost/json/object.hpp>

#include <string_view>

namespace attune::cli {

// degraded     Degraded=True
// pending      no Ready condition yet (phase Pending or Unknown)
// collecting   Ready reason InsufficientData
// ready        Ready=True
// noworkloads  Ready reason NoWorkloadsFound
// other words  a case-insensitive part of the phase or the Ready reason
//              ("paused", "prometheus")
// An empty filter keeps every record.
bool status_matches_filter(const boost::json::object& status_record, std::string_view filter);

}  // namespace attune::cli
