// Command qos writes test/data/qos_vectors.json: generated pods with the QoS
// class upstream's ComputePodQOS gives them with the PodLevelResources gate
// on and off, so Attune's C++ QoS is checked against the kubelet's own code.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
)

type qosCase struct {
	Pod      *v1.Pod `json:"pod"`
	GateOn   string  `json:"gate_on"`
	GateOff  string  `json:"gate_off"`
	HasLevel bool    `json:"has_pod_level"`
}

type vectors struct {
	Source string    `json:"source"`
	Cases  []qosCase `json:"cases"`
}

var (
	cpuValues = []string{"0", "100m", "250m", "500m", "1", "1000m", "2", "1500m"}
	memValues = []string{"0", "64Mi", "128Mi", "256Mi", "268435456", "1Gi", "1024Mi"}
	otherRes  = []v1.ResourceName{"ephemeral-storage", "hugepages-2Mi", "example.com/gpu"}
)

func pick(r *rand.Rand, xs []string) resource.Quantity { return resource.MustParse(xs[r.Intn(len(xs))]) }

// requirements draws a resource block; biased towards the shapes that
// matter (requests == limits, limits only, one resource missing).
func requirements(r *rand.Rand) v1.ResourceRequirements {
	rr := v1.ResourceRequirements{}
	mode := r.Intn(7)
	list := func() v1.ResourceList {
		l := v1.ResourceList{}
		if r.Intn(5) != 0 {
			l[v1.ResourceCPU] = pick(r, cpuValues)
		}
		if r.Intn(5) != 0 {
			l[v1.ResourceMemory] = pick(r, memValues)
		}
		if r.Intn(6) == 0 {
			l[otherRes[r.Intn(len(otherRes))]] = resource.MustParse("1Gi")
		}
		return l
	}
	switch mode {
	case 0: // nothing
	case 1: // requests only
		rr.Requests = list()
	case 2: // limits only
		rr.Limits = list()
	case 3, 4: // guaranteed-shaped
		l := list()
		rr.Requests = l
		rr.Limits = l.DeepCopy()
	default: // independent
		rr.Requests = list()
		rr.Limits = list()
	}
	return rr
}

func container(r *rand.Rand, name string) v1.Container {
	return v1.Container{Name: name, Image: "busybox", Resources: requirements(r)}
}

// guaranteedShaped gives every container requests == limits on cpu and
// memory, so whole-pod Guaranteed (rare when containers are drawn
// independently) is well covered, with the odd zero or missing value.
func guaranteedShaped(r *rand.Rand, p *v1.Pod) {
	shape := func(c *v1.Container) {
		l := v1.ResourceList{v1.ResourceCPU: pick(r, cpuValues), v1.ResourceMemory: pick(r, memValues)}
		if r.Intn(10) == 0 {
			delete(l, v1.ResourceMemory)
		}
		c.Resources = v1.ResourceRequirements{Requests: l, Limits: l.DeepCopy()}
		if r.Intn(10) == 0 {
			c.Resources.Requests = nil // limits only
		}
	}
	for i := range p.Spec.Containers {
		shape(&p.Spec.Containers[i])
	}
	for i := range p.Spec.InitContainers {
		shape(&p.Spec.InitContainers[i])
	}
}

func pod(r *rand.Rand, i int) *v1.Pod {
	p := &v1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: "default"},
	}
	for c := 0; c < 1+r.Intn(3); c++ {
		p.Spec.Containers = append(p.Spec.Containers, container(r, fmt.Sprintf("c%d", c)))
	}
	for c := 0; c < r.Intn(3); c++ {
		ic := container(r, fmt.Sprintf("i%d", c))
		if r.Intn(2) == 0 {
			always := v1.ContainerRestartPolicyAlways
			ic.RestartPolicy = &always
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, ic)
	}
	if r.Intn(3) == 0 {
		guaranteedShaped(r, p)
	}
	if r.Intn(2) == 0 {
		rr := requirements(r)
		p.Spec.Resources = &rr
	}
	return p
}

// classify runs ComputePodQOS with the gate set; the in-place envelope gate
// depends on PodLevelResources, so it follows it.
func classify(p *v1.Pod, gate bool) string {
	if err := utilfeature.DefaultMutableFeatureGate.Set(fmt.Sprintf("PodLevelResources=%t,InPlacePodLevelResourcesVerticalScaling=%t", gate, gate)); err != nil {
		panic(err)
	}
	return string(qos.ComputePodQOS(p))
}

func main() {
	out := flag.String("out", "qos_vectors.json", "output file")
	n := flag.Int("n", 3000, "number of generated pods")
	flag.Parse()
	r := rand.New(rand.NewSource(20261129))
	v := vectors{Source: "k8s.io/kubernetes v1.36.3 pkg/apis/core/v1/helper/qos.ComputePodQOS"}
	for i := 0; i < *n; i++ {
		p := pod(r, i)
		v.Cases = append(v.Cases, qosCase{Pod: p, GateOn: classify(p, true), GateOff: classify(p, false), HasLevel: p.Spec.Resources != nil})
	}
	f, err := os.Create(*out)
	if err != nil {
		panic(err)
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}
	counts := map[string]int{}
	for _, c := range v.Cases {
		counts["on/"+c.GateOn]++
		counts["off/"+c.GateOff]++
	}
	fmt.Fprintf(os.Stderr, "wrote %d pods to %s: %v\n", len(v.Cases), *out, counts)
}
