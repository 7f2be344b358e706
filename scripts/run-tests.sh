#!/bin/sh
# Node 20's test runner takes no globs: list the test files here. Arguments narrow the set
# (for example: npm test -- test/auth). Files run one at a time: several start servers and
# databases of their own.
set -eu
cd "$(dirname "$0")/.."
if [ "$#" -gt 0 ]; then roots="$*"; else roots="src test"; fi
files=$(find $roots -name '*.test.ts' -not -path '*/node_modules/*' | sort)
if [ -z "$files" ]; then echo "no test files under: $roots" >&2; exit 1; fi
# shellcheck disable=SC2086
exec node --import tsx --test --test-concurrency=1 $files
