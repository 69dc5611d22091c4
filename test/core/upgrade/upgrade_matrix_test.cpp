#include "attune/core/upgrade/upgrade_matrix.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace attune::core {
namespace {

TEST(ParseUpgradeMatrix, ReadsAddonsContainerdAndRemovals) {
    auto m = parse_upgrade_matrix(R"({
  "_comment": ["anything"],
  "containerd_min": {"1.37": "2.1.0", "1.36": "2.0.0"},
  "api_removals": {"1.37": ["networking.k8s.io/v1beta1/servicecidrs"], "1.22": ["v1/legacythings"]},
  "addons": {
    "_note": "keys starting with _ are comments anywhere",
    "calico": {
      "source": {"kind": "Deployment", "namespace": "calico-system", "name": "ctl", "container": "c"},
      "versions": [{"version": "3.30.0", "max_k8s": "1.36", "_why": "ok"}, {"version": "3.29.0", "max_k8s": "1.35"}]
    },
    "gpu": {
      "source": {"kind": "DaemonSet", "namespace": "g", "name": "g", "label": "app.kubernetes.io/version"},
      "versions": [{"version": "v26.3.0", "max_k8s": "1.36"}],
      "pinned": true, "pin_reason": "driver"
    }
  }
})", "m.json");
    ASSERT_TRUE(m.ok()) << m.error().message;
    const auto& v = m.value();
    ASSERT_EQ(v.addons.size(), 2u);
    EXPECT_EQ(v.addons[0].name, "calico");
    EXPECT_EQ(v.addons[0].source.container, "c");
    ASSERT_EQ(v.addons[0].versions.size(), 2u);
    EXPECT_EQ(v.addons[0].versions[0].version.text, "3.29.0");  // sorted
    EXPECT_EQ(v.addons[0].versions[1].max_k8s, (KubeMinor{1, 36}));
    EXPECT_TRUE(v.addons[1].pinned);
    EXPECT_EQ(v.addons[1].source.label, "app.kubernetes.io/version");
    ASSERT_EQ(v.containerd_min.size(), 2u);
    EXPECT_EQ(v.containerd_min[0].k8s, (KubeMinor{1, 36}));
    ASSERT_EQ(v.api_removals.size(), 2u);
    EXPECT_EQ(v.api_removals[0].group, "");  // core group, sorted first (1.22)
    EXPECT_EQ(v.api_removals[0].group_version(), "v1");
    EXPECT_EQ(v.api_removals[1].group_version(), "networking.k8s.io/v1beta1");
    EXPECT_EQ(v.api_removals[1].resource, "servicecidrs");

    EXPECT_EQ(containerd_minimum_for(v, {1, 35}), nullptr);
    EXPECT_EQ(containerd_minimum_for(v, {1, 36})->min.text, "2.0.0");
    EXPECT_EQ(containerd_minimum_for(v, {1, 38})->min.text, "2.1.0");
}

