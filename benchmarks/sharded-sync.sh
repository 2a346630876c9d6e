#!/usr/bin/env bash
# What one replica of a sharded controller pays to sync its share (1, 2 or 4 replicas over 4 shards: time to
# synced, process CPU, peak and retained heap) against the test environment's real kube-apiserver with
# ShardedListAndWatch on (ShardedSync). Writes benchmarks/results/sharded_sync_n$N.csv and prints the medians.
#
#   benchmarks/sharded-sync.sh                     N=100000 ConfigMaps of 1,000 random bytes, RUNS=3 rounds
#   N=30000 RUNS=5 benchmarks/sharded-sync.sh
#
# Run it on an idle machine, as benchmarks/run.sh. SKIP_BUILD=1 uses the benchmarks jar as built.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-100000} BYTES=${BYTES:-1000} RUNS=${RUNS:-3}
JVM_FLAGS=${JVM_FLAGS:-"-Xms1g -Xmx6g -XX:+UseG1GC"}
out=benchmarks/results/sharded_sync_n$N.csv

if [[ -z "${SKIP_BUILD:-}" ]]; then
  mvn -B -q -pl benchmarks -am package -DskipTests
fi
testenv/build.sh >/dev/null
env_dir="$(TESTENV_OWNER_PID=$$ testenv/testenv.sh start)"
trap 'testenv/testenv.sh stop "$env_dir"' EXIT

# shellcheck disable=SC2086 # JVM_FLAGS is a list of flags
java $JVM_FLAGS -Dn="$N" -Dbytes="$BYTES" -Druns="$RUNS" -Dkubeconfig="$env_dir/kubeconfig" -Dcontext=admin \
  -cp benchmarks/target/benchmarks.jar io.reactiveinformer.benchmarks.watch.ShardedSync \
  2> >(grep -v ' INFO \| DEBUG ' >&2) | tee "$out.tmp"
grep -v '^median' "$out.tmp" >"$out"
rm -f "$out.tmp"
echo "sharded-sync: rounds in $out" >&2
