"""How scripts/fault-origin.py serves a file: validators, conditional and
range requests, and the faults of its body (rate, cut, stall, chunking)."""

import hashlib
import os
import re
import select
import socket
import time

from fault_origin_options import (
    BadOption, entity_tags, http_date, int_option, opaque, parse_http_date, parse_range, status_list,
)

# The types an image origin needs, as in the nginx origin's config.
CONTENT_TYPES = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".webp": "image/webp",
    ".gif": "image/gif",
    ".avif": "image/avif",
    ".heic": "image/heic",
    ".txt": "text/plain",
    ".html": "text/html",
    ".json": "application/json",
}

STALL_LIMIT = 120.0  # seconds a stalled response keeps its connection open
WRITE_SIZE = 64 * 1024  # body bytes per write when not rate-limited


class FileResponses:
    """The file-serving half of the fault origin's request handler (a mixin
    of `Handler`, whose `start_response`, `write` and `send_simple` it uses)."""

    def serve_file(self, name, options):
        # Check every option before anything is counted or sent.
        request_id = options.get("id") or None
        failures = status_list(options)
        cut = int_option(options, "cut")
        cut_count = int_option(options, "cutcount", default=1)
        rate = int_option(options, "rate", minimum=1)
        stall = int_option(options, "stall")
        date_offset = int_option(options, "date", default=0, signed=True)
        if (failures or cut is not None) and request_id is None:
            raise BadOption("fail= and cut= need id=ID (they count requests per ID)")
        ranges = options.get("ranges", "bytes")
        if ranges not in ("bytes", "ignore", "none"):
            raise BadOption("ranges=%s: expected ignore or none" % ranges)
        lm = options.get("lm", "none")
        if lm not in ("auto", "none"):
            raise BadOption("lm=%s: expected auto or none" % lm)

        # fail=: the k-th request for this ID gets the k-th status.
        if request_id is not None:
            k = self.server.count(request_id, "requests")
            if k < len(failures):
                self.send_simple(failures[k], retry_after=True)
                return

        path = os.path.realpath(os.path.join(self.server.root, name))
        if not path.startswith(self.server.root + os.sep) or not os.path.isfile(path):
            self.send_simple(404)
            return
        with open(path, "rb") as file:
            mtime = os.fstat(file.fileno()).st_mtime
            data = file.read()

        # The headers every 200, 206 and 304 for these options carry.
        now = time.time()
        etag = self.etag(options.get("etag", "none"), data)
        last_modified = http_date(int(mtime)) if lm == "auto" else None
        meta = [("Date", http_date(now + date_offset))]
        if etag:
            meta.append(("ETag", etag))
        if last_modified:
            meta.append(("Last-Modified", last_modified))
        if "cc" in options:
            meta.append(("Cache-Control", options["cc"]))
        if "expires" in options:
            expires = options["expires"]
            if re.fullmatch(r"[+-]\d+", expires):
                expires = http_date(now + int(expires))
            meta.append(("Expires", expires))
        if "vary" in options:
            meta.append(("Vary", options["vary"]))
        if "age" in options:
            meta.append(("Age", options["age"]))

        # Conditional requests: If-None-Match wins over If-Modified-Since.
        if_none_match = self.headers.get("If-None-Match")
        if_modified_since = self.headers.get("If-Modified-Since")
        if if_none_match is not None:
            if if_none_match.strip() == "*" or (
                etag and any(opaque(tag) == opaque(etag) for tag in entity_tags(if_none_match))
            ):
                self.start_response(304, meta)
                return
        elif if_modified_since is not None and last_modified:
            since = parse_http_date(if_modified_since)
            if since is not None and int(mtime) <= since:
                self.start_response(304, meta)
                return

        # Ranges.
        headers = meta + [("Content-Type", CONTENT_TYPES.get(os.path.splitext(name)[1].lower(), "application/octet-stream"))]
        if ranges != "none":
            headers.append(("Accept-Ranges", "bytes"))
        status, body = 200, data
        range_header = self.headers.get("Range")
        if range_header is not None and ranges == "bytes" and self.if_range_matches(etag, last_modified):
            selected = parse_range(range_header, len(data))
            if selected == "unsatisfiable":
                self.send_simple(416, meta + [("Content-Range", "bytes */%d" % len(data))])
                return
            if selected is not None:
                first, last = selected
                status, body = 206, data[first:last + 1]
                headers.append(("Content-Range", "bytes %d-%d/%d" % (first, last, len(data))))

        chunked = options.get("chunked") in ("1", "true", "yes")
        if chunked:
            headers.append(("Transfer-Encoding", "chunked"))
        else:
            headers.append(("Content-Length", str(len(body))))
        if self.command == "HEAD":
            self.start_response(status, headers)
            return

        # cut=: only responses with a body use up one of the cuts.
        cut_here = None
        if cut is not None and self.server.count(request_id, "bodies") < cut_count:
            cut_here = cut
        self.start_response(status, headers)
        self.send_body(body, chunked=chunked, rate=rate, cut=cut_here, stall=stall)

    def etag(self, option, data):
        if option in ("", "none"):
            return None
        if option in ("auto", "weak"):
            tag = '"sha1-%s"' % hashlib.sha1(data).hexdigest()[:16]
            return "W/" + tag if option == "weak" else tag
        if option.startswith('"') or option.startswith('W/"'):
            return option
        return '"%s"' % option

    def if_range_matches(self, etag, last_modified):
        """Whether a Range may be honoured: no If-Range, or one that matches."""
        if_range = self.headers.get("If-Range")
        if if_range is None:
            return True
        if_range = if_range.strip()
        if if_range.startswith('"') or if_range.startswith("W/"):
            # Strong comparison: weak tags never match.
            return bool(etag) and not etag.startswith("W/") and if_range == etag
        if not last_modified:
            return False
        since = parse_http_date(if_range)
        return since is not None and since == parse_http_date(last_modified)

    # --- bodies -------------------------------------------------------------

    def send_body(self, body, chunked, rate, cut, stall):
        """Sends body, then ends the response, or cuts or stalls it."""
        limit, ending = len(body), "complete"
        if cut is not None and cut < limit:
            limit, ending = cut, "cut"
        if stall is not None and stall < limit:
            limit, ending = stall, "stall"

        # With rate=, write small pieces, each when it is due.
        step = WRITE_SIZE if not rate else max(1, min(WRITE_SIZE, rate // 20))
        started = time.monotonic()
        offset = 0
        while offset < limit:
            if rate:
                delay = started + offset / rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            piece = body[offset:min(limit, offset + step)]
            if chunked:
                self.connection.sendall(b"%x\r\n" % len(piece))
                self.write(piece)
                self.connection.sendall(b"\r\n")
            else:
                self.write(piece)
            offset += len(piece)

        if ending == "complete":
            if chunked:
                self.connection.sendall(b"0\r\n\r\n")
            return
        if ending == "stall":
            self.wait_for_hangup(STALL_LIMIT)
        # Cut (or a stall that ran out): close the connection mid-body. The
        # client sees the end of the stream before the promised length.
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def wait_for_hangup(self, seconds):
        """Sleeps until the client closes the connection or seconds pass."""
        deadline = time.monotonic() + seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            readable, _, _ = select.select([self.connection], [], [], min(1.0, remaining))
            if readable:
                try:
                    if not self.connection.recv(1, socket.MSG_PEEK):
                        return  # the client closed its end
                except OSError:
                    return  # reset
                # The client sent something (a pipelined request): not a
                # hangup. Keep waiting without spinning on it.
                time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
