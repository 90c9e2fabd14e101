"""Structured edits of what the server generates (`reply.edit`, a stream event's `edit`, `push.edit`, `card.edit`):
change one member of an answer at a path, keeping everything else the server made (its ids, its states, its
artifacts). A shape quirk a real server has (a result wrapped one level too deep, a renamed member, a value of another
type) is then data, not a raw reply that loses the generated ids.

A path names members from the top of the JSON as sent: `result.task.status.state` (a JSON-RPC answer),
`task.status` (HTTP+JSON), `artifacts[0].parts` (a list index), and `""` the whole value. Each edit does one thing:

- `set`: the member gets this value (any JSON type); its parent must exist, the member need not;
- `delete`: the member is removed;
- `rename`: the member keeps its value under another key, in the same place among its siblings;
- `wrap`: the value moves one level down, into an object under this key (`{"task": ...}`);
- `unwrap`: an object of exactly one member is replaced by that member's value (the reverse of `wrap`).

An edit whose path leads nowhere in a given answer (an error answer has no `result`) changes nothing there.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

#: One step of a path: a key, or a list index.
Step = str | int
_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_PATH = re.compile(r"^(?:[^.\[\]]+|\[\d+\])(?:\.[^.\[\]]+|\[\d+\])*$")


class EditOp(StrEnum):
    SET = "set"
    DELETE = "delete"
    RENAME = "rename"
    WRAP = "wrap"
    UNWRAP = "unwrap"


@dataclass(frozen=True)
class Edit:
    """One change at one path: `value` for set, `key` for rename and wrap."""

    path: tuple[Step, ...]
    op: EditOp
    value: Any = None
    key: str = ""

    @property
    def where(self) -> str:
        return render_path(self.path)


def parse_path(text: str) -> tuple[Step, ...] | None:
    """`result.task.artifacts[0]` -> ("result", "task", "artifacts", 0); "" -> (); None when it is not a path."""
    if text == "":
        return ()
    if not _PATH.match(text):
        return None
    return tuple(int(index) if index else key for key, index in _STEP.findall(text))


def render_path(path: tuple[Step, ...]) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


def apply(value: Any, edits: tuple[Edit, ...]) -> Any:
    """The value with every edit applied in order, as a new value (the one given is not changed)."""
    if not edits:
        return value
    out = copy.deepcopy(value)
    for edit in edits:
        out = _apply_one(out, edit)
    return out


def _apply_one(root: Any, edit: Edit) -> Any:
    if not edit.path:
        return _change(root, edit)
    parent = root
    for step in edit.path[:-1]:
        parent = _child(parent, step)
        if parent is _MISSING:
            return root
    last = edit.path[-1]
    settable = isinstance(parent, dict) and isinstance(last, str)
    if edit.op is EditOp.SET and not settable:
        settable = isinstance(parent, list) and isinstance(last, int) and last < len(parent)
    current = _child(parent, last)
    if edit.op is EditOp.SET:
        if settable:
            parent[last] = copy.deepcopy(edit.value)
    elif current is _MISSING:
        pass
    elif edit.op is EditOp.DELETE:
        del parent[last]
    elif edit.op is EditOp.RENAME:
        if isinstance(parent, dict):
            items = [(edit.key if k == last else k, v) for k, v in parent.items() if k != edit.key or k == last]
            parent.clear()
            parent.update(items)
    else:
        parent[last] = _change(current, edit)
    return root


def _change(value: Any, edit: Edit) -> Any:
    """What `wrap`, `unwrap` or `set` makes of a whole value (delete and rename need a parent: the loader checks)."""
    if edit.op is EditOp.WRAP:
        return {edit.key: value}
    if edit.op is EditOp.UNWRAP:
        return next(iter(value.values())) if isinstance(value, dict) and len(value) == 1 else value
    if edit.op is EditOp.SET:
        return copy.deepcopy(edit.value)
    return value


class _Missing:
    pass


_MISSING = _Missing()


def _child(parent: Any, step: Step) -> Any:
    if isinstance(parent, dict) and isinstance(step, str):
        return parent.get(step, _MISSING)
    if isinstance(parent, list) and isinstance(step, int) and step < len(parent):
        return parent[step]
    return _MISSING
