"""The one reader of user files (contract/userfile.py) and YAML on it (contract/yamlfile.py): what it refuses, what it
names, what it never quotes, and that its JSON scan counts only what is structure."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import pytest

from a2a_lab.contract import userfile, yamlfile
from a2a_lab.contract.userfile import Kind, Refused

SMALL = Kind("test file", max_bytes=64, max_depth=3, max_values=10, too_large="big", too_deep="deep", too_many="many")


def test_what_is_not_a_regular_file_is_named_for_what_it_is(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock = tmp_path / "sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(sock))
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    try:
        for path, what in (
            (tmp_path, "a directory, not a regular file"),
            (fifo, "a FIFO (named pipe), not a regular file"),
            (Path("/dev/zero"), "a character device, not a regular file"),
            (sock, "a socket, not a regular file"),
            (dangling, "cannot read the test file: No such file or directory"),
        ):
            with pytest.raises(Refused) as caught:
                userfile.read_bytes(path, SMALL)
            assert caught.value.source == str(path) and caught.value.problem == what, caught.value
            assert str(caught.value).startswith(f"{path}: {what}")
    finally:
        listener.close()


def test_the_size_cap_is_exact(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * SMALL.max_bytes)
    assert userfile.read_bytes(path, SMALL) == b"x" * SMALL.max_bytes
    path.write_bytes(b"x" * (SMALL.max_bytes + 1))
    with pytest.raises(Refused, match=f"the file is 65 bytes; a2a-lab reads at most {SMALL.max_bytes}") as caught:
        userfile.read_bytes(path, SMALL)
    assert caught.value.hint == "big"


def test_a_file_that_says_it_is_empty_is_read_up_to_the_cap() -> None:
    """/proc files have size 0: they are read in pieces, and no further than the cap."""
    assert b"Name:" in userfile.read_bytes("/proc/self/status", userfile.SCENARIO)
    with pytest.raises(Refused, match="the file is larger than 64 bytes"):
        userfile.read_bytes("/proc/self/status", SMALL)


def test_text_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"a\nb\n\xff\n")
    with pytest.raises(Refused) as caught:
        userfile.read_text(path, SMALL)
    assert str(caught.value).startswith(f"{path}: line 3: the file is not UTF-8 text")


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("[[[1]]]", True),
        ("[[[[1]]]]", False),
        ('{"a": {"b": ["[[[[[[", "]]]]"]}}', True),  # brackets inside strings are text
        ('["\\"[[[[[[\\\\", "[[[["]', True),  # and so are escaped quotes and backslashes before them
        ("[1,2,3,4,5,6,7,8,9]", True),  # ten values
        ("[1,2,3,4,5,6,7,8,9,10]", False),
        ('["a,b,c,d,e,f,g,h,i,j,k,l"]', True),  # commas inside strings are text
    ],
)
def test_the_json_scan_counts_structure_only(text: str, ok: bool) -> None:
    if ok:
        assert userfile.loads_json(text.encode(), "f", SMALL) == json.loads(text)
    else:
        with pytest.raises(Refused, match=r"nested more than 3 levels deep|more than 10 values"):
            userfile.loads_json(text.encode(), "f", SMALL)


def test_the_json_scan_is_linear_on_unterminated_escaped_quotes() -> None:
    """`"\\"\\"\\"...` never closes: a scan that looked for each string's end from every quote would be quadratic."""
    text = b'["' + b'\\"' * 2_000_000
    began = time.process_time()
    with pytest.raises(Refused, match="not valid JSON"):
        userfile.loads_json(text, "f", userfile.REPORT)
    assert time.process_time() - began < 2.0


def test_json_that_does_not_parse_names_where_and_never_what() -> None:
    with pytest.raises(Refused) as caught:
        userfile.loads_json(b'{"user": "root",\n "hash": $6$planted-secret}', "report.json", userfile.REPORT)
    assert str(caught.value).startswith("report.json: line 2, column 10: not valid JSON: Expecting value")
    assert "planted" not in str(caught.value)


def test_yaml_errors_quote_one_character_at_most(tmp_path: Path) -> None:
    """PyYAML's `str` quotes the line it stopped on (a password hash from /etc/shadow); only its reason is kept, with
    any longer quoted text (an alias name, say) left out."""
    cases = {
        "a: *planted-secret-alias\n": "found undefined alias (text not quoted)",
        "a: [planted-secret\n": "expected ',' or ']', but got '<stream end>'",
        "planted-secret: \x07\n": "the character #x0007 is not allowed",
        "a:\n\tb: planted-secret\n": "found character '\\t' that cannot start any token",
    }
    for text, problem in cases.items():
        path = tmp_path / "f.yaml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(Refused) as caught:
            yamlfile.load(path, userfile.BASELINE)
        said = str(caught.value)
        assert caught.value.where.startswith("line ") and problem in said and "planted" not in said, said


def test_each_kind_has_bounds_and_says_how_to_fix() -> None:
    for kind in (userfile.SCENARIO, userfile.BASELINE, userfile.REPORT, userfile.CARD, userfile.KEYS):
        assert kind.max_bytes > 0 and kind.max_depth > 0 and kind.max_values > 0, kind
        assert kind.too_large and kind.too_deep and kind.too_many, kind
    assert userfile.CARD.at_most(100).max_bytes == 100 and userfile.CARD.at_most(100).name == "agent card"
