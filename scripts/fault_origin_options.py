"""Query options, HTTP dates and ranges for scripts/fault-origin.py."""

import email.utils
import re
from urllib.parse import unquote


class BadOption(Exception):
    """A query option with a value this server does not understand (400)."""


def parse_query(query):
    """The query string as a dict (the last value wins for a repeated name).

    Unlike form decoding, "+" is left alone, so expires=+60 works as typed.
    """
    options = {}
    for part in query.split("&"):
        if part:
            name, _, value = part.partition("=")
            options[unquote(name)] = unquote(value)
    return options


def http_date(timestamp):
    """An IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT."""
    return email.utils.formatdate(timestamp, usegmt=True)


def parse_http_date(value):
    """Seconds since the epoch of an HTTP-date, or None when it is not one."""
    try:
        parsed = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if parsed is None or parsed.tzinfo is None:
        return None
    return parsed.timestamp()


def int_option(options, name, default=None, minimum=0, signed=False):
    """options[name] as an int (a leading + or - only when signed)."""
    value = options.get(name)
    if value is None or value == "":
        return default
    pattern = r"[+-]?\d+" if signed else r"\d+"
    if not re.fullmatch(pattern, value):
        raise BadOption("%s=%s: expected %s" % (name, value, "a signed integer" if signed else "an integer"))
    number = int(value)
    if not signed and number < minimum:
        raise BadOption("%s=%s: must be at least %d" % (name, value, minimum))
    return number


def status_list(options):
    """fail=503,500 as [503, 500]."""
    value = options.get("fail")
    if not value:
        return []
    statuses = []
    for item in value.split(","):
        item = item.strip()
        if not re.fullmatch(r"\d{3}", item) or not 100 <= int(item) <= 599:
            raise BadOption("fail=%s: expected a list of statuses like 503,500" % value)
        statuses.append(int(item))
    return statuses


def entity_tags(header):
    """The entity tags of an If-None-Match list, e.g. ['"a"', 'W/"b"'].

    A quoted tag may contain commas, so this matches tags, not split on commas.
    """
    return [m.group(0) for m in re.finditer(r'(?:W/)?"[^"]*"', header)]


def opaque(tag):
    """An entity tag without its weakness indicator (for weak comparison)."""
    return tag[2:] if tag.startswith("W/") else tag


def parse_range(header, size):
    """A Range header against a body of size bytes.

    Returns (first, last) inclusive, "unsatisfiable" (416), or None when the
    header is to be ignored (a full 200): other units, several ranges, bad
    syntax.
    """
    match = re.fullmatch(r"\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*", header)
    if not match:
        return None
    first, last = match.groups()
    if first == "" and last == "":
        return None
    if first == "":  # bytes=-N: the last N bytes
        suffix = int(last)
        if suffix == 0 or size == 0:
            return "unsatisfiable"
        return (max(0, size - suffix), size - 1)
    start = int(first)
    if last != "" and int(last) < start:
        return None  # invalid: ignore it, as RFC 9110 says
    if start >= size:
        return "unsatisfiable"
    end = size - 1 if last == "" else min(int(last), size - 1)
    return (start, end)
