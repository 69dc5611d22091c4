package main

import (
	"bufio"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseLoadAnnotation(t *testing.T) {
	req := res("1", "512Mi", "", "")
	tests := []struct {
		name    string
		in      string
		want    Load
		wantErr string
	}{
		{"quantities", `{"app":{"cpu":"250m","memory":"128Mi","throttled":0.1}}`, Load{0.25, 128 << 20, 0.1}, ""},
		{"numbers", `{"app":{"cpu":0.5,"memory":134217728}}`, Load{0.5, 128 << 20, 0}, ""},
		{"star then own entry", `{"*":{"cpu":"2","throttled":0.5},"app":{"cpu":"1"}}`, Load{1, 256 << 20, 0.5}, ""},
		{"other container only", `{"other":{"cpu":"2"}}`, Load{0.1, 256 << 20, 0}, ""},
		{"not json", `cpu=1`, Load{}, "want a JSON object"},
		{"bad quantity", `{"app":{"cpu":"lots"}}`, Load{}, "bad quantity"},
		{"negative", `{"app":{"memory":-1}}`, Load{}, "negative"},
		{"throttled out of range", `{"app":{"throttled":1.5}}`, Load{}, "not within 0..1"},
		{"unknown field", `{"app":{"gpu":1}}`, Load{}, "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := ParseLoadAnnotation(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := spec.For("app", req); got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDefaultLoad(t *testing.T) {
	if got := DefaultLoad(res("500m", "1Gi", "", "")); got != (Load{0.05, 512 << 20, 0}) {
		t.Fatalf("with requests: %+v", got)
	}
	if got := DefaultLoad(Resources{}); got != (Load{0.01, 16 << 20, 0}) {
		t.Fatalf("best effort: %+v", got)
	}
	var none LoadSpec // a bad annotation falls back to a nil spec
	if got := none.For("app", Resources{}); got != DefaultLoad(Resources{}) {
		t.Fatalf("nil spec: %+v", got)
	}
}

// The load model behind the throttling analysis (docs/lifecycle.md): a demand above
// the applied cpu limit runs at the limit and throttles (demand-limit)/demand
// of its CFS periods; the annotation's "throttled" still wins.
func TestThrottlingFromTheCPULimit(t *testing.T) {
	tests := []struct {
		name       string
		annotation string
		applied    Resources
		want       Load
	}{
		{"no limit: never throttled", `{"app":{"cpu":"250m"}}`, res("500m", "256Mi", "", ""), Load{0.25, 128 << 20, 0}},
		{"demand under the limit", `{"app":{"cpu":"250m"}}`, res("500m", "256Mi", "1", ""), Load{0.25, 128 << 20, 0}},
		{"demand at the limit", `{"app":{"cpu":"250m"}}`, res("250m", "256Mi", "250m", ""), Load{0.25, 128 << 20, 0}},
		{"demand above the limit: capped, 60% throttled", `{"app":{"cpu":"250m"}}`, res("100m", "256Mi", "100m", ""), Load{0.1, 128 << 20, 0.6}},
		{"explicit throttled wins, usage still capped", `{"app":{"cpu":"250m","throttled":0.1}}`, res("100m", "256Mi", "100m", ""), Load{0.1, 128 << 20, 0.1}},
		{"explicit zero wins too", `{"*":{"throttled":0}, "app":{"cpu":"2"}}`, res("100m", "256Mi", "1", ""), Load{1, 128 << 20, 0}},
		{"a memory limit alone does not throttle", `{"app":{"cpu":"3"}}`, res("1", "256Mi", "", "1Gi"), Load{3, 128 << 20, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var spec LoadSpec
			if tt.annotation != "" {
				var err error
				if spec, err = ParseLoadAnnotation(tt.annotation); err != nil {
					t.Fatal(err)
				}
			}
			got := spec.For("app", tt.applied)
			if math.Abs(got.CPU-tt.want.CPU) > 1e-9 || got.Memory != tt.want.Memory || math.Abs(got.Throttled-tt.want.Throttled) > 1e-9 {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	for _, c := range []struct{ demand, limit, want float64 }{{0, 1, 0}, {1, 0, 0}, {2, 1, 0.5}, {1e9, 1, 1 - 1e-9}} {
		if got := ThrottledFraction(c.demand, c.limit); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ThrottledFraction(%v, %v) = %v, want %v", c.demand, c.limit, got, c.want)
		}
	}
}

// The counters Prometheus scrapes carry the modelled fraction: over any
// interval, throttled periods / periods = the fraction, usage = the cap.
func TestThrottledCountersFollowTheLimit(t *testing.T) {
	spec, err := ParseLoadAnnotation(`{"app":{"cpu":"250m"}}`)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics()
	t0 := time.Unix(20000, 0)
	m.Set("ns", "p", "app", "n", time.Time{}, spec.For("app", res("100m", "64Mi", "100m", "")), t0)
	const sel = `{container="app",namespace="ns",node="n",pod="p"}`
	a, b := scrape(t, m, t0.Add(10*time.Second)), scrape(t, m, t0.Add(70*time.Second))
	periods := b["container_cpu_cfs_periods_total"+sel] - a["container_cpu_cfs_periods_total"+sel]
	throttled := b["container_cpu_cfs_throttled_periods_total"+sel] - a["container_cpu_cfs_throttled_periods_total"+sel]
	usage := b["container_cpu_usage_seconds_total"+sel] - a["container_cpu_usage_seconds_total"+sel]
	if math.Abs(periods-600) > 1e-6 || math.Abs(throttled/periods-0.6) > 1e-9 || math.Abs(usage-6) > 1e-6 {
		t.Fatalf("over 60 s: periods %v, throttled %v, usage %v; want 600, 360, 6", periods, throttled, usage)
	}
}

func scrape(t *testing.T, m *Metrics, now time.Time) map[string]float64 {
	t.Helper()
	var b strings.Builder
	if err := m.Write(&b, now); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("bad line %q", line)
		}
		out[line[:i]] = v
	}
	return out
}

func TestCountersMonotonicAcrossLoadChanges(t *testing.T) {
	m := NewMetrics()
	t0 := time.Unix(10000, 0)
	started := t0.Add(-10 * time.Second)
	m.Set("ns", "p", "app", "sim-node-0", started, Load{CPU: 0.5, Memory: 100, Throttled: 0.2}, t0)
	const sel = `{container="app",namespace="ns",node="sim-node-0",pod="p"}`
	s0 := scrape(t, m, t0)
	if s0["container_cpu_usage_seconds_total"+sel] != 5 || s0["container_cpu_cfs_periods_total"+sel] != 100 ||
		s0["container_cpu_cfs_throttled_periods_total"+sel] != 20 || s0["container_memory_working_set_bytes"+sel] != 100 {
		t.Fatalf("first sight should integrate since start: %v", s0)
	}
	// Load drops to zero at t0+10s: the counter keeps what it had.
	m.Set("ns", "p", "app", "sim-node-0", started, Load{CPU: 0, Memory: 50}, t0.Add(10*time.Second))
	s1 := scrape(t, m, t0.Add(20*time.Second))
	if got := s1["container_cpu_usage_seconds_total"+sel]; got != 10 {
		t.Fatalf("cpu after change = %v, want 10", got)
	}
	if got := s1["container_memory_working_set_bytes"+sel]; got != 50 {
		t.Fatalf("memory gauge = %v", got)
	}
	// A scrape with an earlier clock never decreases anything.
	s2 := scrape(t, m, t0.Add(5*time.Second))
	for k, v := range s1 {
		if strings.HasSuffix(strings.SplitN(k, "{", 2)[0], "_total") && s2[k] < v {
			t.Fatalf("%s went down: %v -> %v", k, v, s2[k])
		}
	}
	m.RetainPod("ns", "p", nil)
	if len(scrape(t, m, t0)) != 0 {
		t.Fatal("RetainPod(nil) should drop the pod's series")
	}
}

func TestLabelEscaping(t *testing.T) {
	if got := escapeLabel("a\"b\\c\nd"); got != `a\"b\\c\nd` {
		t.Fatalf("got %s", got)
	}
}
