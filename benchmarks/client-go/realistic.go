package main

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	v1 "k8s.io/api/core/v1"
)

// realisticIdle is how long the synced informer runs before the churn, as RealisticLoad.IDLE.
const realisticIdle = 10 * time.Second

// eventClock counts the watch events after the sync by second since then, as RealisticLoad.EventClock;
// relists counts the lists after it (client-go reports no failed watch, so there is no restarts column).
type eventClock struct {
	counting    atomic.Bool
	origin      time.Time
	perSecond   [3600]atomic.Int64
	first, last atomic.Int64
	relists     atomic.Int64
}

func (c *eventClock) event(e watch.Event) {
	if !c.counting.Load() || e.Type == watch.Bookmark {
		return
	}
	now := time.Since(c.origin).Nanoseconds()
	c.first.CompareAndSwap(-1, now)
	c.last.Store(now)
	c.perSecond[min(int(now/1e9), len(c.perSecond)-1)].Add(1)
}

// realistic is one round of benchmarks/realistic-load.sh for client-go, with the protocol and the output
// columns of RealisticLoad.java: KUBECONFIG, CONTEXT, NAMESPACE, READY and STOP from the environment.
func realistic() {
	loading := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: os.Getenv("KUBECONFIG")},
		&clientcmd.ConfigOverrides{CurrentContext: os.Getenv("CONTEXT")})
	config, err := loading.ClientConfig()
	if err != nil {
		panic(err)
	}
	clientset := kubernetes.NewForConfigOrDie(config)
	namespace := os.Getenv("NAMESPACE")
	pods := clientset.CoreV1().Pods(namespace)

	baseline := heapInUse()
	clock := &eventClock{}
	clock.first.Store(-1)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
			if clock.counting.Load() {
				clock.relists.Add(1)
			}
			return pods.List(ctx, options)
		},
		WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
			w, err := pods.Watch(ctx, options)
			if err != nil {
				return nil, err
			}
			return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
				clock.event(e)
				return e, true
			}), nil
		},
	}
	informer := cache.NewSharedIndexInformer(lw, &v1.Pod{}, 0, cache.Indexers{})
	// the initial list's adds may reach the handler after synced, and are not the churn's
	var notifications atomic.Int64
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(_ any, initial bool) {
			if !initial {
				notifications.Add(1)
			}
		},
		UpdateFunc: func(_, _ any) { notifications.Add(1) },
		DeleteFunc: func(any) { notifications.Add(1) },
	}); err != nil {
		panic(err)
	}

	stopPeak := startPeakHeap()
	cpu := cpuSeconds()
	start := time.Now()
	stop := make(chan struct{})
	go informer.Run(stop)
	waitSynced(informer)
	synced := time.Since(start)
	syncedCPU := cpuSeconds()
	syncPeak := stopPeak() - baseline
	listed := len(informer.GetStore().ListKeys())
	clock.origin = time.Now()
	clock.counting.Store(true)
	time.Sleep(realisticIdle)
	idleCPU := cpuSeconds() - syncedCPU

	stopPeak = startPeakHeap()
	churnStartCPU := cpuSeconds()
	if err := os.WriteFile(os.Getenv("READY"), nil, 0o644); err != nil {
		panic(err)
	}
	for {
		if _, err := os.Stat(os.Getenv("STOP")); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	churnPeak := stopPeak() - baseline
	churnCPU := cpuSeconds() - churnStartCPU

	convergeStart := time.Now()
	equal := false
	for !equal && time.Since(convergeStart) < 60*time.Second {
		equal = sameVersions(informer.GetStore().List(), pods)
		if !equal {
			time.Sleep(200 * time.Millisecond)
		}
	}
	converged := time.Since(convergeStart).Milliseconds()
	retained := heapInUse() - baseline

	var events, peak int64
	for i := range clock.perSecond {
		n := clock.perSecond[i].Load()
		events += n
		peak = max(peak, n)
	}
	window := 0.0
	if clock.first.Load() >= 0 {
		window = float64(clock.last.Load()-clock.first.Load()) / 1e9
	}
	perSecond := 0.0
	if window > 0 {
		perSecond = float64(events) / window
	}
	fmt.Printf("%d,%d,%d,%s,%d,%d,%d,%.1f,%.0f,%d,%d,n/a,n/a,%s,%s,%d,%d,n/a,%t\n", listed, synced.Milliseconds(),
		int64((syncedCPU-cpu)*1000), mb(syncPeak), int64(idleCPU*1000), events, notifications.Load(),
		window, perSecond, peak, int64(churnCPU*1000), mb(churnPeak), mb(retained), converged,
		clock.relists.Load(), equal)
	close(stop)
}

// sameVersions is whether the cached pods have the names and resourceVersions of a fresh LIST's.
func sameVersions(cached []any, pods interface {
	List(context.Context, metav1.ListOptions) (*v1.PodList, error)
}) bool {
	list, err := pods.List(context.Background(), metav1.ListOptions{})
	if err != nil || len(list.Items) != len(cached) {
		return false
	}
	versions := make(map[string]string, len(cached))
	for _, o := range cached {
		pod := o.(*v1.Pod)
		versions[pod.Name] = pod.ResourceVersion
	}
	for _, pod := range list.Items {
		if versions[pod.Name] != pod.ResourceVersion {
			return false
		}
	}
	return true
}
