#pragma once
// kubectl attune migrate --from attune-go: our manager takes over a cluster
// where the Go Attune ran (docs/cli.md "migrate"). The mapping is the core's
// (core/safety/go_adoption.hpp); this reads the objects and sends the writes.
#include "command.hpp"

#include <attune/kube/client.hpp>

#include <string>

namespace attune::cli {

struct MigrateWrites {
    bool client_dry_run = false;  // --dry-run=client: nothing is sent
    kube::WriteOptions wo;        // --dry-run=server: dryRun=All on every write
    std::string suffix;           // after "patched": "", " (dry run)", " (server dry run)"
};

// `go_namespace`: where the Go operator's Lease is; empty: looked up by name
// in every namespace. `force`: take the Lease over while the Go operator
// still renews it.
int migrate_from_attune_go(Invocation& inv, const MigrateWrites& w, const std::string& go_namespace, bool force);

}  // namespace attune::cli
