// Command k8s is a multi-call binary holding the real upstream control-plane
// components of one Kubernetes minor. It is test infrastructure for Attune's
// e2e suite, the demo and the benchmarks: only the nodes are simulated.
//
// Usage: k8s <etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kubectl> [flags]
// A symlink named after a component runs that component.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"go.etcd.io/etcd/server/v3/etcdmain"
	"k8s.io/component-base/cli"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	kcm "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	name := filepath.Base(os.Args[0])
	args := os.Args[1:]
	if name == "k8s" {
		if len(args) == 0 {
			fmt.Fprintln(os.Stderr, "usage: k8s <etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kubectl> [flags]")
			os.Exit(2)
		}
		name, args = args[0], args[1:]
	}
	// Components (kubectl plugins, etcd) read os.Args directly: make it look
	// like the component was invoked by its own name.
	os.Args = append([]string{name}, args...)
	switch name {
	case "etcd":
		// etcdmain.Main parses os.Args itself, with the program name first.
		etcdmain.Main(os.Args)
	case "kube-apiserver":
		cmd := apiserver.NewAPIServerCommand()
		os.Exit(cli.Run(cmd))
	case "kube-controller-manager":
		cmd := kcm.NewControllerManagerCommand()
		os.Exit(cli.Run(cmd))
	case "kube-scheduler":
		cmd := scheduler.NewSchedulerCommand()
		os.Exit(cli.Run(cmd))
	case "kubectl":
		cmd := kubectlcmd.NewDefaultKubectlCommand()
		if err := cli.RunNoErrOutput(cmd); err != nil {
			kubectlutil.CheckErr(err)
		}
	default:
		fmt.Fprintf(os.Stderr, "k8s: unknown component %q\n", name)
		os.Exit(2)
	}
}
