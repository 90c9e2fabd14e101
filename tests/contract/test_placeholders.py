"""contract/placeholders.fill: the user's text in every string of scenario data, on a copy."""

from __future__ import annotations

from collections import OrderedDict
from enum import Enum
from typing import Any

import pytest

from a2a_lab.contract.placeholders import TEXT, Template, fill


class Shade(str, Enum):
    LIGHT = "light {text}"


def test_fill_replaces_in_every_string_at_any_depth_and_keeps_keys() -> None:
    spec: dict[str, Any] = {
        "name": "{text}",
        "{text}": ["a {text}", {"parts": [{"text": "echo: {text}"}, 3, None, True]}],
    }
    filled = fill(spec, TEXT, "hi")
    assert filled == {"name": "hi", "{text}": ["a hi", {"parts": [{"text": "echo: hi"}, 3, None, True]}]}
    filled["{text}"][1]["parts"][0]["text"] = "changed"
    assert spec["{text}"][1]["parts"][0]["text"] == "echo: {text}", "a copy: the scenario's data is untouched"


def test_fill_reads_subclasses_of_the_plain_types_as_before() -> None:
    ordered = OrderedDict(a=Shade.LIGHT)
    filled = fill([ordered, Shade.LIGHT, ("{text}",)], TEXT, "x")
    assert filled == [{"a": "light x"}, "light x", ("{text}",)]
    assert type(filled[0]) is dict and type(filled[1]) is str, "copies are plain dicts and strings"


_PLAIN: list[Any] = [
    {"artifactId": "result", "name": "result", "parts": [{"text": "echo: {text}"}]},
    [
        {"text": "you said {text} ({text})"},
        {"data": {"n": 1, "f": 0.5, "b": True, "none": None, "deep": [[["{text}"]]]}},
    ],
    "{text}",
    {"no placeholder": ["at", "all"], "unicode": "caf\u00e9 {text} \u2603"},
    [],
    {},
]
_REPLACEMENTS = [
    "hi",
    "",
    'a "quoted" \\ back\\slash',
    "line\nbreak\ttab\u0000nul",
    "caf\u00e9 \U0001f600",
    "{text}",
    "lone \ud800 surrogate",
    "12345678901234567890123",
]


@pytest.mark.parametrize("value", _PLAIN)
@pytest.mark.parametrize("replacement", _REPLACEMENTS)
def test_a_template_of_plain_json_fills_in_its_text_as_fill_does(value: Any, replacement: str) -> None:
    template = Template(value, TEXT)
    assert template.by_text, "plain JSON is filled in its text"
    filled = template.fill(replacement)
    assert filled == fill(value, TEXT, replacement)
    assert repr(filled) == repr(fill(value, TEXT, replacement)), "the same types and order, not only equal"


_NOT_PLAIN: list[Any] = [
    {"{text}": "a placeholder in a key"},
    [("{text}",)],
    {"n": float("nan")},
    {1: "a non-string key {text}"},
    {"big": 2**70, "t": "{text}"},  # beyond 64 bits: the standard library's, not orjson's to read
    [Shade.LIGHT],
    [OrderedDict(a="{text}")],
]


@pytest.mark.parametrize("value", _NOT_PLAIN, ids=repr)
def test_a_template_of_anything_else_is_filled_by_fill(value: Any) -> None:
    template = Template(value, TEXT)
    assert not template.by_text, "what does not read back as itself from JSON is filled by fill"
    assert repr(template.fill("x")) == repr(fill(value, TEXT, "x"))


def test_each_fill_of_a_template_is_a_fresh_copy() -> None:
    template = Template({"parts": [{"text": "echo: {text}"}]}, TEXT)
    first = template.fill("a")
    first["parts"][0]["text"] = "changed"
    first["parts"].append({"text": "more"})
    assert template.fill("a") == {"parts": [{"text": "echo: a"}]}
