#!/usr/bin/env bash
# The soak (see Soak's Javadoc): 20 informers and 50 subscribers follow a steady churn against the test
# environment's kube-apiserver while real faults (apiserver and etcd restarted and killed, compaction) hit it
# every 3 to 10 s; every 30 s every cache and view is checked against a LIST and the JVM is sampled.
#
#   reliability/soak.sh [--control-plane] [MINUTES [RATE [SEED]]]   default 60 minutes, 1,000 changes/s, seed 1
#
# With --control-plane, on an environment that also runs kube-controller-manager, kube-scheduler and kwok's
# nodes: those two are restarted and killed among the faults, and a Deployment's pods are scaled under them.
# Attaches to $REACTIVE_INFORMER_KUBECONFIG's environment ($REACTIVE_INFORMER_CONTROL_PLANE_KUBECONFIG's with
# --control-plane), else starts one (testenv/build.sh first).
# Writes reliability/results/soak/{soak.md,soak.csv,soak.png}; exit status 0 only on a pass.
set -euo pipefail
cd "$(dirname "$0")/.."
control_plane=""
if [[ "${1:-}" == --control-plane ]]; then control_plane="--control-plane"; shift; fi
minutes="${1:-60}" rate="${2:-1000}" seed="${3:-1}"
out="$PWD/reliability/results/soak${control_plane:+-control-plane}"
mkdir -p "$out"
# Its own JVM (exec:exec), so that the heap and threads sampled are the soak's, not Maven's. Reactor Netty and
# Netty log every connection a restarted apiserver drops at WARN: hundreds per fault, expected, kept out.
mvn -B -q -pl reliability -am -DskipTests compile exec:exec -Dexec.executable=java \
  -Dexec.args="-Xmx1g -Dorg.slf4j.simpleLogger.log.reactor.netty=error -Dorg.slf4j.simpleLogger.log.io.netty=error \
  ${SOAK_JAVA_OPTS:-} -cp %classpath io.reactiveinformer.reliability.Soak $control_plane $minutes $rate $out $seed"
