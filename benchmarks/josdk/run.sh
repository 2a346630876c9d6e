#!/usr/bin/env bash
# The controller side-by-side with the Java Operator SDK (issue 32): the same ConfigMap-annotating controller
# on reactive-controller and on JOSDK 5.3.2, each in its own JVM, against one real kube-apiserver (testenv).
# Writes benchmarks/results/josdk-side-by-side.md; every RESULT line goes to benchmarks/target/josdk/raw.log.
#
#   benchmarks/josdk/run.sh                 build, start a testenv kube-apiserver, run every phase, stop it
#   KUBECONFIG_BENCH=FILE benchmarks/josdk/run.sh   use that cluster instead (its current context)
#
# Overrides: N (ConfigMaps, 10000), WRITES (objects changed per throughput round, N), WORKERS ("1 4 16"), RUNS (1), LAT_RATE (changes/s, 200), LAT_COUNT (2000),
# LAT_WORKERS (4), FAILOVER_ROUNDS (5), FAILOVER_N (N), LEASE_DURATION_MS (10000), RENEW_DEADLINE_MS (8000),
# RETRY_PERIOD_MS (2000), PHASES ("throughput latency failover"), JVM_FLAGS, OUT, SKIP_BUILD=1.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BENCH=$(dirname "$HERE")
ROOT=$(dirname "$BENCH")
N=${N:-10000}
# the throughput rounds change this many of the N objects (a write-bound round costs K / the server's write rate)
WRITES=${WRITES:-$N}
WORKERS=${WORKERS:-"1 4 16"}
RUNS=${RUNS:-1}
LAT_RATE=${LAT_RATE:-200}
LAT_COUNT=${LAT_COUNT:-2000}
LAT_WORKERS=${LAT_WORKERS:-4}
FAILOVER_ROUNDS=${FAILOVER_ROUNDS:-5}
FAILOVER_N=${FAILOVER_N:-$N}
export CTRL_LEASE_DURATION_MS=${LEASE_DURATION_MS:-10000}
export CTRL_RENEW_DEADLINE_MS=${RENEW_DEADLINE_MS:-8000}
export CTRL_RETRY_PERIOD_MS=${RETRY_PERIOD_MS:-2000}
PHASES=${PHASES:-"throughput latency failover"}
JVM_FLAGS=${JVM_FLAGS:-"-Xms1g -Xmx6g -XX:+UseG1GC"}
OUT=${OUT:-$BENCH/results/josdk-side-by-side.md}
WORK=$BENCH/target/josdk
PKG=io.reactiveinformer.benchmarks.sidebyside
JAR=$BENCH/target/benchmarks.jar
OURS="java $JVM_FLAGS -cp $JAR $PKG.ReactiveControllerContender"
JOSDK="java $JVM_FLAGS -cp $BENCH/josdk/target/josdk.jar $PKG.JosdkContender"
CHURN="java -cp $JAR $PKG.ConfigMapChurn"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  # JOSDK and its fabric8 (7.6.1) build in a module of their own, like the peers: -Ppeers
  (cd "$ROOT" && mvn -B -q -Ppeers -pl benchmarks,benchmarks/josdk -am package -DskipTests)
fi
mkdir -p "$WORK"
RAW=$WORK/raw.log
: > "$RAW"

ENV_DIR=
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  if [[ -n "$ENV_DIR" ]]; then "$ROOT/testenv/testenv.sh" stop "$ENV_DIR" > /dev/null 2>&1 || true; fi
}
trap cleanup EXIT
if [[ -n "${KUBECONFIG_BENCH:-}" ]]; then
  export KUBECONFIG=$KUBECONFIG_BENCH
  SERVER="the cluster of $KUBECONFIG_BENCH"
else
  ENV_DIR=$("$ROOT/testenv/testenv.sh" start | tail -1)
  # the token user: fabric8 cannot read the admin user's EC client key without Bouncy Castle, and both
  # contenders must authenticate alike
  sed 's/^current-context:.*/current-context: token/' "$ENV_DIR/kubeconfig" > "$WORK/kubeconfig"
  export KUBECONFIG=$WORK/kubeconfig
  SERVER="kube-apiserver and etcd of $(basename "$(sed -n 's/^binDir=//p' "$ENV_DIR/testenv.properties")") (testenv, --unsafe-no-fsync), token user"
fi
NS=bench-ctrl-$(date +%s)
export CTRL_NS=$NS
BEGAN=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
echo "setup: $($CHURN setup "$NS" "$N" 2>>"$WORK/stderr.log")" | tee -a "$RAW"

