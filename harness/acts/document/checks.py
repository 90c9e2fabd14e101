"""The assertion grammar (§5): operator maps, field maps, positional lists, named assertions and dot-paths, checked as
they are read."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from a2a_lab.contract.suggest import did_you_mean, one_of
from a2a_lab.harness.acts.document.fields import Fields, join, kind_of
from a2a_lab.harness.acts.document.grammar import OPERATORS, PATH, TYPES
from a2a_lab.harness.acts.document.records import CollectionMatch, NamedAssertion


def read_named(f: Fields, raw: Any, where: str, named: bool) -> NamedAssertion:
    allowed = (
        ("id", "description", "source", "path", "match", "any", "all", "none")
        if named
        else (
            "source",
            "any",
            "all",
            "none",
        )
    )
    f.map(raw, where, allowed)
    source = f.text(raw, where, "source", required=True)
    path = f.text(raw, where, "path")
    if path:
        check_path(f, path, join(where, "path"))
    if "match" in raw:
        check_assertion(f, raw["match"], join(where, "match"))
    coll = {}
    for key in ("any", "all", "none"):
        if key in raw:
            at = join(where, key)
            f.map(raw[key], at, ("path", "match"))
            cpath = f.text(raw[key], at, "path", required=True)
            check_path(f, cpath, join(at, "path"))
            match = raw[key].get("match")
            if not isinstance(match, dict):
                raise f.fail(
                    join(at, "match"),
                    f"is required and must be a mapping, got {kind_of(match)}",
                )
            check_assertion_map(f, match, join(at, "match"))
            coll[key] = CollectionMatch(cpath, match)
    if "match" not in raw and not coll:
        raise f.fail(where, "asserts nothing", "give match, any, all or none (§5.5)")
    return NamedAssertion(
        source,
        f.text(raw, where, "id"),
        path,
        raw.get("match"),
        "match" in raw,
        coll.get("any"),
        coll.get("all"),
        coll.get("none"),
    )


def check_path(f: Fields, path: str, where: str) -> None:
    if not PATH.match(path.strip()):
        raise f.fail(
            where,
            f"{path!r} is not a dot-path",
            "task.artifacts[0].parts[*].text (§5.2)",
        )


def is_operator_map(value: Any) -> bool:
    """A mapping is an assertion-object when every key is an operator (§5.1); otherwise it mirrors the response."""
    return isinstance(value, dict) and bool(value) and all(isinstance(k, str) and k in OPERATORS for k in value)


def check_assertion(f: Fields, value: Any, where: str) -> None:
    """Validate an assertion (§5.1): a bare value, an operator map, a nested field map or a positional list."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            check_assertion(f, item, f"{where}[{i}]")
        return
    if not isinstance(value, dict):
        return
    if not is_operator_map(value):
        check_assertion_map(f, value, where)
        return
    for op, arg in value.items():
        _check_operator(f, op, arg, join(where, op))


def check_assertion_map(f: Fields, value: Mapping[str, Any], where: str) -> None:
    if is_operator_map(value):
        for op, arg in value.items():
            _check_operator(f, op, arg, join(where, op))
        return
    for key, item in value.items():
        if not isinstance(key, str):
            raise f.fail(join(where, str(key)), "a field name must be text")
        if "[" in key or (key.count(".") and not key.startswith("@")):
            raise f.fail(
                join(where, key),
                "a dot-path is not a key in an expect block",
                "nest the fields as YAML maps (§5.2)",
            )
        check_assertion(f, item, join(where, key))


def _check_operator(f: Fields, op: str, arg: Any, where: str) -> None:
    kind = OPERATORS[op]
    number = isinstance(arg, (int, float)) and not isinstance(arg, bool)
    if kind == "type" and arg not in TYPES:
        raise f.fail(where, f"{arg!r} is not a type", one_of(str(arg), TYPES))
    if kind == "true" and arg is not True:
        raise f.fail(
            where,
            f"takes true, got {arg!r}",
            f"write `{op}: true`, or `not: {{{op}: true}}`",
        )
    if kind in ("text", "regex") and not isinstance(arg, str):
        raise f.fail(where, f"takes text, got {kind_of(arg)}")
    if kind == "regex":
        try:
            re.compile(arg)
        except re.error as exc:
            raise f.fail(where, f"{arg!r} is not a regular expression: {exc}") from None
    if kind == "number" and not number:
        raise f.fail(where, f"takes a number, got {arg!r}")
    if kind == "int" and (not isinstance(arg, int) or isinstance(arg, bool) or arg < 0):
        raise f.fail(where, f"takes a whole number >= 0, got {arg!r}")
    if kind in ("list", "assertions") and (not isinstance(arg, list) or not arg):
        raise f.fail(where, f"takes a non-empty list, got {kind_of(arg)}")
    if kind == "assertions":
        for i, item in enumerate(arg):
            check_assertion(f, item, f"{where}[{i}]")
    if kind == "assertion":
        check_assertion(f, arg, where)


def suggest_operator(key: str) -> str:
    """A hint for a key that looks like a misspelt operator."""
    return did_you_mean(key, OPERATORS)
