"""jsontext reads and writes what the standard library would: the same values, the same refusals, the same
messages (orjson is only the fast path)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_lab.protocol import jsontext


def _outcome(read: Any, text: bytes) -> tuple[str, Any]:
    try:
        return "value", read(text)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        return type(exc).__name__, str(exc)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, derandomize=True)
@given(JSON_VALUES)
def test_round_trip_matches_the_standard_library(value: Any) -> None:
    written = jsontext.dumps(value)
    assert json.loads(written) == json.loads(json.dumps(value))
    assert _outcome(jsontext.loads, written) == _outcome(jsontext.loads_standard, written)


@pytest.mark.parametrize(
    "text",
    [
        b'{"id": 12345678901234567890123, "n": -9999999999999999999}',  # beyond 64 bits: exact integers
        b"18446744073709551615",
        b"[1e400]",
        b"-1e309",
        b"NaN",
        b'{"a": Infinity}',
        b'"\\ud800"',  # a lone surrogate: valid JSON
        b"\xef\xbb\xbf{}",  # a byte order mark
        b'{"a": 1, "a": 2}',
        b'"\xed\xa0\x80"',  # not UTF-8
        b"\xff",
        b"",
        b"  ",
        b"01",
        b"1.e5",
        b"[1,]",
        b'"\x01"',
        b"[" * 2000 + b"]" * 2000,  # deeper than the standard library reads
        b"[" * 10_000_000 + b"]" * 10_000_000,  # orjson 3.8 crashes on this: it must never see it
        b"1e-400",
        b'{"\\ud83d\\ude00": [1.5, -0, -0.0, true, null]}',
    ],
)
def test_edge_cases_match_the_standard_library(text: bytes) -> None:
    assert _outcome(jsontext.loads, text) == _outcome(jsontext.loads_standard, text)


@pytest.mark.parametrize(
    "value",
    [
        {"id": 2**70},
        "\ud800",
        {1: "a non-string key"},
    ],
)
def test_what_orjson_declines_is_written_as_before(value: Any) -> None:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    try:
        expected = text.encode("utf-8")
    except UnicodeEncodeError:
        expected = json.dumps(value, separators=(",", ":")).encode("ascii")
    assert jsontext.dumps(value) == expected


def test_deep_nesting_is_written_by_the_standard_library() -> None:
    deep: Any = 1
    for _ in range(300):  # past orjson's 254 levels
        deep = [deep]
    assert jsontext.dumps(deep) == json.dumps(deep, separators=(",", ":")).encode()


def test_written_json_holds_no_more_memory_than_its_text() -> None:
    """What the journal keeps of every answer is its own size: orjson's bytes held a 4 KiB buffer each."""
    import tracemalloc

    value = {"jsonrpc": "2.0", "id": 1, "result": {"task": {"id": "t-1", "status": {"state": "TASK_STATE_COMPLETED"}}}}
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [jsontext.dumps(value) for _ in range(100)]
        held = (tracemalloc.get_traced_memory()[0] - before) / len(kept)
    finally:
        tracemalloc.stop()
    assert held < 4 * len(kept[0]), f"each {len(kept[0])}-byte JSON text holds {held:.0f} bytes"


@settings(max_examples=300, derandomize=True)
@given(st.text())
def test_a_string_filled_into_json_text_reads_back_as_itself(value: str) -> None:
    """string_content writes what stands between a string's quotes; loads_checked reads a template filled with it."""
    template = b'{"a":["x:{}:y"],"n":1}'.replace(b"{}", b"@@")
    filled = template.replace(b"@@", jsontext.string_content(value))
    assert jsontext.orjson_reads(template)
    assert jsontext.loads_checked(filled) == {"a": [f"x:{value}:y"], "n": 1}
    assert _outcome(jsontext.loads_checked, filled) == _outcome(jsontext.loads_standard, filled)


def test_what_orjson_would_misread_is_not_for_it() -> None:
    assert not jsontext.orjson_reads(b'{"id": 12345678901234567890123}')
    assert not jsontext.orjson_reads(b"[" * 1001 + b"]" * 1001)
    assert jsontext.orjson_reads(b'{"id": 123456789012345678}')
