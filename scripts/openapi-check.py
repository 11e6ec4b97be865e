#!/usr/bin/env python3
"""Validate recorded HTTP exchanges against the OpenAPI contract.

    openapi-check.py SPEC EXCHANGES

SPEC is docs/openapi.yaml; EXCHANGES a file of JSON lines, one per exchange
(`method`, `path` with its query, `requestBody`, `status`, response
`headers` with lowercased names, response `body`), as the Swift tests'
ServeProcess records them. Every response is validated with openapi-core
(PyPI, installed by scripts/test-python-packages.sh): its status must be
documented for the operation (or covered by `default`), its content type
declared, its body valid against the schema. Request bodies are not
checked: tests send invalid ones on purpose.

Prints one line per non-conforming response and exits 1 if there is any,
0 otherwise (also for an empty file).
"""
import json
import sys

import yaml
from urllib.parse import urlsplit, parse_qs

from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse

HOST = "http://127.0.0.1:8080"


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    spec_path, exchanges_path = sys.argv[1], sys.argv[2]
    # Problems are JSON too: openapi-core knows only application/json by itself.
    config = Config(extra_media_type_deserializers={
        "application/problem+json": json.loads,
        "application/yaml": yaml.safe_load,
    })
    api = OpenAPI.from_file_path(spec_path, config=config)
    failures = 0
    checked = 0
    with open(exchanges_path, encoding="utf-8") as exchanges:
        for number, line in enumerate(exchanges, 1):
            if not line.strip():
                continue
            exchange = json.loads(line)
            parts = urlsplit(exchange["path"])
            request = MockRequest(
                HOST, exchange["method"].lower(), parts.path,
                args=parse_qs(parts.query),
                data=(exchange.get("requestBody") or "").encode(),
                content_type="application/json",
            )
            headers = exchange.get("headers", {})
            content_type = headers.get("content-type", "")
            body = exchange.get("body", "")
            response = MockResponse(body.encode(), status_code=exchange["status"], headers=headers,
                                    content_type=content_type.split(";")[0].strip() or None)
            checked += 1
            try:
                api.validate_response(request, response)
            except Exception as error:  # every validation error is a failure to report
                failures += 1
                reasons = [f"{type(error).__name__}: {error}"]
                cause = error.__cause__
                while cause is not None:
                    reasons += [e.message for e in getattr(cause, "schema_errors", [])] or [str(cause)]
                    cause = cause.__cause__
                reasons = [reason.splitlines()[0] for reason in reasons if reason]
                print(f"line {number}: {exchange['method']} {exchange['path']} -> {exchange['status']} "
                      f"{content_type}: {'; '.join(reasons)}\n  body: {body[:300]}")
    print(f"openapi-check: {checked} responses, {failures} off the contract", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
