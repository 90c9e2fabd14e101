"""Reading a file a user hands a2a-lab, within bounds: the one reader of scenarios, baselines, JSON reports
(`--compare`, `report merge`), agent cards, key sets and ACTS files (and of HAR files to come).

Each kind of file (`Kind`) has its bounds, all checked before the data is built:

- only a regular file is read: a directory, a FIFO, a socket or a device is refused for what it is, without waiting
  on it (`/dev/zero`, a FIFO nobody writes to);
- its size is checked before it is read, and no more than `max_bytes` is ever read (a file growing meanwhile stops
  there);
- it must be UTF-8 text;
- its nesting (`max_depth`) and its number of values (`max_values`) are bounded: JSON by a scan of its brackets and
  commas before it is parsed, YAML as it is composed (`yamlfile`), so that nothing is built past them.

Every refusal is a `Refused` that names the file, says where in it (line, column) when that is known, what is wrong and
how to fix it, and never quotes what it could not read: the file may be anything (a symlink to `/etc/shadow`).
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from a2a_lab.protocol.exceptions import LabError

MIB = 1024 * 1024


@dataclass(frozen=True)
class Kind:
    """What a file is for (its name in every error), how much of it a2a-lab reads, and how to fix a file past that."""

    name: str
    max_bytes: int
    #: Deepest nesting of lists and mappings (JSON arrays and objects).
    max_depth: int = 0
    #: Most values (scalars, lists, mappings; YAML: each alias counted as the value it names).
    max_values: int = 0
    too_large: str = ""
    too_deep: str = ""
    too_many: str = ""

    def at_most(self, max_bytes: int) -> Kind:
        """The same kind, read up to another size (a command's own option, e.g. `card check --max-bytes`)."""
        return replace(self, max_bytes=max_bytes)


#: Scenario files: the catalogue's largest is under 6 KiB and 1 000 values. A YAML value costs some 40-80 µs to read,
#: so the value budget bounds the reading time to about a second.
SCENARIO = Kind(
    "scenario file",
    max_bytes=MIB,
    max_depth=100,
    max_values=20_000,
    too_large="a scenario describes behaviour in a few KiB; an oversize card needs no big file (card.pad_to)",
    too_deep="a scenario's lists and mappings nest a few levels; write deep data as text (card.raw, reply.raw)",
    too_many="a scenario needs a few hundred: keep files small, and aliases few (each is expanded where it is used)",
)
#: Baselines: a map of scenario id to check id to reason nests 2 levels; excusing every check of every catalogue
#: scenario (149 x 39) takes some 12 000 values.
BASELINE = Kind(
    "baseline",
    max_bytes=MIB,
    max_depth=8,
    max_values=20_000,
    too_large="a baseline lists expected failures in a few KiB: excuse a whole scenario with '*' rather than its "
    "every check",
    too_deep="a baseline is {scenario id: {check id or '*': reason}}: two levels",
    too_many="excuse a whole scenario with '*' rather than its every check",
)
#: JSON reports (`--compare`, `report merge`): a run of the whole catalogue by the built-in client writes about 5 MB
#: and 90 000 values; this leaves room for dozens of clients merged in one file, and chatty clients' journals.
REPORT = Kind(
    "JSON report",
    max_bytes=256 * MIB,
    max_depth=100,
    max_values=8_000_000,
    too_large="give the report of one run (or of one `report merge`), as a2a-lab wrote it",
    too_deep="give a JSON report as a2a-lab wrote it (about 15 levels deep)",
    too_many="give the report of one run (or of one `report merge`), as a2a-lab wrote it",
)
#: Agent cards (`card check FILE`): real cards are a few KiB and a few hundred values; the command reads at most its
#: --max-bytes (64 KiB unless raised, as a careful client), which may be raised to this.
CARD = Kind(
    "agent card",
    max_bytes=64 * MIB,
    max_depth=100,
    max_values=1_000_000,
    too_large="raise --max-bytes to check it anyway",
    too_deep="a card nests a few levels; this is not one",
    too_many="a card has a few hundred values; this is not one",
)
#: Key sets (JWKS files): a few keys, a few KiB.
KEYS = Kind(
    "key set",
    max_bytes=MIB,
    max_depth=16,
    max_values=100_000,
    too_large='a key set holds a few public keys: {"keys": [...]}',
    too_deep='a key set is {"keys": [{...}, ...]}: three levels',
    too_many='a key set holds a few public keys: {"keys": [...]}',
)

#: HAR captures (`record --from-har`; browser devtools, mitmproxy, Charles): a session of a few hundred exchanges is a
#: few MiB; bodies are text in it, so a long stream or a big artifact weighs more.
HAR = Kind(
    "HAR capture",
    max_bytes=64 * MIB,
    max_depth=64,
    max_values=4_000_000,
    too_large="export only the A2A exchanges (filter the capture by the agent's host before exporting)",
    too_deep="a HAR nests a few levels ({log: {entries: [...]}}); this is not one",
    too_many="export only the A2A exchanges (filter the capture by the agent's host before exporting)",
)


#: ACTS files (`a2a-lab acts run`, ACTS 0.1.0): the largest official one is some 14 KiB and 1 500 values; a suite
#: of every official file is some 130 KiB. Golden payloads nest a dozen levels.
ACTS = Kind(
    "ACTS file",
    max_bytes=4 * MIB,
    max_depth=64,
    max_values=200_000,
    too_large="an ACTS file holds one area's tests in a few dozen KiB: split it and list the parts in `include`",
    too_deep="ACTS tests and golden payloads nest a dozen levels; this is not an ACTS file",
    too_many="split the file by area and list the parts in a suite file's `include`",
)


#: TLS files given to the reference client (--ca-file, --client-cert, --client-key; PEM, read by OpenSSL once checked
#: here): a CA bundle of the whole web is some 200 KiB.
TLS = Kind(
    "TLS file", max_bytes=MIB, too_large="give one PEM file of certificates or a key, not a folder or an archive"
)


class Refused(LabError, ValueError):
    """A file a2a-lab does not read: which (`source`), where in it (`line L, column C`, or empty for the whole file),
    what, and how to fix it."""

    def __init__(self, source: str | Path, where: str, problem: str, hint: str) -> None:
        self.source, self.where, self.problem, self.hint = str(source), where, problem, hint
        said = ": ".join(part for part in (self.source, where, problem) if part)
        super().__init__(said + (f"\n  hint: {hint}" if hint else ""))


_NOT_REGULAR = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _what(mode: int) -> str:
    return next((what for test, what in _NOT_REGULAR if test(mode)), "not a file")


def _a(name: str) -> str:
    return ("an " if name[:1] in "aeiou" else "a ") + name


def _not_regular(source: str | Path, kind: Kind, mode: int) -> Refused:
    return Refused(source, "", f"{_what(mode)}, not a regular file", f"give the path of {_a(kind.name)}")


def _unreadable(source: str | Path, kind: Kind, exc: OSError) -> Refused:
    if exc.errno == errno.ENXIO:  # a socket: opening it fails; say what it is
        try:
            return _not_regular(source, kind, os.stat(source).st_mode)
        except OSError:
            pass
    return Refused(source, "", f"cannot read the {kind.name}: {exc.strerror or type(exc).__name__}", "")


def _read_up_to(fd: int, size: int, expected: int) -> bytes:
    """At most `size` bytes, fewer only at the end of the file: in one read of the `expected` size (a regular file's,
    so that the bytes are held once), then in pieces (a file that grows, or says it is empty: /proc)."""
    first = os.read(fd, min(size, expected + 1 if expected else MIB))
    chunks, left = [first], size - len(first)
    while left > 0 and chunks[-1]:
        chunks.append(os.read(fd, min(left, MIB)))
        left -= len(chunks[-1])
    return first if len(chunks) <= 2 and not chunks[-1] else b"".join(chunks)


def read_bytes(path: str | Path, kind: Kind) -> bytes:
    """The bytes of a regular file of at most `kind.max_bytes`, checked before it is read. Raises Refused."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO must not block the open
    except OSError as exc:
        raise _unreadable(path, kind, exc) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, kind, info.st_mode)
        if info.st_size > kind.max_bytes:
            raise Refused(
                path, "", f"the file is {info.st_size} bytes; a2a-lab reads at most {kind.max_bytes}", kind.too_large
            )
        data = _read_up_to(fd, kind.max_bytes + 1, info.st_size)
    except OSError as exc:
        raise _unreadable(path, kind, exc) from None
    finally:
        os.close(fd)
    if len(data) > kind.max_bytes:  # it grew while being read, or says it is smaller than it is (/proc)
        raise Refused(path, "", f"the file is larger than {kind.max_bytes} bytes", kind.too_large)
    return data


def decode(data: bytes, source: str | Path) -> str:
    """UTF-8 text, or Refused naming the line of the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise Refused(source, f"line {line}", "the file is not UTF-8 text", "save it as UTF-8") from None


def read_text(path: str | Path, kind: Kind) -> str:
    """read_bytes, as UTF-8 text."""
    return decode(read_bytes(path, kind), path)


# JSON's structure, without building anything: with its escapes taken out, every `"` left opens or closes a string
# (a string holds no raw `"`), so removing `"..."` leaves brackets and commas only where they mean something.
_ESCAPED_BACKSLASH, _ESCAPED_QUOTE = b"\\\\", b'\\"'
_STRING = re.compile(rb'"[^"]*"')
_STRUCTURE = b"[]{},"
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in _STRUCTURE)
_OPENING = frozenset(b"[{")