// Bad matrix JSON is a gate error that names the line and the field.
TEST(ParseUpgradeMatrix, ErrorsNameTheLineAndTheField) {
    const std::string addon_head = R"({
  "addons": {
    "calico": {
      "source": {"kind": "Deployment", "namespace": "n", "name": "x", "container": "c"},
)";
    struct Case {
        const char* name;
        std::string text;
        std::string want;
    } cases[] = {
        {"syntax: a doubled comma", addon_head + R"(      "versions": [{"version": "3.29.0",, "max_k8s": "1.35"}]
    }
  }
})",
         "m.json line 5: addons.calico.versions[0].version: JSON syntax error (syntax error)"},
        {"syntax: truncated", "{\n  \"addons\": {\n\n", "m.json line 2: addons: the JSON ends early (an unclosed { or [?)"},
        {"not JSON at all", "hello", "m.json line 1: (top level): JSON syntax error (syntax error)"},
        {"bad max_k8s", addon_head + R"(      "versions": [
        {"version": "3.29.0", "max_k8s": "1.35"},
        {"version": "3.30.0", "max_k8s": "136"}
      ]
    }
  }
})",
         "m.json line 7: addons.calico.versions[1].max_k8s: expected a Kubernetes minor such as \"1.36\", got \"136\""},
        {"max_k8s with a patch", addon_head + R"(      "versions": [{"version": "3.29.0", "max_k8s": "1.35.2"}]
    }
  }
})",
         "m.json line 5: addons.calico.versions[0].max_k8s: expected a Kubernetes minor such as \"1.36\", got \"1.35.2\""},
        {"unknown addon key (a typo)", addon_head + R"(      "versions": [{"version": "3.29.0", "max_k8s": "1.35"}],
      "pined": true
    }
  }
})",
         "m.json line 6: addons.calico.pined: unknown field (known here: source, versions, pinned, pin_reason)"},
        {"pinned without a reason", addon_head + R"(      "versions": [{"version": "3.29.0", "max_k8s": "1.35"}],
      "pinned": true
    }
  }
})",
         "m.json line 6: addons.calico.pinned: true needs a \"pin_reason\" (the report shows why it is held)"},
        {"pinned not a boolean", addon_head + R"(      "versions": [{"version": "3.29.0", "max_k8s": "1.35"}],
      "pinned": "yes", "pin_reason": "x"
    }
  }
})",
         "m.json line 6: addons.calico.pinned: expected true or false"},
        {"duplicate version", addon_head + R"(      "versions": [{"version": "3.29.0", "max_k8s": "1.35"},
                   {"version": "v3.29.0", "max_k8s": "1.36"}]
    }
  }
})",
         "m.json line 6: addons.calico.versions[1].version: duplicate version v3.29.0"},
        {"unreadable version", addon_head + R"(      "versions": [{"version": "latest", "max_k8s": "1.35"}]
    }
  }
})",
         "m.json line 5: addons.calico.versions[0].version: expected a version such as \"3.29.1\", got \"latest\""},
        {"no versions", addon_head + R"(      "versions": []
    }
  }
})",
         "m.json line 5: addons.calico.versions: expected a non-empty array"},
        {"container and label", R"({
  "addons": {
    "calico": {
      "source": {"kind": "Deployment", "namespace": "n", "name": "x", "container": "c", "label": "l"},
      "versions": [{"version": "3.29.0", "max_k8s": "1.35"}]
    }
  }
})",
         "m.json line 4: addons.calico.source: needs exactly one of \"container\" (version from its image tag) or \"label\""},
        {"bad kind", R"({
  "addons": {
    "calico": {
      "source": {"kind": "Pod", "namespace": "n", "name": "x", "container": "c"},
      "versions": [{"version": "3.29.0", "max_k8s": "1.35"}]
    }
  }
})",
         "m.json line 4: addons.calico.source.kind: expected Deployment, DaemonSet or StatefulSet, got \"Pod\""},
        {"missing source", R"({
  "addons": {
    "calico": {
      "versions": [{"version": "3.29.0", "max_k8s": "1.35"}]
    }
  }
})",
         "m.json line 3: addons.calico.source: missing (where to read the running version)"},
        {"bad removal entry", R"({
  "api_removals": {
    "1.37": ["networking.k8s.io/v1beta1/servicecidrs",
             "servicecidrs"]
  }
})",
         "m.json line 4: api_removals.1.37[1]: expected \"group/version/resource\" (or \"version/resource\" for the core "
         "group), got \"servicecidrs\""},
        {"bad containerd minor", R"({
  "containerd_min": {
    "v1.36": "2.0.0"
  }
})",
         "m.json line 3: containerd_min.v1.36: expected a Kubernetes minor such as \"1.36\", got \"v1.36\""},
        {"unknown top-level key", "{\n  \"addon\": {}\n}", "m.json line 2: addon: unknown field (known here: addons, containerd_min, api_removals)"},
        {"nothing to check", "{\"_comment\": \"x\"}", "m.json line 1: (top level): no \"addons\", \"containerd_min\" or \"api_removals\": nothing to check"},
        {"not an object", "[1, 2]", "m.json line 1: (top level): expected an object"},
    };
    for (const auto& c : cases) {
        auto m = parse_upgrade_matrix(c.text, "m.json");
        ASSERT_FALSE(m.ok()) << c.name;
        EXPECT_EQ(m.error().code, "invalid_matrix") << c.name;
        EXPECT_EQ(m.error().message, c.want) << c.name;
    }
}

// The example the repository ships parses (deploy/upgrade-gate/addon-compat.json).
TEST(ParseUpgradeMatrix, TheShippedExampleParses) {
    std::ifstream f(ATTUNE_TEST_DATA_DIR "/../../deploy/upgrade-gate/addon-compat.json");
    ASSERT_TRUE(f) << "deploy/upgrade-gate/addon-compat.json is missing";
    std::stringstream ss;
    ss << f.rdbuf();
    auto m = parse_upgrade_matrix(ss.str(), "addon-compat.json");
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_FALSE(m.value().addons.empty());
    EXPECT_FALSE(m.value().api_removals.empty());
    EXPECT_FALSE(m.value().containerd_min.empty());
}

}  // namespace
}  // namespace attune::core
