#!/usr/bin/env bash
# Builds kube-apiserver, etcd, kubectl, kube-controller-manager and kube-scheduler at the versions pinned in
# go.mod, and kwok at the version pinned in kwok/go.mod, into the per-user cache
# (~/.cache/reactive-informer/testenv/kube-<v>-etcd-<v>/, or $REACTIVE_INFORMER_TESTENV_CACHE/...; kwok as
# kwok-<v> there). Builds only those missing: nothing when all are there. Prints the binary directory on
# stdout as its last line; progress goes to stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"

bin_dir="$(testenv_bin_dir)"
missing=()
for binary in kube-apiserver etcd kubectl kube-controller-manager kube-scheduler "$(testenv_kwok_binary)"; do
  [[ -x "$bin_dir/$binary" ]] || missing+=("$binary")
done
if (( ${#missing[@]} == 0 )); then
  echo "$bin_dir"
  exit 0
fi

go_bin="$(command -v go || true)"
if [[ -z "$go_bin" && -x /usr/local/go/bin/go ]]; then go_bin=/usr/local/go/bin/go; fi
if [[ -z "$go_bin" ]]; then
  echo "testenv: go is not installed (needed once to build ${missing[*]} into $bin_dir)" >&2
  exit 1
fi

kube_version="$(testenv_module_version k8s.io/kubernetes)"
etcd_version="$(testenv_module_version go.etcd.io/etcd/server/v3)"
kube_minor="${kube_version#v1.}"; kube_minor="${kube_minor%%.*}"

mkdir -p "$(dirname "$bin_dir")"
staging="$(mktemp -d "${bin_dir}.tmp.XXXXXX")"
trap 'rm -rf "$staging"' EXIT

cd "$here"
export CGO_ENABLED=0
# Two cores shared with the Maven build: do not oversubscribe.
export GOFLAGS="-p=2 -trimpath -mod=readonly -buildvcs=false"
build_date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"

start=$SECONDS
echo "testenv: downloading modules" >&2
"$go_bin" mod download
(cd kwok && "$go_bin" mod download)
echo "testenv: modules ready after $((SECONDS - start)) s; building ${missing[*]}" >&2

ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$kube_minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
done
for binary in "${missing[@]}"; do
  case "$binary" in
    kube-apiserver|kubectl|kube-controller-manager|kube-scheduler) "$go_bin" build -ldflags "$ldflags" -o "$staging/$binary" "k8s.io/kubernetes/cmd/$binary" ;;
    etcd) "$go_bin" build -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=$etcd_version" \
            -o "$staging/etcd" go.etcd.io/etcd/server/v3 ;;
    kwok-*) (cd kwok && "$go_bin" build -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${binary#kwok-}" \
              -o "$staging/$binary" sigs.k8s.io/kwok/cmd/kwok) ;;
  esac
  echo "testenv: $binary built after $((SECONDS - start)) s" >&2
done

mkdir -p "$bin_dir"
for binary in "${missing[@]}"; do mv "$staging/$binary" "$bin_dir/"; done
echo "$bin_dir"
