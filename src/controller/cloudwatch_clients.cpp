#include <attune/controller/cloudwatch_clients.hpp>

#include <attune/core/policy/policy_validation.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace attune::controller {

namespace {
std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}
}  // namespace

core::AwsEnvironment process_aws_environment() {
    core::AwsEnvironment e;
    e.access_key_id = env("AWS_ACCESS_KEY_ID");
    e.secret_access_key = env("AWS_SECRET_ACCESS_KEY");
    e.session_token = env("AWS_SESSION_TOKEN");
    e.role_arn = env("AWS_ROLE_ARN");
    e.web_identity_token_file = env("AWS_WEB_IDENTITY_TOKEN_FILE");
    e.role_session_name = env("AWS_ROLE_SESSION_NAME");
    return e;
}

std::string cloudwatch_endpoint(const CloudWatchClientsOptions& options, const std::string& region) {
    return options.url.empty() ? "https://monitoring." + region + ".amazonaws.com" : options.url;
}

std::string sts_endpoint(const CloudWatchClientsOptions& options, const std::string& region) {
    return options.sts_url.empty() ? "https://sts." + region + ".amazonaws.com" : options.sts_url;
}

CloudWatchClients::CloudWatchClients(boost::asio::any_io_executor ex, CloudWatchClientsOptions opts)
    : ex_(std::move(ex)), opts_(std::move(opts)), clients_(opts_.max_clients, opts_.idle_ttl) {}

kube::QueryHttpOptions CloudWatchClients::http_options() const {
    kube::QueryHttpOptions h;
    h.ca_file = opts_.ca_file;
    h.query_timeout = opts_.query_timeout;
    h.endpoint_filter = [allow = opts_.allow_local_addresses](std::string_view ip) {
        return core::check_resolved_address(ip, allow);
    };
    return h;
}

core::Result<std::shared_ptr<kube::CloudWatchClient>> CloudWatchClients::get(const core::CloudWatchSource& source,
                                                                             Clock::time_point now) {
    if (stopped_) return core::make_error("cancelled", "cloudwatch clients shut down");
    const std::string endpoint = cloudwatch_endpoint(opts_, source.region);
    const std::string id = endpoint + '\0' + source.region;
    if (auto found = clients_.find(id, now)) return found;
    kube::CloudWatchSettings s;
    s.base_url = endpoint;
    s.region = source.region;
    s.http = http_options();
    auto created = kube::CloudWatchClient::create(ex_, std::move(s));
    if (!created) return created.error();
    clients_.add(id, created.value(),
                 QueryBudget(opts_.qps, opts_.burst, now, "the CloudWatch request budget of region " + source.region),
                 now);
    return created;
}

core::Result<std::shared_ptr<kube::StsClient>> CloudWatchClients::sts_for(const std::string& endpoint) {
    if (auto it = sts_.find(endpoint); it != sts_.end()) return it->second;
    kube::StsSettings s;
    s.base_url = endpoint;
    s.http = http_options();
    auto created = kube::StsClient::create(ex_, std::move(s));
    if (!created) return created.error();
    sts_.emplace(endpoint, created.value());
    return created;
}

boost::asio::awaitable<core::Result<core::AwsCredentials>> CloudWatchClients::credentials(
    const core::CloudWatchSource& source) {
    if (stopped_) co_return core::make_error("cancelled", "cloudwatch clients shut down");
    auto plan = core::plan_aws_credentials(opts_.environment(), source.role_arn);
    if (!plan) co_return plan.error();
    const auto& p = plan.value();
    if (p.kind == core::AwsCredentialKind::Keys) co_return p.keys;
    const std::string endpoint = sts_endpoint(opts_, source.region);
    const std::string id = p.role_arn + '\0' + p.token_file + '\0' + endpoint;
    const auto now = std::chrono::system_clock::now();
    if (auto it = temporary_.find(id); it != temporary_.end() && core::aws_credentials_fresh(it->second, now))
        co_return it->second;
    // Read anew for each renewal: the kubelet rotates the projected token.
    std::ifstream in(p.token_file, std::ios::binary);
    std::ostringstream ss;
    if (in) ss << in.rdbuf();
    std::string token = ss.str();
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
    if (!in || token.empty())
        co_return core::make_error("token_file", "the web identity token file " + p.token_file +
                                                     " cannot be read or is empty (" + p.describe() + ")");
    auto sts = sts_for(endpoint);
    if (!sts) co_return sts.error();
    auto keep = sts.value();
    auto got = co_await keep->assume_role_with_web_identity(p.role_arn, p.session_name, std::move(token));
    if (!got) co_return got.error();
    temporary_[id] = got.value();
    co_return got;
}

CloudWatchClients::Admission CloudWatchClients::admit(const std::shared_ptr<kube::CloudWatchClient>& client,
                                                      Clock::time_point now, std::chrono::nanoseconds max_wait) {
    return clients_.admit(client, now, max_wait);
}

void CloudWatchClients::note_throttled(const std::shared_ptr<kube::CloudWatchClient>& client, std::string message,
                                       Clock::time_point now) {
    clients_.hold(client, now + opts_.hold_after_throttle, std::move(message));
}

void CloudWatchClients::note_unanswered(const std::shared_ptr<kube::CloudWatchClient>& client, std::string message,
                                        Clock::time_point now) {
    clients_.hold(client, now + opts_.hold_after_failure, std::move(message));
}

void CloudWatchClients::note_answered(const std::shared_ptr<kube::CloudWatchClient>& client) {
    clients_.release(client);
}

void CloudWatchClients::shutdown() noexcept {
    stopped_ = true;
    clients_.shutdown();
    for (auto& [endpoint, s] : sts_) s->shutdown();
    sts_.clear();
}

}  // namespace attune::controller
