#!/bin/sh
# npm run simulate [-- --runs N] [--seed S] [--path P]: the model-based simulation
# (test/simulation.test.ts) at length, on every database the tests use. Default: 1000 runs.
set -eu
cd "$(dirname "$0")/.."
runs=1000
while [ "$#" -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --seed) export SIM_SEED="$2"; shift 2 ;;
    --path) export SIM_PATH="$2"; shift 2 ;;
    *) echo "simulate: unknown argument $1 (expected --runs N, --seed S, --path P)" >&2; exit 2 ;;
  esac
done
case "$runs" in ''|*[!0-9]*) echo "simulate: --runs must be a whole number" >&2; exit 2 ;; esac
export SIM_RUNS="$runs"
exec node --import tsx --test --test-timeout=0 test/simulation.test.ts
