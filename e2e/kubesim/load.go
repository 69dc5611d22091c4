package main

// Simulated container usage (driven by the sim.attune.io/load annotation) and
// the cAdvisor-style counters derived from it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

const loadAnnotation = "sim.attune.io/load"

// cfsPeriodsPerSecond: the kernel's default CFS period is 100 ms.
const cfsPeriodsPerSecond = 10.0

// Load is what one container does: the cpu it gets, its working set, and
// the share of its CFS periods that were throttled.
type Load struct {
	CPU       float64 // cores used (the demand, capped at the cpu limit)
	Memory    int64   // working-set bytes
	Throttled float64 // fraction of CFS periods throttled, 0..1
}

// loadOverride is one entry of the annotation; nil fields keep the default.
type loadOverride struct {
	CPU       *float64
	Memory    *int64
	Throttled *float64
}

// LoadSpec is a parsed annotation: container name (or "*") to overrides.
type LoadSpec map[string]loadOverride

// ParseLoadAnnotation parses e.g.
// {"*":{"cpu":"250m"},"app":{"memory":"128Mi","throttled":0.1}}.
// cpu and memory take a quantity string or a plain number (cores / bytes).
func ParseLoadAnnotation(s string) (LoadSpec, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, fmt.Errorf("%s: want a JSON object of container name to {cpu,memory,throttled}: %v", loadAnnotation, err)
	}
	out := LoadSpec{}
	for name, msg := range raw {
		var f struct {
			CPU       json.RawMessage `json:"cpu"`
			Memory    json.RawMessage `json:"memory"`
			Throttled *float64        `json:"throttled"`
		}
		dec := json.NewDecoder(bytes.NewReader(msg))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("%s[%q]: %v", loadAnnotation, name, err)
		}
		var o loadOverride
		if len(f.CPU) > 0 {
			q, err := quantityOrNumber(f.CPU, false)
			if err != nil {
				return nil, fmt.Errorf("%s[%q].cpu: %v", loadAnnotation, name, err)
			}
			v := q.AsApproximateFloat64()
			o.CPU = &v
		}
		if len(f.Memory) > 0 {
			q, err := quantityOrNumber(f.Memory, true)
			if err != nil {
				return nil, fmt.Errorf("%s[%q].memory: %v", loadAnnotation, name, err)
			}
			v := q.Value()
			o.Memory = &v
		}
		if f.Throttled != nil {
			if *f.Throttled < 0 || *f.Throttled > 1 {
				return nil, fmt.Errorf("%s[%q].throttled: %v is not within 0..1", loadAnnotation, name, *f.Throttled)
			}
			o.Throttled = f.Throttled
		}
		out[name] = o
	}
	return out, nil
}

// quantityOrNumber accepts "250m" / "128Mi" or a JSON number.
func quantityOrNumber(msg json.RawMessage, integer bool) (resource.Quantity, error) {
	var str string
	if err := json.Unmarshal(msg, &str); err == nil {
		q, err := resource.ParseQuantity(str)
		if err != nil {
			return q, fmt.Errorf("bad quantity %q", str)
		}
		if q.Sign() < 0 {
			return q, fmt.Errorf("negative quantity %q", str)
		}
		return q, nil
	}
	var num float64
	if err := json.Unmarshal(msg, &num); err != nil {
		return resource.Quantity{}, fmt.Errorf("want a quantity string or a number, got %s", string(msg))
	}
	if num < 0 {
		return resource.Quantity{}, fmt.Errorf("negative value %v", num)
	}
	if integer {
		return *resource.NewQuantity(int64(num), resource.BinarySI), nil
	}
	return resource.ParseQuantity(strconv.FormatFloat(num, 'f', -1, 64))
}

// DefaultLoad: 10% of the cpu request (or 10m) and 50% of the memory request
// (or 16Mi), unthrottled.
func DefaultLoad(req Resources) Load {
	l := Load{CPU: 0.010, Memory: 16 << 20}
	if q, ok := req.Requests[resCPU]; ok && q.Sign() > 0 {
		l.CPU = float64(q.MilliValue()) / 1000 * 0.10
	}
	if q, ok := req.Requests[resMemory]; ok && q.Sign() > 0 {
		l.Memory = q.Value() / 2
	}
	return l
}

// For resolves a container's load under its applied resources: the demand
// from the defaults, then "*", then its own entry; then the CFS quota of an
// applied cpu limit. A demand above the limit is capped at the limit (that
// is all the quota lets it run) and throttles a fraction of its periods,
// ThrottledFraction(demand, limit), unless the annotation sets "throttled",
// which wins.
func (s LoadSpec) For(container string, applied Resources) Load {
	l := DefaultLoad(applied)
	explicit := false
	for _, key := range []string{"*", container} {
		o, ok := s[key]
		if !ok {
			continue
		}
		if o.CPU != nil {
			l.CPU = *o.CPU
		}
		if o.Memory != nil {
			l.Memory = *o.Memory
		}
		if o.Throttled != nil {
			l.Throttled = *o.Throttled
			explicit = true
		}
	}
	limit := cpuLimit(applied)
	if !explicit {
		l.Throttled = ThrottledFraction(l.CPU, limit)
	}
	if limit > 0 && l.CPU > limit {
		l.CPU = limit
	}
	return l
}

