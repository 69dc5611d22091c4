#pragma once
// JSON merge patch (RFC 7386), applied the way the apiserver applies an
// application/merge-patch+json body: an object merges key by key, null
// removes the key, anything else replaces the target whole (arrays
// included). Lets a client dry run show the object a patch would leave. Pure.
#include <boost/json/value.hpp>

namespace attune::core {

boost::json::value apply_merge_patch(boost::json::value target, const boost::json::value& patch);

}  // namespace attune::core
