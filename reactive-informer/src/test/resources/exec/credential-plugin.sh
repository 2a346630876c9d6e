#!/bin/sh
# A client-go exec credential plugin for tests: counts its runs in $RUNS_FILE and prints an
# ExecCredential whose token names the run, expiring at $EXPIRY.
runs=$(( $(cat "$RUNS_FILE" 2>/dev/null || echo 0) + 1 ))
echo "$runs" > "$RUNS_FILE"
case "$KUBERNETES_EXEC_INFO" in
  *'"interactive":false'*) ;;
  *) echo "missing KUBERNETES_EXEC_INFO" >&2; exit 3 ;;
esac
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"exec-token-%s","expirationTimestamp":"%s"}}\n' "$runs" "$EXPIRY"
