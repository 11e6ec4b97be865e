#!/usr/bin/env bash
# Fuzz a running `warmer serve` against its contract with schemathesis
# (PyPI, pinned in scripts/test-python-packages.sh).
#
#   scripts/api-fuzz.sh BASE_URL ADMIN_TOKEN [MAX_EXAMPLES]
#
# BASE_URL is the server (http://127.0.0.1:PORT: loopback only), ADMIN_TOKEN
# a token of its admin-tokens (WARMER_API_TOKEN when the argument is "-", so
# that it needs not be on a command line). Every operation of docs/openapi.yaml
# is called with generated valid and invalid requests, except the event
# streams (`/events`, `/summary`), which never end, and `/v1/cache`, whose
# `warm=1` would load the generated URLs: even a refused one is first
# resolved through DNS, and tests send nothing beyond loopback
# (CacheEndpointTests cover that route). Checks: no 5xx
# (not_a_server_error), every status documented for its operation, every
# content type declared, every body valid against its schema. Exit status 0
# when every check passed; schemathesis's own otherwise (1: a failure, with
# the request to reproduce it).
set -euo pipefail

if (($# < 2)); then
  sed -n '2,19p' "$0" >&2
  exit 2
fi
base_url=$1
token=$2
max_examples=${3:-25}
if [[ $token == - ]]; then token=${WARMER_API_TOKEN:?set WARMER_API_TOKEN}; fi
case $base_url in
  http://127.0.0.1:* | http://localhost:* | "http://[::1]:"*) ;;
  *) echo "api-fuzz: $base_url is not a loopback address" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
report=$(mktemp -d "${TMPDIR:-/tmp}/api-fuzz.XXXXXX")
trap 'rm -rf "$report"' EXIT

# From the report folder: schemathesis keeps a cache (.schemathesis/) in its working directory.
cd "$report"
status=0
python3 -m schemathesis.cli run "$root/docs/openapi.yaml" \
  --url "$base_url" \
  --header "Authorization: Bearer $token" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --exclude-path-regex '/(events|summary)$|^/v1/cache$' \
  --phases examples,coverage,fuzzing \
  --max-examples "$max_examples" \
  --workers 1 \
  --seed 14 \
  --request-timeout 10 \
  --suppress-health-check all \
  --output-sanitize true \
  --report-dir "$report" \
  --no-color || status=$?
exit "$status"
