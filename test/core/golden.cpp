#include "golden.hpp"

#include <boost/json/parse.hpp>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace attune::core::testing {

boost::json::value load_golden(const std::string& file_name) {
    const std::string path = std::string(ATTUNE_TEST_DATA_DIR) + "/" + file_name;
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open golden file " + path + " (run hack/golden.sh)");
    std::stringstream buf;
    buf << in.rdbuf();
    return boost::json::parse(buf.str());
}

}  // namespace attune::core::testing
