#!/usr/bin/env bash
# Regenerates fixtures/protobuf/equivalence.jsonl, the objects of ProtobufJsonEquivalenceTest, with main.go: the same
# bytes from the same seed and module versions (go.mod), so a diff after a run is a change of Kubernetes' types.
#
#   src/test/go/equivalence/generate.sh [-n OBJECTS_PER_KIND] [-seed SEED]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
go run . "$@" "$here/../../resources/fixtures/protobuf/equivalence.jsonl"