def check_json_shape(data: bytes, source: str | Path, kind: Kind) -> None:
    """Refuse JSON text that nests deeper than `kind.max_depth` or holds more than `kind.max_values` values, from its
    brackets and commas alone (a value but the first of an array or object follows a comma, so values are at most
    1 + commas + arrays and objects). Linear in the text; it builds nothing. Text that is not JSON passes, for the
    parser to say where it breaks."""
    skeleton = _STRING.sub(b"", data.replace(_ESCAPED_BACKSLASH, b"").replace(_ESCAPED_QUOTE, b""))
    structure = skeleton.translate(None, _NOT_STRUCTURE)
    del skeleton
    commas = structure.count(b",")
    values = 1 + commas + (len(structure) - commas + 1) // 2  # every container has an opening and a closing bracket
    if values > kind.max_values:
        raise Refused(source, "", f"more than {kind.max_values} values (about {values})", kind.too_many)
    depth = 0
    for byte in structure.translate(None, b","):
        if byte in _OPENING:
            depth += 1
            if depth > kind.max_depth:
                raise Refused(source, "", f"nested more than {kind.max_depth} levels deep", kind.too_deep)
        else:
            depth -= 1


def loads_json(data: bytes, source: str | Path, kind: Kind) -> Any:
    """The value of JSON text read from `source`, within the kind's depth and values. Raises Refused: where the text
    stops being JSON (line, column) and why, never what it says there."""
    check_json_shape(data, source, kind)
    text = decode(data, source)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise Refused(source, where, f"not valid JSON: {exc.msg}", f"{_a(kind.name)} is JSON text") from None
    except ValueError as exc:  # a whole number past Python's 4 300 digits (the message quotes none of it)
        raise Refused(
            source, "", f"not valid JSON: {str(exc).split(';')[0]}", f"{_a(kind.name)} is JSON text"
        ) from None


def load_json(path: str | Path, kind: Kind) -> Any:
    """read_bytes, then loads_json."""
    return loads_json(read_bytes(path, kind), path, kind)
