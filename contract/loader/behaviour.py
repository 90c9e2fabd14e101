"""The `behaviour:` section: per operation, the rules (`when` a request matches, the reply it gets)."""

from __future__ import annotations

from typing import Any

from a2a_lab.protocol.operations import Operation

from ..scenario import (
    Rule,
    TaskScript,
    When,
)
from ..suggest import did_you_mean
from .reader import Reader
from .reply import read_reply


def _when(r: Reader, value: Any, path: str) -> When:
    w = r.mapping(value, path, "when")
    kw: dict[str, Any] = {}
    if "version" in w:
        kw["version"] = r.version(w["version"], f"{path}.version")
    if "binding" in w:
        kw["binding"] = r.binding(w["binding"], f"{path}.binding")
    for key in ("method", "message_id_prefix", "text_contains"):
        if key in w:
            kw[key] = r.string(w[key], f"{path}.{key}")
    if "header" in w:
        h = r.mapping(w["header"], f"{path}.header")
        kw["header"] = tuple((str(k).lower(), None if v is None else str(v)) for k, v in h.items())
    if "call" in w:
        n = r.integer(w["call"], f"{path}.call", 1)
        kw["calls"] = (n, n)
    if "calls" in w:
        c = r.mapping(w["calls"], f"{path}.calls", "when.calls")
        kw["calls"] = (
            r.integer(c.get("from", 1), f"{path}.calls.from", 1),
            r.integer(c["to"], f"{path}.calls.to", 1) if "to" in c else None,
        )
    if "has_task_id" in w:
        kw["has_task_id"] = r.boolean(w["has_task_id"], f"{path}.has_task_id")
    if "lacks" in w:
        lacks = w["lacks"]
        kw["lacks"] = (
            (r.string(lacks, f"{path}.lacks"),)
            if not isinstance(lacks, list)
            else r.strings(lacks, f"{path}.lacks", "dotted member paths")
        )
    return When(**kw)


def read_behaviour(r: Reader, value: Any, task: TaskScript) -> dict[Operation, tuple[Rule, ...]]:
    rules: dict[Operation, tuple[Rule, ...]] = {}
    for key, items in r.mapping(value, "behaviour").items():
        try:
            op = Operation(key)
        except ValueError:
            raise r.fail(
                f"behaviour.{key}",
                "unknown operation",
                did_you_mean(str(key), [o.value for o in Operation], "one of " + ", ".join(o.value for o in Operation)),
            ) from None
        if isinstance(items, dict):
            items = [items]
        if not isinstance(items, list) or not items:
            raise r.fail(
                f"behaviour.{key}",
                "expected a list of rules",
                "e.g. [{when: {call: 1}, reply: {error: InternalError}}, {reply: {message: hi}}]",
            )
        parsed = []
        for i, item in enumerate(items):
            path = f"behaviour.{key}[{i}]"
            it = r.mapping(item, path, "rule")
            if "reply" not in it:
                raise r.fail(f"{path}.reply", "required: what to answer")
            parsed.append(
                Rule(_when(r, it.get("when", {}), f"{path}.when"), read_reply(r, it["reply"], f"{path}.reply", task))
            )
        rules[op] = tuple(parsed)
    return rules