// cpuLimit is the applied cpu limit in cores; 0 when there is none.
func cpuLimit(applied Resources) float64 {
	if q, ok := applied.Limits[resCPU]; ok && q.Sign() > 0 {
		return float64(q.MilliValue()) / 1000
	}
	return 0
}

// ThrottledFraction is the load model's share of CFS periods throttled for
// a steady demand under a cpu limit (cores; limit 0 = none):
// clamp((demand - limit) / demand, 0, 1). Harness model: a real kernel
// throttles bursty loads below the limit too.
func ThrottledFraction(demand, limit float64) float64 {
	if limit <= 0 || demand <= limit {
		return 0
	}
	return math.Min(1, (demand-limit)/demand)
}

// ---- counters ----

type seriesKey struct{ Namespace, Pod, Container string }

type podKey struct{ Namespace, Pod string }

type series struct {
	node      string
	load      Load
	cpu       float64 // core-seconds
	periods   float64
	throttled float64
	last      time.Time
}

// advance integrates the current rates up to now; a clock going backwards
// adds nothing, so the counters never decrease.
func (s *series) advance(now time.Time) {
	dt := now.Sub(s.last).Seconds()
	if dt <= 0 {
		return
	}
	s.cpu += s.load.CPU * dt
	s.periods += cfsPeriodsPerSecond * dt
	s.throttled += s.load.Throttled * cfsPeriodsPerSecond * dt
	s.last = now
}

// Metrics is the set of per-container series, safe for concurrent use.
// Series are grouped by pod, so a pod's update costs what that pod has, not
// what every pod has (10,000 pods are synced one by one).
type Metrics struct {
	mu sync.Mutex
	m  map[podKey]map[string]*series // by pod, then container
}

func NewMetrics() *Metrics { return &Metrics{m: map[podKey]map[string]*series{}} }

// Set records a running container's load from now on. On first sight the
// counters start as if that load had run since the container started.
func (m *Metrics) Set(ns, pod, container, node string, started time.Time, l Load, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	pk := podKey{ns, pod}
	byContainer := m.m[pk]
	if byContainer == nil {
		byContainer = map[string]*series{}
		m.m[pk] = byContainer
	}
	s, ok := byContainer[container]
	if !ok {
		s = &series{node: node, load: l, last: now}
		if el := now.Sub(started).Seconds(); !started.IsZero() && el > 0 {
			s.cpu = l.CPU * el
			s.periods = cfsPeriodsPerSecond * el
			s.throttled = l.Throttled * cfsPeriodsPerSecond * el
		}
		byContainer[container] = s
		return
	}
	s.advance(now)
	s.load, s.node = l, node
}

// RetainPod drops a pod's series for containers not in keep (nil: all).
func (m *Metrics) RetainPod(ns, pod string, keep map[string]bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	pk := podKey{ns, pod}
	for c := range m.m[pk] {
		if !keep[c] {
			delete(m.m[pk], c)
		}
	}
	if len(m.m[pk]) == 0 {
		delete(m.m, pk)
	}
}

// Write renders the Prometheus text exposition format.
func (m *Metrics) Write(w io.Writer, now time.Time) error {
	m.mu.Lock()
	keys := make([]seriesKey, 0, len(m.m))
	for pk, byContainer := range m.m {
		for c, s := range byContainer {
			s.advance(now)
			keys = append(keys, seriesKey{pk.Namespace, pk.Pod, c})
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Pod != b.Pod {
			return a.Pod < b.Pod
		}
		return a.Container < b.Container
	})
	type row struct {
		labels string
		s      series
	}
	rows := make([]row, len(keys))
	for i, k := range keys {
		s := m.m[podKey{k.Namespace, k.Pod}][k.Container]
		rows[i] = row{fmt.Sprintf(`container="%s",namespace="%s",node="%s",pod="%s"`,
			escapeLabel(k.Container), escapeLabel(k.Namespace), escapeLabel(s.node), escapeLabel(k.Pod)), *s}
	}
	m.mu.Unlock()

	var b strings.Builder
	family := func(name, typ, help string, val func(series) string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
		for _, r := range rows {
			fmt.Fprintf(&b, "%s{%s} %s\n", name, r.labels, val(r.s))
		}
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	family("container_cpu_usage_seconds_total", "counter", "Cumulative cpu time consumed in seconds (simulated).",
		func(s series) string { return f(s.cpu) })
	family("container_memory_working_set_bytes", "gauge", "Current working set in bytes (simulated).",
		func(s series) string { return strconv.FormatInt(s.load.Memory, 10) })
	family("container_cpu_cfs_periods_total", "counter", "Number of elapsed enforcement period intervals (simulated).",
		func(s series) string { return f(s.periods) })
	family("container_cpu_cfs_throttled_periods_total", "counter", "Number of throttled period intervals (simulated).",
		func(s series) string { return f(s.throttled) })
	_, err := io.WriteString(w, b.String())
	return err
}

func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
