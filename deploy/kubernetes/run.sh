#!/bin/sh
# Runs the sharded search, waits for it to end (complete or failed), then the merge.
# usage: IMAGE=registry/lockcheck:tag ./run.sh
set -eu
here=$(dirname "$0")
sed "s|IMAGE|$IMAGE|" "$here/shards-job.yaml" | kubectl apply -f -
while :; do
  state=$(kubectl get job lockcheck-shards -o jsonpath='{.status.conditions[?(@.status=="True")].type}')
  case "$state" in
    *Complete*) flags=""; break ;;
    *Failed*) flags="--partial"; break ;;
  esac
  sleep 10
done
sed "s|IMAGE|$IMAGE|; s|value: \"\"|value: \"$flags\"|" "$here/merge-job.yaml" | kubectl apply -f -
kubectl wait --for=condition=complete --timeout=1h job/lockcheck-merge || true
kubectl logs job/lockcheck-merge
