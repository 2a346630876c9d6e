// Command streaminglist times one client-go ConfigMap informer from start to synced against a real API
// server, as StreamingListVsList times ours: the beside-us measure of whether a client can sync from a
// streaming list (KEP-3157) as fast as from a LIST. client-go reads the mode from the environment at start
// (KUBE_FEATURE_WatchListClient=true streams, false lists), so each run is one process and one mode;
// benchmarks/streaming-list.sh alternates them.
//
//	streaminglist KUBECONFIG CONTEXT NAMESPACE
//
// Prints "client-go,<mode>,<objects>,<synced ms>"; synced is polled every millisecond.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: streaminglist KUBECONFIG CONTEXT NAMESPACE")
		os.Exit(2)
	}
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: os.Args[1]},
		&clientcmd.ConfigOverrides{CurrentContext: os.Args[2]}).ClientConfig()
	if err != nil {
		panic(err)
	}
	config.QPS, config.Burst = 1000, 1000
	start := time.Now()
	client := kubernetes.NewForConfigOrDie(config)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(os.Args[3]))
	informer := factory.Core().V1().ConfigMaps().Informer()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory.Start(ctx.Done())
	for !informer.HasSynced() {
		time.Sleep(time.Millisecond)
	}
	synced := time.Since(start)
	mode := "list"
	if os.Getenv("KUBE_FEATURE_WatchListClient") == "true" {
		mode = "streaming"
	}
	fmt.Printf("client-go,%s,%d,%d\n", mode, len(informer.GetStore().ListKeys()), synced.Milliseconds())
}
