#!/usr/bin/env bash
# Copies the OpenAPI v3 documents kube-apiserver serves (the version testenv builds) for the group-versions
# the test kit's simulated server serves by default into its resources, gzipped: rerun after changing that
# version or the default resources. Starts an environment of its own (or uses $REACTIVE_INFORMER_KUBECONFIG's)
# and asks the server, since its documents carry what the source tree's api/openapi-spec lacks (enums).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
kubeconfig="${REACTIVE_INFORMER_KUBECONFIG:-}"
if [[ -z "$kubeconfig" ]]; then
  env_dir="$("$here/testenv.sh" start | tail -n 1)"
  trap '"$here/testenv.sh" stop "$env_dir"' EXIT
  kubeconfig="$env_dir/kubeconfig"
fi
kubectl="$("$here/build.sh" | tail -n 1)/kubectl"
target="$here/../reactive-informer-test-core/src/main/resources/io/reactiveinformer/test/server/openapi/v3"
rm -rf "$target" && mkdir -p "$target"
# the OpenAPI v3 paths of the simulated server's default group-versions: one document each
paths=(api/v1 apis/apps/v1 apis/coordination.k8s.io/v1 apis/events.k8s.io/v1)
for path in "${paths[@]}"; do
  "$kubectl" --kubeconfig "$kubeconfig" get --raw "/openapi/v3/$path" | gzip -9 -n > "$target/${path//\//__}_openapi.json.gz"
done
printf '%s\n' "${paths[@]}" > "$target/INDEX"
testenv_module_version k8s.io/kubernetes > "$target/VERSION"
ls -l "$target"
