#!/usr/bin/env bash
# Realistic load (issue 34): a pod informer over pods that Deployments own, that kube-scheduler binds and that
# kwok's fake nodes run, on a test environment with a whole control plane. Per round and contender, in a
# process of its own (RealisticLoad; client-go's contender in BENCH_MODE=realistic): time to synced over every
# pod, then the events it receives while a rollout replaces every pod (an annotation of the pod template
# changes), then its cache compared with a fresh LIST. Writes
# benchmarks/results/realistic_load_p$PODS.csv (every round) and benchmarks/results/realistic-load.md.
#
#   benchmarks/realistic-load.sh                                      20 Deployments x 500 pods on 100 nodes, RUNS=3
#   DEPLOYMENTS=5 REPLICAS=100 NODES=10 RUNS=1 benchmarks/realistic-load.sh   smoke: checks the phase, not a result
#
# Run it on an idle machine, as benchmarks/run.sh: the control plane shares the cores with the contender, and
# the events/s are the rate the control plane produced them at, which the contender can only keep up with.
# CONTENDERS: any of "reactive-informer client-go", each round in that order, the next round rotated.
# SKIP_BUILD=1 uses the benchmarks jar as built; OUT is the results directory.
# The whole script is one function, read in full before it runs (as run.sh): editing this file during a run
# cannot change what the run does.
main() {
set -euo pipefail
cd "$(dirname "$0")/.."

DEPLOYMENTS=${DEPLOYMENTS:-20} REPLICAS=${REPLICAS:-500} NODES=${NODES:-100} RUNS=${RUNS:-3}
CONTENDERS=${CONTENDERS:-"reactive-informer client-go"}
SETTLE_TIMEOUT_S=${SETTLE_TIMEOUT_S:-900}
JVM_FLAGS=${JVM_FLAGS:-"-Xms1g -Xmx6g -XX:+UseG1GC"}
OUT=${OUT:-benchmarks/results}
PODS=$((DEPLOYMENTS * REPLICAS))
NS=realistic-load
csv=$OUT/realistic_load_p$PODS.csv
md=$OUT/realistic-load.md

if [[ -z "${SKIP_BUILD:-}" ]]; then
  mvn -B -q -pl benchmarks -am package -DskipTests
fi
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
ci_running=$([[ -f /tmp/ci1.done ]] && echo no || echo "yes (/tmp/ci1.done absent)")
testenv/build.sh >/dev/null
env_dir="$(TESTENV_OWNER_PID=$$ TESTENV_NODES=$NODES testenv/testenv.sh start --control-plane | tail -n 1)"
work=$(mktemp -d)
trap 'testenv/testenv.sh stop "$env_dir"; rm -rf "$work"' EXIT
kubectl="$(sed -n 's/^binDir=//p' "$env_dir/testenv.properties")/kubectl"
k() { "$kubectl" --kubeconfig="$env_dir/kubeconfig" -n "$NS" "$@"; }

deployments() {
  local d
  for (( d = 0; d < DEPLOYMENTS; d++ )); do
    cat <<EOF
apiVersion: apps/v1
kind: Deployment
metadata: {name: app-$d}
spec:
  replicas: $REPLICAS
  selector: {matchLabels: {app: app-$d}}
  template:
    metadata: {labels: {app: app-$d}}
    spec:
      nodeSelector: {type: kwok}
      containers: [{name: app, image: example.invalid/app:1}]
---
EOF
  done
}

# Settled: every Deployment rolled out, and exactly its pods left, all Running and none terminating.
wait_settled() {
  local deadline=$((SECONDS + SETTLE_TIMEOUT_S)) d states
  for (( d = 0; d < DEPLOYMENTS; d++ )); do
    k rollout status "deploy/app-$d" --timeout="$((deadline - SECONDS))s" >/dev/null
  done
  while :; do
    states=$(k get pods --no-headers -o custom-columns=P:.status.phase,D:.metadata.deletionTimestamp | sort | uniq -c)
    [[ "$(echo "$states" | awk '{$1=$1}; 1')" == "$PODS Running <none>" ]] && return 0
    (( SECONDS < deadline )) || { echo "realistic-load: not settled after ${SETTLE_TIMEOUT_S}s: $states" >&2; return 1; }
    sleep 2
  done
}

"$kubectl" --kubeconfig="$env_dir/kubeconfig" create namespace "$NS" >/dev/null
start=$SECONDS
deployments | k apply -f - >/dev/null
wait_settled
echo "realistic-load: $PODS pods Running on $NODES nodes after $((SECONDS - start)) s" >&2

# run_round CONTENDER ROUND: one process from start to synced, the rollout once it says so, its line once settled
run_round() {
  local contender=$1 round=$2 pid d start
  rm -f "$work/ready" "$work/stop"
  case $contender in
    reactive-informer)
      # shellcheck disable=SC2086 # JVM_FLAGS is a list of flags
      java $JVM_FLAGS -Dkubeconfig="$env_dir/kubeconfig" -Dcontext=admin -Dnamespace="$NS" \
        -Dready="$work/ready" -Dstop="$work/stop" \
        -cp benchmarks/target/benchmarks.jar io.reactiveinformer.benchmarks.watch.RealisticLoad \
        >"$work/out" 2> >(grep -v ' INFO \| DEBUG ' >&2) & ;;
    client-go)
      # a LIST then a WATCH, as the JVM contenders (the same as run.sh)
      env KUBE_FEATURE_WatchListClient=false BENCH_MODE=realistic KUBECONFIG="$env_dir/kubeconfig" CONTEXT=admin \
        NAMESPACE="$NS" READY="$work/ready" STOP="$work/stop" benchmarks/client-go/target/client-go-contender \
        >"$work/out" & ;;
    *) echo "realistic-load: unknown contender $contender" >&2; exit 1 ;;
  esac
  pid=$!
  until [[ -f "$work/ready" ]]; do
    kill -0 "$pid" 2>/dev/null || { wait "$pid"; echo "realistic-load: $contender exited before synced" >&2; exit 1; }
    sleep 0.2
  done
  start=$SECONDS
  for (( d = 0; d < DEPLOYMENTS; d++ )); do
    k patch "deploy/app-$d" --type=merge \
      -p "{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"bench/rollout\":\"$contender-$round\"}}}}}" >/dev/null
  done
  wait_settled
  touch "$work/stop"
  wait "$pid"
  echo "$contender,$round,$(cat "$work/out"),$((SECONDS - start))" | tee -a "$csv"
}

