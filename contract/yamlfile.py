"""Reading YAML as plain data, within bounds: how a2a-lab reads the YAML users give it (scenarios, baselines), on
the one reader of user files (`userfile`).

`yaml.safe_load` alone builds no objects, but it still reads a file of any size (a 100 MB scenario took 44 s),
expands aliases without limit when the data is walked (a "billion laughs" card took 2.7 GB), recurses once per
level of nesting (100 000 levels: a RecursionError), and turns `2024-05-01`, `!!binary` and `!!set` into dates,
bytes and sets that no JSON answer can carry. Here:

- the file is read by `userfile.read_text`: a regular file, its size checked before it is read (`Kind.max_bytes`);
- nesting is limited (`Kind.max_depth`), and so is the number of values, each alias counted as the whole value it
  names (`Kind.max_values`): an alias bomb stops at its first alias past the budget, and a value that contains an
  alias of itself (a cycle) is refused;
- only JSON's kinds of value are built (text, numbers, true/false, null, lists, mappings; merge keys `<<` too): any
  other tag is refused, dates and times stay the text they are written as, and whole numbers have at most
  `MAX_INTEGER_CHARS` characters.

Every refusal is a `userfile.Refused` with the line and column, and how to fix the file; text that is not YAML is
refused with PyYAML's own reason, quoting at most the one character it stopped at (never the line it is on).

Where PyYAML has libyaml, its C parser makes the events (the built-in catalogue loads in a third of the CPU time) and
the same Python code composes, bounds and builds them; text libyaml refuses is read again by the pure-Python parser,
so that the reason a user reads is always PyYAML's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from .userfile import SCENARIO, Kind, Refused, read_text

#: Longest whole number (Python refuses to convert one of more than 4 300 digits to text, so JSON could not carry it).
MAX_INTEGER_CHARS = 100

_CORE = "tag:yaml.org,2002:"
#: The tags whose values JSON can carry (`merge` is the `<<` key, resolved before anything is built).
ALLOWED_TAGS = frozenset(_CORE + name for name in ("null", "bool", "int", "float", "str", "seq", "map", "merge"))


def _where(mark: Any) -> str:
    """`line L, column C` of a yaml Mark (PyYAML's or libyaml's), or empty."""
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


def _short(tag: str) -> str:
    return "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag


class _Bounded:
    """What counts as a document is composed: depth, values (aliases at their full size), tags. Mixed into a loader
    before its composer, so that every node goes through `compose_node` here whichever parser made its events."""

    _kind: Kind
    _depth: int
    _nodes: int
    _sizes: dict[str, int]

    def _bounds(self, kind: Kind) -> None:
        self._kind = kind
        self._depth = 0
        self._nodes = 0
        #: The size of every anchored value composed so far (aliases count this much); absent while it is composed.
        self._sizes: dict[str, int] = {}

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[attr-defined]  # the parser's, beside this mixin
        if isinstance(event, yaml.AliasEvent):
            size = self._sizes.get(event.anchor or "")
            node: yaml.Node | None = super().compose_node(parent, index)  # type: ignore[misc]  # undefined: PyYAML's error
            if size is None:
                raise Refused(
                    "",
                    _where(event.start_mark),
                    f"the alias *{event.anchor} is inside the value &{event.anchor} names (a cycle)",
                    "an alias may only name a value that is complete before it",
                )
            self._count(size, event.start_mark, f"the alias *{event.anchor}")
            return node
        self._depth += 1
        if self._depth > self._kind.max_depth:
            raise Refused(
                "",
                _where(event.start_mark),
                f"nested more than {self._kind.max_depth} levels deep",
                self._kind.too_deep,
            )
        before = self._nodes
        node = super().compose_node(parent, index)  # type: ignore[misc]  # the composer's, beside this mixin
        assert isinstance(node, yaml.Node) or node is None
        assert node is not None  # PyYAML composes a node for every event but the end of the stream
        self._depth -= 1
        self._check(node)
        self._count(1, node.start_mark, "this value")
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            self._sizes[anchor] = self._nodes - before
        return node

    def _check(self, node: yaml.Node) -> None:
        if node.tag not in ALLOWED_TAGS:
            raise Refused(
                "",
                _where(node.start_mark),
                f"the tag {_short(node.tag)} is not allowed",
                f"a {self._kind.name} holds text, numbers, true/false, null, lists and mappings only: "
                "remove the tag (and quote the value if it must stay text)",
            )
        if node.tag == _CORE + "int" and len(node.value) > MAX_INTEGER_CHARS:
            raise Refused(
                "",
                _where(node.start_mark),
                f"a whole number of {len(node.value)} characters (at most {MAX_INTEGER_CHARS})",
                "quote it if it is text",
            )

    def _count(self, size: int, mark: Any, what: str) -> None:
        self._nodes += size
        most = self._kind.max_values
        if self._nodes > most:
            raise Refused(
                "",
                _where(mark),
                f"more than {most} values, each alias counted as the value it names ({what} makes {self._nodes})",
                self._kind.too_many,
            )


class _Loader(_Bounded, yaml.SafeLoader):
    """PyYAML's pure-Python SafeLoader, bounded: its errors are the ones users read (see `_run`)."""

    def __init__(self, stream: str, kind: Kind) -> None:
        super().__init__(stream)
        self._bounds(kind)


