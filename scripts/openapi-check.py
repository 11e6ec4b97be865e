#!/usr/bin/env python3
"""Validate recorded HTTP exchanges against the OpenAPI contract.

    openapi-check.py SPEC EXCHANGES
    openapi-check.py --serve PORT SPEC

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

With --serve, it loads SPEC once and answers on 127.0.0.1:PORT until it is
stopped (scripts/services.sh, start_contract_checker; scripts/test.sh starts
it for the end-to-end tests): importing openapi-core and reading the contract
take about 1.5 CPU-s, which one process per checked test paid each time.
    POST /check   body: EXCHANGES' lines; answers 200 with the lines the
                  command would print (empty when every response conforms)
    GET /_ready   204 (readiness probe)
One request at a time: a check takes milliseconds once the contract is loaded.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

import yaml
from urllib.parse import urlsplit, parse_qs

from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse

HOST = "http://127.0.0.1:8080"


def load_contract(spec_path):
    """The OpenAPI document at spec_path, ready to validate responses."""
    # Problems are JSON too: openapi-core knows only application/json by itself.
    config = Config(extra_media_type_deserializers={
        "application/problem+json": json.loads,
        "application/yaml": yaml.safe_load,
    })
    return OpenAPI.from_file_path(spec_path, config=config)


def check(api, lines):
    """(responses checked, complaint lines) for the exchanges in lines."""
    complaints = []
    checked = 0
    for number, line in enumerate(lines, 1):
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
            reasons = [f"{type(error).__name__}: {error}"]
            cause = error.__cause__
            while cause is not None:
                reasons += [e.message for e in getattr(cause, "schema_errors", [])] or [str(cause)]
                cause = cause.__cause__
            reasons = [reason.splitlines()[0] for reason in reasons if reason]
            complaints.append(f"line {number}: {exchange['method']} {exchange['path']} -> {exchange['status']} "
                              f"{content_type}: {'; '.join(reasons)}\n  body: {body[:300]}")
    return checked, complaints


def serve(port, api):
    """Answers POST /check on 127.0.0.1:port until killed."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(204 if self.path == "/_ready" else 404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self):
            if self.path != "/check":
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            text = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode("utf-8")
            try:
                status, answer = 200, "".join(f"{c}\n" for c in check(api, text.splitlines())[1])
            except Exception as error:  # a malformed exchanges file is the test harness's bug: say so
                status, answer = 400, f"unreadable exchanges: {type(error).__name__}: {error}\n"
            body = answer.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format, *args):  # only errors reach the log
            pass

    HTTPServer(("127.0.0.1", port), Handler).serve_forever()


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), load_contract(sys.argv[3]))
        return 0
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    spec_path, exchanges_path = sys.argv[1], sys.argv[2]
    api = load_contract(spec_path)
    with open(exchanges_path, encoding="utf-8") as exchanges:
        checked, complaints = check(api, exchanges)
    for complaint in complaints:
        print(complaint)
    print(f"openapi-check: {checked} responses, {len(complaints)} off the contract", file=sys.stderr)
    return 1 if complaints else 0


if __name__ == "__main__":
    sys.exit(main())
