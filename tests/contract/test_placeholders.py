"""contract/placeholders.fill: the user's text in every string of scenario data, on a copy."""

from __future__ import annotations

from collections import OrderedDict
from enum import Enum
from typing import Any

from a2a_lab.contract.placeholders import TEXT, fill


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