if [[ " $CONTENDERS " == *" client-go "* ]]; then
  (cd benchmarks/client-go && go build -o target/client-go-contender .)
fi
echo "contender,round,$(java -cp benchmarks/target/benchmarks.jar io.reactiveinformer.benchmarks.watch.RealisticLoad --columns),rollout_s" >"$csv"
read -ra order <<<"$CONTENDERS"
for (( round = 1; round <= RUNS; round++ )); do
  for contender in "${order[@]}"; do
    run_round "$contender" "$round"
  done
  # alternate who goes first, so that neither always meets the etcd history the other's rollout left
  order=("${order[@]:1}" "${order[0]}")
done

machine="$(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)), $(free -g | awk '/^Mem:/ {print $2}') GiB,\
 $(java -version 2>&1 | head -n 1), commit $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ), load at start\
 $load_at_start, the lead's CI running beside it: $ci_running"
setup="$PODS pods ($DEPLOYMENTS Deployments x $REPLICAS replicas) on $NODES kwok nodes, JVM flags $JVM_FLAGS"
python3 - "$csv" "$md" "$setup" "$machine" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = [("synced_ms", "synced ms"), ("sync_cpu_ms", "sync CPU ms"), ("sync_peak_heap_mb", "sync peak heap MB"),
        ("idle_cpu_ms", "idle CPU ms (10 s)"), ("watch_events", "churn events"), ("notifications", "notifications"),
        ("churn_s", "events window s"), ("events_per_s", "events/s"), ("peak_events_per_s", "peak events/s (1 s)"),
        ("churn_cpu_ms", "churn CPU ms"), ("churn_jit_cpu_ms", "of which JIT"), ("churn_gc_cpu_ms", "of which GC"), ("churn_peak_heap_mb", "churn peak heap MB"), ("retained_mb", "retained MB"),
        ("rollout_s", "rollout s"), ("converged_ms", "cache = LIST after ms"), ("relists", "relists"), ("restarts", "watch restarts"),
        ("cache_equals_list", "cache = LIST")]
out = ["# Realistic load: pods of Deployments moved through their lifecycle by kwok", "",
       sys.argv[3] + ". A test environment with etcd, kube-apiserver, kube-controller-manager, kube-scheduler and"
       " kwok (`testenv.sh start --control-plane`), all on the same cores as the contender. Per round each contender"
       " in turn, in a fresh process, starts one pod informer on the namespace with one no-op handler (this"
       " library: unbounded; client-go: a LIST then a WATCH, WatchListClient off, as in run.sh). Synced: start to"
       " synced, in a cold process (as a controller starts). Idle CPU: the process's CPU over the 10 s"
       " after synced, before any change. Then the script changes an annotation of every pod template, so that"
       " the Deployment controller replaces every pod, and waits until every Deployment is rolled out and exactly"
       " the Deployments' pods are Running and none terminating (rollout s, from the first patch). Churn events:"
       " watch events (no bookmarks) after synced; events/s: those over the window from the first to the last"
       " one, i.e. the rate the control plane produced them at; notifications: what the handler was called with"
       " after synced. Churn CPU: the process's, from the first patch to the settled rollout; of which JIT and GC:"
       " the CPU of the JVM's compiler threads (a lower bound) and collector threads over it, from /proc. Cache = LIST: the cache's names and resourceVersions equal a fresh LIST's once the rollout settled (after ms: how long"
       " until it did, its LISTs included). Heap above the baseline before the informer; JVM: used heap, peaks from GC notifications;"
       " client-go: heap objects sampled every 2 ms for peaks, HeapInuse after GC retained, as in run.sh."
       " Relists and watch restarts after synced (client-go reports no watch restart).", "",
       "Reproduce: `benchmarks/realistic-load.sh` (DEPLOYMENTS, REPLICAS, NODES, RUNS, CONTENDERS); every round in "
       + sys.argv[1].split("/")[-1] + ".", "",
       "| contender | round | " + " | ".join(c[1] for c in cols) + " |",
       "|---|---|" + "---|" * len(cols)]
for r in rows:
    out.append(f"| {r['contender']} | {r['round']} | " + " | ".join(r[c[0]] for c in cols) + " |")
def median(rounds, column):
    try:
        return f"{statistics.median(float(r[column]) for r in rounds):g}"
    except ValueError:
        return "/".join(sorted({r[column] for r in rounds}))
for contender in dict.fromkeys(r["contender"] for r in rows):
    rounds = [r for r in rows if r["contender"] == contender]
    out.append(f"| **{contender}, median** | {len(rounds)} | " + " | ".join(median(rounds, c[0]) for c in cols) + " |")
out += ["", "Machine: " + sys.argv[4] + ".", ""]
open(sys.argv[2], "w").write("\n".join(out))
EOF
echo "realistic-load: rounds in $csv, table in $md" >&2
}
main "$@"
