package main

import (
	"fmt"
	"strconv"
	"strings"
)

// Behavior is what a real kubelet of one minor does differently
// (docs/local-control-plane.md, "The simulated kubelet"). Everything version-dependent goes through
// it so the decision code never compares version strings.
type Behavior struct {
	Minor int
	// ResizeField: 1.32 reports resize state in status.resize.
	ResizeField bool
	// ResizeConditions: 1.33+ reports PodResizePending / PodResizeInProgress.
	ResizeConditions bool
	// ObservedGeneration: the 1.34+ kubelet fills status.observedGeneration
	// and conditions[].observedGeneration.
	ObservedGeneration bool
	// PodLevelStatus: 1.35+ has pod-level status.resources/allocatedResources.
	PodLevelStatus bool
	// MemoryDecreaseCheck: 1.34+ allows memory-limit decreases with
	// NotRequired and checks usage best-effort before applying them.
	MemoryDecreaseCheck bool
	// DeclaredFeaturesField: node.status.declaredFeatures exists from 1.35.
	DeclaredFeaturesField bool
	// AutoDeclaredFeatures is what --declared-features=auto puts on new nodes.
	AutoDeclaredFeatures []string
}

const minMinor, maxMinor = 32, 37

// BehaviorFor returns the behaviour of minor 1.<minor>, or an error for a
// minor this simulator has not been written against.
func BehaviorFor(minor int) (Behavior, error) {
	if minor < minMinor || minor > maxMinor {
		return Behavior{}, fmt.Errorf("unsupported Kubernetes minor 1.%d (kubesim knows 1.%d to 1.%d)", minor, minMinor, maxMinor)
	}
	b := Behavior{
		Minor:                 minor,
		ResizeField:           minor == 32,
		ResizeConditions:      minor >= 33,
		ObservedGeneration:    minor >= 34,
		PodLevelStatus:        minor >= 35,
		MemoryDecreaseCheck:   minor >= 34,
		DeclaredFeaturesField: minor >= 35,
	}
	if minor >= 36 {
		b.AutoDeclaredFeatures = []string{"InPlacePodLevelResourcesVerticalScaling"}
	}
	return b, nil
}

// ParseMinor accepts "1.36", "36", or a server minor such as "36+".
func ParseMinor(s string) (int, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(t, "v")
	t = strings.TrimPrefix(t, "1.")
	t = strings.TrimSuffix(t, "+")
	if i := strings.IndexByte(t, '.'); i >= 0 { // "1.36.3" -> "36"
		t = t[:i]
	}
	n, err := strconv.Atoi(t)
	if err != nil || t == "" {
		return 0, fmt.Errorf("bad Kubernetes minor %q (want e.g. 1.36)", s)
	}
	return n, nil
}

// DeclaredFeatures resolves the --declared-features flag. nil means "do not
// set the field at all"; an empty non-nil slice means "set it empty".
func DeclaredFeatures(b Behavior, flag string) ([]string, error) {
	switch strings.TrimSpace(flag) {
	case "auto":
		if !b.DeclaredFeaturesField || b.AutoDeclaredFeatures == nil {
			return nil, nil
		}
		return append([]string{}, b.AutoDeclaredFeatures...), nil
	case "none":
		return []string{}, nil
	case "":
		return nil, fmt.Errorf("--declared-features must be auto, none, or a comma-separated list")
	}
	var out []string
	for _, f := range strings.Split(flag, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("--declared-features %q has an empty name", flag)
		}
		out = append(out, f)
	}
	return out, nil
}
