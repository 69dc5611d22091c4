#pragma once
// The reads behind Prometheus auto-discovery (core::discover_prometheus):
// every Prometheus Operator `Prometheus` object, and GETs of the well-known
// Services. A few requests, made when the controller starts and every
// refresh period after (docs/recommender.md, "Prometheus auto-discovery").
#include <attune/core/policy/prometheus_discovery.hpp>
#include <attune/core/util/result.hpp>
#include <attune/kube/client.hpp>

#include <boost/asio/awaitable.hpp>

#include <optional>
#include <string>
#include <vector>

namespace attune::controller {

// What one look found. A read that failed for a reason that says nothing
// about whether a Prometheus exists (the apiserver unreachable, a 5xx) is an
// error, so the caller keeps its last answer; a 404 (no Prometheus Operator
// CRD, no such Service), a 403 (RBAC without the optional read) or a
// namespace outside --watch-namespaces means "not found there".
// `namespaces` empty: the Prometheus Operator objects of every namespace
// (one cluster-wide list), else of these only (one list each, what a
// --watch-namespaces manager's Roles allow).
boost::asio::awaitable<core::Result<std::optional<core::DiscoveredPrometheus>>> look_for_prometheus(
    kube::Client& client, std::vector<std::string> namespaces);

}  // namespace attune::controller
