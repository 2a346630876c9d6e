#!/usr/bin/env bash
# The fault-budget run (see FaultBudget's Javadoc): informers through counted injected faults under churn,
# every cache and subscriber view checked against the server after each fault window.
#
#   reliability/run.sh [FAULTS [SEED [REAL]]]   default 200 faults (about 3-4 minutes on 2 cores), seed 1, and
#                                               REAL windows of real-environment faults (default 0; 6 is one
#                                               of each kind, about 2 minutes) against the test environment's
#                                               kube-apiserver ($REACTIVE_INFORMER_KUBECONFIG, else one it starts)
#
# The report is printed and written to reliability/results/fault-budget-<FAULTS>.md; the exit status is 0
# only when every check passed, no final state was lost and no informer died.
set -euo pipefail
cd "$(dirname "$0")/.."
faults="${1:-200}" seed="${2:-1}" real="${3:-0}"
mkdir -p reliability/results
mvn -B -q -pl reliability -am -DskipTests compile exec:java \
  -Dexec.args="$faults $seed $PWD/reliability/results/fault-budget-$faults.md $real"
