#!/usr/bin/env bash
# The heap a relist takes with the store full (RelistPeak): an informer syncs N pods from a replay server, then
# the server ends the watch with a 410 and answers the relist with the same list in which 0 %, 10 % or 100 % of
# the pods changed. Then the same for each peer, in a process of its own: fabric8 and the official Java client
# (PeerRelistPeak), client-go (its contender in BENCH_MODE=relist). Writes benchmarks/results/relist_peak_n$N.csv
# (ours) and relist_peak_n${N}_<contender>.csv, and prints the medians.
#
#   benchmarks/relist-peak.sh                 N=100000 pods, RUNS=3 rounds (after one warm-up round)
#   N=10000 RUNS=1 WARMUP=false benchmarks/relist-peak.sh   (WARMUP=false: no warm-up round)
#   CONTENDERS="reactive-informer client-go"   only these (default: reactive-informer fabric8 official-java client-go)
#
# Run it on an idle machine, as benchmarks/run.sh. SKIP_BUILD=1 uses the benchmarks jar as built; JAR=... runs
# another build of it (e.g. one of an earlier commit, for a before/after).
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-100000} RUNS=${RUNS:-3} WARMUP=${WARMUP:-true} SEED=${SEED:-42} FRACTIONS=${FRACTIONS:-0,0.1,1}
CONTENDERS=${CONTENDERS:-"reactive-informer fabric8 official-java client-go"}
JVM_FLAGS=${JVM_FLAGS:-"-Xms1g -Xmx6g -XX:+UseG1GC"}
JAR=${JAR:-benchmarks/target/benchmarks.jar}
PKG=io.reactiveinformer.benchmarks.sidebyside
out=benchmarks/results/relist_peak_n$N.csv
corpus=benchmarks/target/replay/n$N-m100-s$SEED

if [[ -z "${SKIP_BUILD:-}" ]]; then
  # peers (fabric8, official client) build in their own module so their jars never reach ours
  mvn -B -q -Ppeers -pl benchmarks,benchmarks/peers -am package -DskipTests
  (cd benchmarks/client-go && go build -o target/client-go-contender .)
fi
java -cp "$JAR" $PKG.Corpus "$corpus" "$N" 100 "$SEED" >/dev/null
log=$corpus/server.log
java -Xmx4g -cp "$JAR" $PKG.ReplayServer "$corpus" >"$log" 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null || true' EXIT
for _ in $(seq 300); do grep -q listening "$log" 2>/dev/null && break; sleep 0.2; done
url=$(sed -n 's/^listening //p' "$log")
[[ -n "$url" ]] || { echo "replay server did not start" >&2; cat "$log" >&2; exit 1; }

# the official client drops metadata.managedFields unless asked to keep them: keep them, so that every
# contender caches the same objects (as run.sh)
PEERS="-Dkubernetes.client.includeManagedFields=true -cp benchmarks/peers/target/peers.jar $PKG.PeerRelistPeak"
PROPS="-Dserver=$url -Druns=$RUNS -Dwarmup=$WARMUP -Dfractions=$FRACTIONS"
for contender in $CONTENDERS; do
  file=$out
  [[ $contender == reactive-informer ]] || file=${out%.csv}_$contender.csv
  case $contender in
    reactive-informer) cmd="java $JVM_FLAGS $PROPS -cp $JAR io.reactiveinformer.benchmarks.watch.RelistPeak" ;;
    fabric8 | official-java) cmd="java $JVM_FLAGS $PROPS -Dcontender=$contender $PEERS" ;;
    # list + watch, as the other contenders and as run.sh (the streaming list is not replayed)
    client-go) cmd="env KUBE_FEATURE_WatchListClient=false BENCH_MODE=relist RUNS=$RUNS WARMUP=$WARMUP
      FRACTIONS=$FRACTIONS benchmarks/client-go/target/client-go-contender $url" ;;
    *) echo "unknown contender $contender" >&2; exit 2 ;;
  esac
  # shellcheck disable=SC2086 # the command and JVM_FLAGS are lists of words
  $cmd 2> >(grep -v ' INFO \| DEBUG ' >&2) | tee "$file.tmp"
  grep -v '^median' "$file.tmp" >"$file"
  rm -f "$file.tmp"
done
echo "relist-peak: rounds in $out" >&2
