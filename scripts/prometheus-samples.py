#!/usr/bin/env python3
"""Parse Prometheus text exposition on stdin with prometheus_client's parser
(the reference implementation) and print one JSON object per sample:
{"name": ..., "labels": {...}, "value": ...}. Exits 1 with the parser's
message when the text does not parse. Used by the tests of `warmer worker`'s
/metrics endpoint."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

try:
    families = list(text_string_to_metric_families(sys.stdin.read()))
except Exception as error:  # the parser raises ValueError and friends
    print(f"not Prometheus text: {error}", file=sys.stderr)
    sys.exit(1)
for family in families:
    for sample in family.samples:
        print(json.dumps({"name": sample.name, "labels": sample.labels, "value": sample.value}))
