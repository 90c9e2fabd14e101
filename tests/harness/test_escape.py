"""Text as each medium shows it (harness/common/escape.py): what is made visible, what is kept."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from a2a_lab.harness.common import escape
from a2a_lab.harness.reports import junit

#: Every character below U+10000, and a few above: the whole range a client's stderr or a file can hold.
EVERY = "".join(map(chr, range(0x10000))) + "\U0001f600\U0010ffff"
CONTROLS = [chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]]


def test_every_control_character_but_newline_and_tab_is_made_visible() -> None:
    for ch in CONTROLS:
        assert escape.console(ch) == f"\\x{ord(ch):02x}"
    assert escape.console("\ud800\udfff\ufffe\uffff") == "\\ud800\\udfff\\ufffe\\uffff"
    assert escape.console("a\tb\nc") == "a\tb\nc", "multi-line quotes keep their shape"


def test_ordinary_text_is_unchanged() -> None:
    text = "naïve café — 東京 \U0001f600 \\x1b stays as written"
    assert escape.console(text) == escape.xml(text) == text


def test_xml_holds_only_characters_xml_allows() -> None:
    """ElementTree writes what it is given: one ESC and the file is "not well-formed (invalid token)"."""
    element = ET.Element("e", attrib={"a": escape.xml(EVERY)})
    element.text = escape.xml(EVERY)
    parsed = ET.fromstring(ET.tostring(element, encoding="unicode"))
    assert parsed.text is not None and "\\x1b" in parsed.text and "東" in parsed.text


def test_html_is_entities_and_visible_controls() -> None:
    shown = escape.html("<a href=\"x\">\x1b]8;;link\x07</a> & 'q'")
    assert shown == "&lt;a href=&quot;x&quot;&gt;\\x1b]8;;link\\x07&lt;/a&gt; &amp; &#x27;q&#x27;"
    assert escape.html(7) == "7"


def test_junit_escapes_every_text_and_attribute_of_a_report() -> None:
    """A report's every string (a scenario id, a check's message and quote, a client's stderr) may hold anything."""
    nasty = "x\x1b[2J\x00\x9b\ud800"
    report = {
        "client": nasty,
        "scenarios": [
            {
                "id": nasty,
                "group": nasty,
                "outcome": "NO_CONTACT",
                "duration": 0.1,
                "error": nasty,
                "client": {"exit_code": 1, "stderr_tail": nasty},
                "checks": [
                    {
                        "id": nasty,
                        "level": "MUST",
                        "outcome": "FAIL",
                        "message": nasty,
                        "requirement": nasty,
                        "expected": nasty,
                        "actual": nasty,
                        "quote": nasty,
                    }
                ],
            }
        ],
    }
    root = ET.fromstring(ET.tostring(junit.build(report), encoding="unicode"))
    texts = [root.get("name", "")] + [v for el in root.iter() for v in [el.text or "", *el.attrib.values()]]
    assert any("x\\x1b[2J\\x00\\x9b\\ud800" in t for t in texts)
    assert not any(ch in t for t in texts for ch in CONTROLS)
