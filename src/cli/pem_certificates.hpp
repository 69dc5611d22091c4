#pragma once
// The validity of every certificate in a PEM bundle (a webhook's caBundle),
// read with OpenSSL 3. No I/O, no clock. Reading stops at the first block
// that is not a certificate; a bundle with none gives an empty list.
#include "doctor_webhook.hpp"

#include <string_view>
#include <vector>

namespace attune::cli {

std::vector<certificate_validity> certificate_validities(std::string_view pem);

}  // namespace attune::cli
