#!/usr/bin/env bash
# Side-by-side comparison (issue 8): replays the same pre-generated pod LIST + WATCH bytes from a
# loopback server (its own process) to each contender (each its own process), interleaved, and writes
# benchmarks/results/: raw.csv (every round, warm-ups flagged), raw.log, machine.txt and README.md.
#
#   benchmarks/run.sh            full comparison (N = 1k 10k 50k 100k, 3 runs)
#   benchmarks/run.sh --smoke    N = 1k 10k, 1 run: checks the harness, not a result
#
# Environment overrides: SIZES, RUNS, EVENTS (watch events per corpus), SEED, SKIP_BUILD=1,
# JVM_FLAGS (the same for every JVM contender).
set -euo pipefail
cd "$(dirname "$0")"
BENCH=$PWD
ROOT=$(cd .. && pwd)

SIZES=${SIZES:-"1000 10000 50000 100000"}
RUNS=${RUNS:-3}
EVENTS=${EVENTS:-20000}
SEED=${SEED:-42}
MODE=full
if [[ "${1:-}" == "--smoke" ]]; then
  SIZES=${SMOKE_SIZES:-"1000 10000"}; RUNS=1; EVENTS=${SMOKE_EVENTS:-5000}; MODE=smoke
fi
JVM_FLAGS=${JVM_FLAGS:-"-Xms1g -Xmx6g -XX:+UseG1GC"}
OUT=$BENCH/results
JAR=$BENCH/target/benchmarks.jar
PKG=io.reactiveinformer.benchmarks.sidebyside

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  # peers (fabric8, official client) build in their own module so their jars never reach ours
  (cd "$ROOT" && mvn -B -q -Ppeers -pl benchmarks,benchmarks/peers -am package -DskipTests)
  (cd "$BENCH/client-go" && go build -o target/client-go-contender .)
  # charts: matplotlib from PyPI in a venv of its own
  if [[ ! -x "$BENCH/target/venv/bin/python" ]] || ! "$BENCH/target/venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
    python3 -m venv "$BENCH/target/venv" && "$BENCH/target/venv/bin/pip" install -q matplotlib || echo "no matplotlib: tables only"
  fi
fi
PY=python3
if [[ -x "$BENCH/target/venv/bin/python" ]]; then PY=$BENCH/target/venv/bin/python; fi
mkdir -p "$OUT"
: > "$OUT/raw.log"

{
  echo "mode: $MODE"
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') x $(nproc)"
  echo "memory: $(free -g | awk '/Mem:/{print $2}') GiB"
  echo "os: $(uname -sr)"
  echo "java: $(java -version 2>&1 | head -1)"
  echo "go: $(go version | cut -d' ' -f3)"
  echo "contenders: reactive-informer $(git -C "$ROOT" rev-parse --short HEAD), fabric8 kubernetes-client 7.9.0, client-java 27.0.0, client-go v0.36.6"
  echo "jvm flags: $JVM_FLAGS"
  echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "sizes: $SIZES; watch events: $EVENTS; runs: $RUNS; seed: $SEED"
} > "$OUT/machine.txt"

# name | command (the server URL is appended, then SUBSCRIBERS WARMUPS ITERATIONS)
contenders() {
  echo "ceiling|java $JVM_FLAGS -cp $JAR $PKG.CeilingContender|1"
  echo "reactive-informer|java $JVM_FLAGS -cp $JAR $PKG.ReactiveInformerContender|1"
  echo "reactive-informer|java $JVM_FLAGS -cp $JAR $PKG.ReactiveInformerContender|10"
  if [[ -f "$BENCH/peers/target/peers.jar" ]]; then
    echo "fabric8|java $JVM_FLAGS -cp $BENCH/peers/target/peers.jar io.reactiveinformer.benchmarks.sidebyside.Fabric8Contender|1"
    echo "fabric8|java $JVM_FLAGS -cp $BENCH/peers/target/peers.jar io.reactiveinformer.benchmarks.sidebyside.Fabric8Contender|10"
    echo "official-java|java $JVM_FLAGS -cp $BENCH/peers/target/peers.jar io.reactiveinformer.benchmarks.sidebyside.OfficialJavaContender|1"
    echo "official-java|java $JVM_FLAGS -cp $BENCH/peers/target/peers.jar io.reactiveinformer.benchmarks.sidebyside.OfficialJavaContender|10"
  fi
  if [[ -x "$BENCH/client-go/target/client-go-contender" ]]; then
    # list + watch like the other contenders (the WatchListClient streaming list is not replayed)
    echo "client-go|env KUBE_FEATURE_WatchListClient=false $BENCH/client-go/target/client-go-contender|1"
    echo "client-go|env KUBE_FEATURE_WatchListClient=false $BENCH/client-go/target/client-go-contender|10"
  fi
}

SERVER_PID=
stop_server() { if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=; fi; }
trap stop_server EXIT

mapfile -t LIST < <(contenders)
for n in $SIZES; do
  dir=$BENCH/target/replay/n$n-m$EVENTS-s$SEED
  java -cp "$JAR" $PKG.Corpus "$dir" "$n" "$EVENTS" "$SEED" > /dev/null
  java -Xmx4g -cp "$JAR" $PKG.ReplayServer "$dir" > "$BENCH/target/replay-server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 50); do grep -q listening "$BENCH/target/replay-server.log" 2>/dev/null && break; sleep 0.2; done
  url=$(sed -n 's/^listening //p' "$BENCH/target/replay-server.log")
  for run in $(seq "$RUNS"); do
    count=${#LIST[@]}
    for i in $(seq 0 $((count - 1))); do
      # interleaved: each run starts one contender later, so no contender always runs first
      entry=${LIST[$(((i + run - 1) % count))]}
      IFS='|' read -r name cmd subs <<< "$entry"
      echo ">> n=$n run=$run $name x$subs (load $(cut -d' ' -f1 /proc/loadavg))" | tee -a "$OUT/raw.log"
      if ! timeout 900 $cmd "$url" "$subs" 1 1 2>>"$OUT/raw.log" | sed "s/^RESULT /RESULT run=$run load=$(cut -d' ' -f1 /proc/loadavg) /" | tee -a "$OUT/raw.log"; then
        echo "!! $name x$subs failed at n=$n" | tee -a "$OUT/raw.log"
      fi
    done
  done
  stop_server
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"
"$PY" "$BENCH/summarize.py" "$OUT"
echo "results in $OUT"
