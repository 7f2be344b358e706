#!/bin/sh
# Lints the OpenAPI document the service serves, which code builds (src/http/openapi.ts): writes it
# to a temporary file, then runs Redocly (its `recommended` rules, every warning an error: the
# `recommended-strict` set) and Spectral (`spectral:oas`, .spectral.yaml, failing on any result).
# Both must report nothing. Neither tool sends usage data or looks for updates from here.
set -eu
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
node --import tsx --input-type=module -e '
  import { writeFileSync } from "node:fs";
  import { API_PREFIX } from "./src/app.ts";
  import { buildOpenApiDocument } from "./src/http/openapi.ts";
  writeFileSync(process.argv[1], JSON.stringify(buildOpenApiDocument(API_PREFIX), null, 2));
' "$dir/openapi.json"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true DO_NOT_TRACK=1 \
  node_modules/.bin/redocly lint --extends recommended-strict --lint-config off --format stylish \
  "$dir/openapi.json"
node_modules/.bin/spectral lint --ruleset .spectral.yaml --fail-severity hint "$dir/openapi.json"
