"""Reading a YAML file as plain data, within bounds: the one way a2a-lab reads the YAML it is given.

`yaml.safe_load` alone builds no objects, but it still reads a file of any size (a 100 MB scenario took 44 s),
expands aliases without limit when the data is walked (a "billion laughs" card took 2.7 GB), recurses once per
level of nesting (100 000 levels: a RecursionError), and turns `2024-05-01`, `!!binary` and `!!set` into dates,
bytes and sets that no JSON answer can carry. Here:

- the file's size is checked before it is read (`MAX_BYTES`), and no more than that is ever read;
- nesting is limited (`MAX_DEPTH`), and so is the number of values, each alias counted as the whole value it names
  (`MAX_NODES`): an alias bomb stops at its first alias past the budget, and a value that contains an alias of
  itself (a cycle) is refused;
- only JSON's kinds of value are built (text, numbers, true/false, null, lists, mappings; merge keys `<<` too): any
  other tag is refused, dates and times stay the text they are written as, and whole numbers have at most
  `MAX_INTEGER_CHARS` characters.

Every refusal is a `Refused` with the line and column, and how to fix the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml

#: Largest file read (scenario files are a few KiB; the largest in the catalogue is under 6 KiB).
MAX_BYTES = 1024 * 1024
#: Deepest nesting of lists and mappings.
MAX_DEPTH = 100
#: Most values (scalars, lists, mappings) in one file, each alias counted as the whole value it names (the catalogue's
#: largest file has under 1 000). Reading one costs about 40 µs in PyYAML: the budget bounds a file's reading time.
MAX_NODES = 20_000

#: Longest whole number (Python refuses to convert one of more than 4 300 digits to text, so JSON could not carry it).
MAX_INTEGER_CHARS = 100

_CORE = "tag:yaml.org,2002:"
#: The tags whose values JSON can carry (`merge` is the `<<` key, resolved before anything is built).
ALLOWED_TAGS = frozenset(_CORE + name for name in ("null", "bool", "int", "float", "str", "seq", "map", "merge"))


class Refused(ValueError):
    """YAML that a2a-lab does not read: where (`line L, column C`, or empty for the whole file), what, how to fix."""

    def __init__(self, where: str, problem: str, hint: str) -> None:
        self.where, self.problem, self.hint = where, problem, hint
        super().__init__(f"{where or '(whole file)'}: {problem}")


def _where(mark: Any) -> str:
    """`line L, column C` of a yaml Mark (PyYAML's or libyaml's), or empty."""
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


def _short(tag: str) -> str:
    return "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag


class _Loader(yaml.SafeLoader):
    """SafeLoader that counts as it composes: depth, values (aliases at their full size), tags."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0
        #: The size of every anchored value composed so far (aliases count this much); absent while it is composed.
        self._sizes: dict[str, int] = {}

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            size = self._sizes.get(event.anchor or "")
            node = super().compose_node(parent, index)  # an undefined alias: PyYAML's own error, with its line
            if size is None:
                raise Refused(
                    _where(event.start_mark),
                    f"the alias *{event.anchor} is inside the value &{event.anchor} names (a cycle)",
                    "an alias may only name a value that is complete before it",
                )
            self._count(size, event.start_mark, f"the alias *{event.anchor}")
            return node
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise Refused(
                _where(event.start_mark),
                f"nested more than {MAX_DEPTH} levels deep",
                "a scenario's lists and mappings nest a few levels; write deep data as text (card.raw, reply.raw)",
            )
        before = self._nodes
        node = super().compose_node(parent, index)
        assert node is not None  # PyYAML composes a node for every event but the end of the stream
        self._depth -= 1
        self._check(node)
        self._count(1, node.start_mark, "this value")
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            self._sizes[anchor] = self._nodes - before
        return node

    @staticmethod
    def _check(node: yaml.Node) -> None:
        if node.tag not in ALLOWED_TAGS:
            raise Refused(
                _where(node.start_mark),
                f"the tag {_short(node.tag)} is not allowed",
                "a scenario holds text, numbers, true/false, null, lists and mappings only: "
                "remove the tag (and quote the value if it must stay text)",
            )
        if node.tag == _CORE + "int" and len(node.value) > MAX_INTEGER_CHARS:
            raise Refused(
                _where(node.start_mark),
                f"a whole number of {len(node.value)} characters (at most {MAX_INTEGER_CHARS})",
                "quote it if it is text",
            )

    def _count(self, size: int, mark: Any, what: str) -> None:
        self._nodes += size
        if self._nodes > MAX_NODES:
            raise Refused(
                _where(mark),
                f"more than {MAX_NODES} values, each alias counted as the value it names ({what} makes {self._nodes})",
                "a scenario needs a few hundred: keep files small, and aliases few (each is expanded where it is used)",
            )


# Dates and times stay text: JSON has no such values, and a scenario means the characters it wrote.
_Loader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != _CORE + "timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def loads(text: str) -> Any:
    """The data of one YAML document, or Refused, or yaml.YAMLError (PyYAML's own message and mark) for text that is
    not YAML."""
    loader = _Loader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def read_text(path: Path) -> str:
    """A file's text: a regular file of at most MAX_BYTES of UTF-8, checked before it is read. Raises Refused
    (too large, not a regular file, not UTF-8) or OSError (cannot be read)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block the open: it is refused below
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise Refused("", "not a regular file", "give the path of a .yaml file")
    with os.fdopen(fd, "rb") as fh:
        if info.st_size > MAX_BYTES:
            raise Refused(
                "",
                f"the file is {info.st_size} bytes; a2a-lab reads at most {MAX_BYTES}",
                "a scenario describes behaviour in a few KiB; an oversize card needs no big file (card.pad_to)",
            )
        data = fh.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:  # it grew while being read
        raise Refused("", f"the file is larger than {MAX_BYTES} bytes", "keep scenario files small")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("", "the file is not UTF-8 text", "save it as UTF-8") from None


def load(path: Path) -> Any:
    """read_text, then loads."""
    return loads(read_text(path))
