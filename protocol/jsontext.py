"""JSON text as a2a-lab writes and reads it on the wire: the one place that decides the codec.

orjson does the common case (ten times faster than the standard library on a request's worth of JSON); the
standard library does whatever orjson declines, so values and error messages are exactly the standard
library's: integers beyond 64 bits, lone surrogates, deep nesting, and every malformed text.
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

import orjson

#: A run of 19 digits may be an integer beyond 64 bits, which orjson would read as a float. Found by mapping
#: digits to "0" and the rest to " " (bytes.translate: a tenth of the cost of a regular expression search).
_DIGITS_ONLY = bytes(0x30 if 0x30 <= i <= 0x39 else 0x20 for i in range(256))
_LONG_RUN = b"0" * 19
#: orjson is given text with at most this many brackets: some versions crash (not raise) on extreme nesting.
_MAX_BRACKETS = 1000


def _not_json(text: str) -> NoReturn:
    raise ValueError(f"{text} is not JSON (RFC 8259 has no NaN or Infinity)")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


def loads(text: bytes) -> Any:
    """Decode UTF-8 JSON text (RFC 8259). NaN, Infinity and numbers that overflow to infinity are refused: echoed
    back (say as an `id`) they would make an answer invalid JSON.

    Raises UnicodeDecodeError for text that is not UTF-8, ValueError (the standard library's message) for text
    that is not JSON, RecursionError for nesting deeper than the interpreter can follow."""
    if orjson_reads(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # the standard library says why, in its words (or accepts what orjson declines)
    return loads_standard(text)


def orjson_reads(text: bytes) -> bool:
    """orjson reads this text as the standard library does: no run of digits that may be an integer beyond 64 bits,
    no nesting deep enough to crash it (a conservative test: brackets and digits inside strings count too)."""
    return text.count(b"[") + text.count(b"{") <= _MAX_BRACKETS and _LONG_RUN not in text.translate(_DIGITS_ONLY)


def loads_checked(text: bytes) -> Any:
    """`loads` for text made from one that passed `orjson_reads` by filling in string contents only (a template):
    what was filled in cannot add nesting or numbers, so the test is not made again."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # e.g. a lone surrogate filled in: the standard library reads it
        return loads_standard(text)


def string_content(value: str) -> bytes:
    """`value` as JSON writes it between a string's quotes."""
    try:
        return orjson.dumps(value)[1:-1]
    except TypeError:  # a lone surrogate: the standard library escapes it
        return dumps(value)[1:-1]


def loads_standard(text: bytes) -> Any:
    """`loads` by the standard library alone: the reference the fast path must agree with."""
    return json.loads(text.decode("utf-8"), parse_constant=_not_json, parse_float=_finite)


def within_depth(value: object, limit: int) -> bool:
    """True when decoded JSON nests at most `limit` levels (iterative: no recursion on hostile input)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return False
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return True


def dumps(value: object) -> bytes:
    """Compact UTF-8 JSON. A lone surrogate (from a `\\ud800` escape: valid JSON, not UTF-8) stays escaped.

    orjson's bytes keep the whole buffer it wrote into (4 KiB at least, however short the JSON): copied to their
    own size, since the journal keeps every answer (10 000 completed tasks' answers: about 40 MB for 5 MB of text)."""
    try:
        return memoryview(orjson.dumps(value)).tobytes()
    except TypeError:  # orjson.JSONEncodeError: a big integer, a lone surrogate, deep nesting, a non-string key
        pass
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":")).encode("ascii")
