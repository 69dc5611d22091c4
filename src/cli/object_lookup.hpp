#pragma once
// The outcome of reading one object for a report: the object, or why not
// (404 and 403 are answers a report explains, not failures of the command).
// A plain value, so the rows that read it stay pure.
#include <boost/json/value.hpp>

#include <optional>
#include <string>

namespace attune::cli {

struct ObjectLookup {
    std::optional<boost::json::value> object;
    int status = 0;     // HTTP status of a refused read (404, 403); 0 when no answer came
    std::string error;  // set when `object` is not

    bool found() const noexcept { return object.has_value(); }
    bool not_found() const noexcept { return !object && status == 404; }
    bool forbidden() const noexcept { return !object && status == 403; }

    static ObjectLookup of(boost::json::value v) {
        ObjectLookup l;
        l.object = std::move(v);
        return l;
    }
    static ObjectLookup failed(int status, std::string error) {
        ObjectLookup l;
        l.status = status;
        l.error = std::move(error);
        return l;
    }
};

}  // namespace attune::cli