#: libyaml's parser, where PyYAML was built with it: the same events, scanned in C (about 3 times faster over the
#: catalogue), composed and bounded by the same Python code.
_C_PARSER: Any = getattr(getattr(yaml, "cyaml", None), "CParser", None) if yaml.__with_libyaml__ else None

if _C_PARSER is not None:

    class _FastLoader(
        _Bounded,
        yaml.composer.Composer,
        _C_PARSER,  # type: ignore[misc]  # libyaml's parser is untyped
        yaml.constructor.SafeConstructor,
        yaml.resolver.Resolver,
    ):
        def __init__(self, stream: str, kind: Kind) -> None:
            _C_PARSER.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            self._bounds(kind)


# Dates and times stay text: JSON has no such values, and a scenario means the characters it wrote.
_Loader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != _CORE + "timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
if _C_PARSER is not None:
    _FastLoader.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers


#: A quoted piece of the text in PyYAML's reason: kept when it is one character (what the parser stopped at) or one of
#: its token names (`'<block end>'`), since a longer one may be anything the file holds (an alias name, a tag).
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")


def _quoted(match: re.Match[str]) -> str:
    inner = match.group(1) if match.group(1) is not None else match.group(2)
    short = len(inner) == 1 or (len(inner) <= 6 and inner.startswith("\\")) or re.fullmatch(r"<[a-z ]+>", inner)
    return match.group(0) if short else "(text not quoted)"


def _refusal(exc: yaml.YAMLError, text: str, source: str | Path) -> Refused:
    """Text that is not YAML: where PyYAML stopped and why (its `problem`, never its `str`, which quotes the line)."""
    hint = "check indentation and quoting around that line"
    if isinstance(exc, yaml.reader.ReaderError):  # a character YAML does not allow (a control character)
        line = text.count("\n", 0, exc.position) + 1
        return Refused(
            source, f"line {line}", f"not valid YAML: the character #x{exc.character:04x} is not allowed", hint
        )
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None)
    why = _QUOTED.sub(_quoted, problem)[:200] if isinstance(problem, str) else type(exc).__name__
    return Refused(source, _where(mark), f"not valid YAML: {why}", hint)


def _run(text: str, kind: Kind, source: str | Path, step: str) -> Any:
    if _C_PARSER is not None:
        fast = None
        try:
            yaml.reader.Reader(text)  # PyYAML's check of the characters, which libyaml does not make alike
            fast = _FastLoader(text, kind)
            return getattr(fast, step)()
        except Refused as exc:
            raise Refused(source, exc.where, exc.problem, exc.hint) from None
        except yaml.YAMLError:
            pass  # not YAML: read again below, so that the reason and its place are PyYAML's own, as always
        finally:
            if fast is not None:
                fast.dispose()
    loader = None
    try:
        loader = _Loader(text, kind)  # the reader checks the characters here
        return getattr(loader, step)()
    except Refused as exc:
        raise Refused(source, exc.where, exc.problem, exc.hint) from None
    except yaml.YAMLError as exc:
        raise _refusal(exc, text, source) from None
    finally:
        if loader is not None:
            loader.dispose()


def loads(text: str, kind: Kind = SCENARIO, source: str | Path = "") -> Any:
    """The data of one YAML document (a file of that kind, read from `source`), or Refused: beyond the kind's bounds,
    a tag beyond JSON, or text that is not YAML."""
    return _run(text, kind, source, "get_single_data")


def compose(text: str, kind: Kind, source: str | Path = "") -> yaml.Node | None:
    """The nodes of one YAML document, as `loads` reads it but not built into data (None: an empty document): for a
    reader that names the line of each value it refuses."""
    node: yaml.Node | None = _run(text, kind, source, "get_single_node")
    return node


def where(node: yaml.Node) -> str:
    """`line L, column C` of a composed node."""
    return _where(node.start_mark)


_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def locate(path: str | Path, kind: Kind, field_path: str) -> str:
    """`line L, column C` of the value at `field_path` (`card.object.supportedInterfaces[0].protocolVersion`) in a
    YAML file of that kind, or "" where the file cannot be read again or the path leads nowhere in it (a value made
    from others, such as a family's member)."""
    try:
        node = compose(read_text(path, kind), kind, path)
    except Refused:
        return ""
    for key, index in _STEP.findall(field_path):
        if isinstance(node, yaml.MappingNode) and key:
            node = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)
        elif isinstance(node, yaml.SequenceNode) and index and int(index) < len(node.value):
            node = node.value[int(index)]
        else:
            return ""
    return where(node) if node is not None and field_path else ""


def load(path: str | Path, kind: Kind = SCENARIO) -> Any:
    """A YAML file of that kind: userfile.read_text, then loads. Raises Refused."""
    return loads(read_text(path, kind), kind, path)
