# Shared by build.sh, start.sh and stop.sh. Sourced, not run.

testenv_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Version of a module as pinned in go.mod (read from the file, so no go is needed to find a cached build).
testenv_module_version() {
  awk -v m="$1" '($1 == m || ($1 == "require" && $2 == m)) { v = ($1 == "require") ? $3 : $2; print v; exit }' \
    "$testenv_here/go.mod"
}

# kwok pins its version in its own module (kwok/go.mod); the version is in the cached binary's name.
testenv_kwok_binary() {
  echo "kwok-$(awk '$1 == "sigs.k8s.io/kwok" { print $2; exit }' "$testenv_here/kwok/go.mod")"
}

testenv_bin_dir() {
  local root="${REACTIVE_INFORMER_TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/reactive-informer/testenv}"
  echo "$root/kube-$(testenv_module_version k8s.io/kubernetes)-etcd-$(testenv_module_version go.etcd.io/etcd/server/v3)"
}