# wait_line FILE PATTERN SECONDS PID: 0 once FILE has a line starting with PATTERN
wait_line() {
  for _ in $(seq $(( $3 * 10 ))); do
    grep -q "^$2" "$1" 2>/dev/null && return 0
    kill -0 "$4" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

contenders() { # rotated by $1 so that neither always runs first
  if (( $1 % 2 == 0 )); then printf '%s\n' "reactive-controller|$OURS" "josdk|$JOSDK"
  else printf '%s\n' "josdk|$JOSDK" "reactive-controller|$OURS"; fi
}

if [[ " $PHASES " == *" throughput "* ]]; then
  # WRITES objects are set to a new data.v with no controller running; the controller then starts, caches
  # all N and writes those (its writes per second, and its retained heap once converged)
  i=0
  for RUN in $(seq "$RUNS"); do
    for W in $WORKERS; do
      while IFS='|' read -r name cmd; do
        i=$((i + 1))
        target=t$i
        echo ">> throughput $name workers=$W run=$RUN (load $(cut -d' ' -f1 /proc/loadavg), $(date +%T)); $($CHURN bump "$NS" "$WRITES" "$target" 2>>"$WORK/stderr.log")" | tee -a "$RAW"
        CTRL_MODE=throughput CTRL_N=$N CTRL_WRITES=$WRITES CTRL_WORKERS=$W CTRL_TARGET=$target timeout 900 $cmd 2>>"$WORK/stderr.log" \
          | grep '^RESULT' | sed "s/^RESULT /RESULT run=$RUN load=$(cut -d' ' -f1 /proc/loadavg) /" | tee -a "$RAW" || true
      done < <(contenders "$((RUN + W))")
    done
  done
fi

if [[ " $PHASES " == *" latency "* ]]; then
  # a running, converged controller; the churner changes LAT_COUNT distinct objects at LAT_RATE/s
  for RUN in $(seq "$RUNS"); do
    while IFS='|' read -r name cmd; do
      log=$WORK/latency-$name-$RUN.log
      CTRL_MODE=latency CTRL_N=$N CTRL_WORKERS=$LAT_WORKERS CTRL_LAT_COUNT=$LAT_COUNT CTRL_DEADLINE_S=300 \
        $cmd > "$log" 2>>"$WORK/stderr.log" &
      pid=$!; PIDS+=($pid)
      if wait_line "$log" READY 600 "$pid"; then
        echo ">> latency $name run=$RUN (load $(cut -d' ' -f1 /proc/loadavg), $(date +%T)); $($CHURN pace "$NS" "$N" "$LAT_RATE" "$LAT_COUNT" 2>>"$WORK/stderr.log")" | tee -a "$RAW"
      fi
      wait "$pid" || true
      grep '^RESULT' "$log" | sed "s/^RESULT /RESULT run=$RUN rate=$LAT_RATE /" | tee -a "$RAW" || true
    done < <(contenders "$RUN")
  done
fi

if [[ " $PHASES " == *" failover "* ]]; then
  # two replicas with the same lease timings; the leader's JVM is killed (SIGKILL: no release) once the
  # standby is up, and the failover is the time from the kill to the standby's first reconcile
  for round in $(seq "$FAILOVER_ROUNDS"); do
    while IFS='|' read -r name cmd; do
      lease=bench-$name-$round
      a=$WORK/failover-$name-$round-a.log b=$WORK/failover-$name-$round-b.log
      CTRL_MODE=failover CTRL_N=$FAILOVER_N CTRL_LEASE=$lease CTRL_IDENTITY=a $cmd > "$a" 2>>"$WORK/stderr.log" &
      pa=$!; PIDS+=($pa)
      if ! wait_line "$a" FIRST_RECONCILE 120 "$pa"; then echo "!! failover $name $round: no leader" | tee -a "$RAW"; kill -9 "$pa" || true; continue; fi
      CTRL_MODE=failover CTRL_N=$FAILOVER_N CTRL_LEASE=$lease CTRL_IDENTITY=b $cmd > "$b" 2>>"$WORK/stderr.log" &
      pb=$!; PIDS+=($pb)
      wait_line "$b" STARTED 120 "$pb" || true
      # the standby's informer lists and its first campaign attempts fail while a holds the Lease
      sleep $(( CTRL_LEASE_DURATION_MS / 1000 ))
      if grep -q '^FIRST_RECONCILE' "$b"; then echo "!! failover $name $round: the standby reconciled while a led" | tee -a "$RAW"; fi
      killed=$(date +%s%3N)
      kill -9 "$pa"; wait "$pa" 2>/dev/null || true
      if wait_line "$b" FIRST_RECONCILE 120 "$pb"; then
        first=$(sed -n 's/^FIRST_RECONCILE //p' "$b" | head -1)
        echo "RESULT run=$round load=$(cut -d' ' -f1 /proc/loadavg) contender=$name mode=failover n=$FAILOVER_N failover_ms=$((first - killed))" | tee -a "$RAW"
      else
        echo "!! failover $name $round: the standby never reconciled" | tee -a "$RAW"
      fi
      kill -9 "$pb" 2>/dev/null || true; wait "$pb" 2>/dev/null || true
    done < <(contenders "$round")
  done
fi

MACHINE="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') x $(nproc); $(java -version 2>&1 | head -1); load at start $LOAD_START, at end $(cut -d' ' -f1-3 /proc/loadavg); $(( $(date +%s) - BEGAN )) s"
SETTINGS="server: $SERVER; N=$N cached, $WRITES changed per throughput round; workers $WORKERS; runs $RUNS; latency $LAT_COUNT changes at $LAT_RATE/s with $LAT_WORKERS workers; failover $FAILOVER_ROUNDS rounds at N=$FAILOVER_N, lease $CTRL_LEASE_DURATION_MS ms, renew deadline $CTRL_RENEW_DEADLINE_MS ms, retry $CTRL_RETRY_PERIOD_MS ms; JVM flags $JVM_FLAGS; commit $(git -C "$ROOT" rev-parse --short HEAD)"
python3 "$HERE/summarize.py" "$RAW" "$OUT" "$MACHINE" "$SETTINGS"
echo "results in $OUT"
