#pragma once
// updateStrategy.resizeMethod (docs/api.md#attunepolicy-spec): one enum for the policy
// model and the eviction decision, so a header that needs both compiles.
namespace attune::core {

enum class ResizeMethod { InPlaceOnly, InPlaceOrRecreate };

}  // namespace attune::core
