"""Structured edits (`edit:` lists on replies, stream events, push notifications and the card): set, delete,
rename, wrap, unwrap at a path."""

from __future__ import annotations

from typing import Any

from .. import edits
from ..edits import Edit, EditOp
from .reader import Reader

_EDIT_OPS = tuple(op.value for op in EditOp)


def read_edits(r: Reader, value: Any, path: str) -> tuple[Edit, ...]:
    """`edit`: structured edits of a generated answer, event, notification or card (contract/edits.py)."""
    if not isinstance(value, list) or not value:
        raise r.fail(path, "expected a non-empty list of edits", "e.g. [{at: result.task, wrap: task}]")
    return tuple(_edit(r, item, f"{path}[{i}]") for i, item in enumerate(value))


def _edit(r: Reader, value: Any, path: str) -> Edit:
    e = r.mapping(value, path, "reply.edit[]")
    at = r.string(e.get("at"), f"{path}.at") if "at" in e else None
    steps = edits.parse_path(at) if at is not None else None
    if steps is None:
        raise r.fail(
            f"{path}.at",
            "required: the path of the member to change" if at is None else f"{at!r} is not a path",
            'dotted keys and [index]es from the top of the answer as sent, e.g. result.task.status.state; "" the whole',
        )
    ops = [k for k in _EDIT_OPS if k in e]
    if len(ops) != 1:
        raise r.fail(path, f"an edit does exactly one of {', '.join(_EDIT_OPS)} (found {', '.join(ops) or 'none'})")
    op = EditOp(ops[0])
    for name in ("delete", "unwrap"):
        if op.value == name and e[name] is not True:
            raise r.fail(f"{path}.{name}", f"`{name}: {e[name]!r}` edits nothing", f"write {name}: true")
    if not steps and op in (EditOp.DELETE, EditOp.RENAME):
        raise r.fail(f"{path}.at", f"the whole answer cannot be {op.value}d", "name a member")
    key = r.string(e[op.value], f"{path}.{op.value}") if op in (EditOp.RENAME, EditOp.WRAP) else ""
    if op in (EditOp.RENAME, EditOp.WRAP) and not key:
        raise r.fail(f"{path}.{op.value}", "a key is needed", "e.g. task")
    return Edit(steps, op, e.get("set"), key)
