#!/usr/bin/env bash
# Re-fetches the vendored .proto files from the Go modules pinned below (through the Go module proxy, which
# `go mod download` checks against the checksum database) and verifies them against SHA256SUMS.
#
#   fetch.sh          fetch into this directory, then verify
#   fetch.sh --check  verify the files here only
#
# The versions are those the official models (io.kubernetes:client-java-api, ${kubernetes-models.version}
# in the parent pom) were generated from: bump them together, then run `fetch.sh` and
# `sha256sum $(cat FILES) > SHA256SUMS`, and look at the generator's report of unmapped messages.
set -euo pipefail

API_VERSION=v0.36.0
APIMACHINERY_VERSION=v0.36.0

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

if [[ "${1:-}" != "--check" ]]; then
  cache="$(mktemp -d)"
  trap 'chmod -R u+w "$cache"; rm -rf "$cache"' EXIT
  GOMODCACHE="$cache" GOFLAGS=-mod=mod go mod download "k8s.io/api@$API_VERSION" "k8s.io/apimachinery@$APIMACHINERY_VERSION"
  api="$cache/k8s.io/api@$API_VERSION"
  machinery="$cache/k8s.io/apimachinery@$APIMACHINERY_VERSION"
  rm -rf k8s.io
  while read -r file; do
    case "$file" in
      k8s.io/api/*) src="$api/${file#k8s.io/api/}" ;;
      k8s.io/apimachinery/*) src="$machinery/${file#k8s.io/apimachinery/}" ;;
    esac
    mkdir -p "$(dirname "$file")"
    cp "$src" "$file"
    chmod 644 "$file"
  done < FILES
fi
sha256sum --quiet -c SHA256SUMS
echo "protos verified: k8s.io/api@$API_VERSION, k8s.io/apimachinery@$APIMACHINERY_VERSION"
