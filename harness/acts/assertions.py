"""ACTS's assertion language (0.1.0 §5): exact matches, operators, nested field maps, positional lists, dot-paths
with indices and wildcards, collection matches, `repeat.until` expressions, and the `{{...}}` variables (§8, §12.2).

Decisions where the draft is silent (docs/how-to/acts.md lists them): `absent` holds for a field that is
missing or null and `exists` for one present and not null (ProtoJSON writes an unset field either way); a list in an
expect block asserts its elements by position and the response may hold more; `one_of` compares scalars by equality
and applies a mapping or list entry as an assertion; `matches` is a regular-expression search.
"""

from __future__ import annotations

import math
import os
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from a2a_lab.contract.redaction import REDACTED
from a2a_lab.harness.acts import regex_guard
from a2a_lab.harness.acts.document import (
    RESOLVED_CHARS,
    RESOLVED_REFERENCES,
    VARIABLE_DEPTH,
    Until,
    is_operator_map,
)
from a2a_lab.protocol.exceptions import LabError

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "(absent)"})()
#: `{{ name }}` (linear: the name is stripped after the match, not by backtracking around it).
_VAR = re.compile(r"\{\{([^{}]*)\}\}")
#: An environment value shorter than this is not hidden in reports (it would hide every `1` or `yes` with it).
SECRET_MIN_CHARS = 4
_SEGMENT = re.compile(r"([^.\[\]]+)|\[(\d+|\*)\]")


@dataclass(frozen=True)
class Mismatch:
    """Where an assertion failed (a dot-path), what it wanted and what the response held."""

    path: str
    expected: str
    actual: str

    @property
    def message(self) -> str:
        return f"{self.path or '(root)'}: expected {self.expected}, got {self.actual}"


class Unresolved(LabError):
    """A `{{variable}}` nothing defines (§12.2: the step fails with a clear message). Internal to the runner."""


def shown(value: Any, limit: int = 200) -> str:
    """A value as a report shows it."""
    if value is MISSING:
        return "(absent)"
    import json

    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ------------------------------------------------------------------------------------------------ variables


@dataclass
class _Budget:
    """What one resolution has spent: characters produced and references followed."""

    chars: int = 0
    references: int = 0

    def spend(self, name: str, chars: int, references: int = 1) -> None:
        self.chars += chars
        self.references += references
        if self.chars > RESOLVED_CHARS or self.references > RESOLVED_REFERENCES:
            raise Unresolved(
                f"{{{{{name}}}}}: expanding the references passes {RESOLVED_CHARS} characters or "
                f"{RESOLVED_REFERENCES} references (references that repeat others multiply): write the value out"
            )


@dataclass
class Scope:
    """What `{{...}}` can name in one test (§8, §12.2): captures, document variables, the environment, $uuid.

    `secrets` collects every environment value a reference read (and the runner's own credentials): reports show
    `<redacted>` in their place (`scrub`)."""

    variables: Mapping[str, str]
    runner: Mapping[str, str]
    captures: dict[str, dict[str, Any]] = field(default_factory=dict)
    responses: dict[str, Any] = field(default_factory=dict)
    secrets: set[str] = field(default_factory=set)

    def lookup(self, name: str) -> Any:
        return self._lookup(name, (), _Budget())

    def _lookup(self, name: str, chain: tuple[str, ...], budget: _Budget) -> Any:
        step, _, var = name.partition(".")
        if var and step in self.captures and var in self.captures[step]:
            return self.captures[step][var]
        if var == "response" and step in self.responses:
            return self.responses[step]
        if name in self.variables:
            path = " -> ".join((*chain, name))
            if name in chain:
                raise Unresolved(
                    f"{{{{{name}}}}}: the variable refers to itself ({path}): a cycle; define it without referring back"
                )
            if len(chain) >= VARIABLE_DEPTH:
                raise Unresolved(f"{{{{{name}}}}}: variables nest more than {VARIABLE_DEPTH} levels ({path})")
            return self._resolve(self.variables[name], (*chain, name), budget)
        if step == "env" and var:
            if var in os.environ:
                value = os.environ[var]
                if len(value) >= SECRET_MIN_CHARS:
                    self.secrets.add(value)
                return value
            raise Unresolved(f"{{{{{name}}}}}: the environment has no {var}")
        if name == "$uuid":
            return str(uuid.uuid4())
        if name in self.runner:
            return self.runner[name]
        if var and step in self.responses:
            raise Unresolved(f"{{{{{name}}}}}: step {step!r} captured no {var!r}")
        raise Unresolved(f"{{{{{name}}}}}: no capture, variable or environment variable has that name")

    def resolve(self, value: Any) -> Any:
        """`value` with every `{{...}}` replaced; a text that is one whole reference takes the value's own type.
        Bounded: Unresolved past RESOLVED_CHARS, RESOLVED_REFERENCES or VARIABLE_DEPTH, and on a cycle."""
        return self._resolve(value, (), _Budget())

    def _resolve(self, value: Any, chain: tuple[str, ...], budget: _Budget) -> Any:
        if isinstance(value, str):
            whole = _VAR.fullmatch(value)
            if whole is not None and whole[1].strip():
                budget.spend(whole[1].strip(), 0)
                return self._lookup(whole[1].strip(), chain, budget)
            return _VAR.sub(lambda m: self._piece(m, chain, budget), value)
        if isinstance(value, list):
            return [self._resolve(item, chain, budget) for item in value]
        if isinstance(value, dict):
            return {key: self._resolve(item, chain, budget) for key, item in value.items()}
        return value

    def _piece(self, found: re.Match[str], chain: tuple[str, ...], budget: _Budget) -> str:
        name = found[1].strip()
        if not name:
            return found[0]
        budget.spend(name, 0)
        text = _text(self._lookup(name, chain, budget))
        budget.spend(name, len(text), references=0)
        return text

    def scrub(self, text: str) -> str:
        """`text` with every secret this scope read replaced by `<redacted>`."""
        for secret in sorted(self.secrets, key=len, reverse=True):
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return shown(value, 10_000)


# ------------------------------------------------------------------------------------------------ paths


def segments(path: str) -> list[str | int]:
    """`task.artifacts[0].parts[*]` as ['task', 'artifacts', 0, 'parts', '*']."""
    out: list[str | int] = []
    for name, index in _SEGMENT.findall(path.strip()):
        out.append(name if name else (index if index == "*" else int(index)))
    return out


def select(value: Any, path: str) -> list[Any]:
    """Every value `path` reaches in `value` (wildcards fan out; what is not there is left out)."""
    current = [value]
    for seg in segments(path):
        nxt: list[Any] = []
        for item in current:
            if seg == "*":
                if isinstance(item, list):
                    nxt += item
            elif isinstance(seg, int):
                if isinstance(item, list) and -len(item) <= seg < len(item):
                    nxt.append(item[seg])
            elif isinstance(item, dict) and seg in item:
                nxt.append(item[seg])
        current = nxt
    return current


def get(value: Any, path: str) -> Any:
    """The one value `path` names in `value`, or MISSING."""
    found = select(value, path)
    return found[0] if found else MISSING


def until_holds(until: Until, value: Any) -> bool:
    actual = get(value, until.path)
    if until.op == "==":
        return _equal(actual, until.values[0])
    if until.op == "!=":
        return not _equal(actual, until.values[0])
    return any(_equal(actual, v) for v in until.values)


# ------------------------------------------------------------------------------------------------ matching


def check(expected: Any, actual: Any, path: str = "") -> Mismatch | None:
    """The first way `actual` fails the assertion `expected` (already resolved), or None."""
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return Mismatch(path, f"a list of at least {len(expected)}", _what(actual))
        if len(actual) < len(expected):
            return Mismatch(path, f"at least {len(expected)} element(s)", f"{len(actual)}")
        for i, item in enumerate(expected):
            miss = check(item, actual[i], f"{path}[{i}]")
            if miss is not None:
                return miss
        return None
    if isinstance(expected, dict):
        if is_operator_map(expected):
            for op, arg in expected.items():
                miss = _operator(op, arg, actual, path)
                if miss is not None:
                    return miss
            return None
        if actual is MISSING or actual is None:
            return Mismatch(path, "an object", _what(actual))
        if not isinstance(actual, dict):
            return Mismatch(path, "an object", _what(actual))
        for key, item in expected.items():
            miss = check(item, actual.get(key, MISSING), f"{path}.{key}" if path else key)
            if miss is not None:
                return miss
        return None
    if not _equal(actual, expected):
        return Mismatch(path, shown(expected), shown(actual))
    return None


def _equal(actual: Any, expected: Any) -> bool:
    if actual is MISSING:
        return False
    if isinstance(actual, bool) or isinstance(expected, bool):
        return type(actual) is type(expected) and actual == expected
    return bool(actual == expected)


def _what(actual: Any) -> str:
    return "(absent)" if actual is MISSING else shown(actual, 120)


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _number(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and not (isinstance(value, float) and math.isnan(value))
    )


def _operator(op: str, arg: Any, actual: Any, path: str) -> Mismatch | None:
    def miss(expected: str) -> Mismatch:
        return Mismatch(path, expected, _what(actual))

    if op == "exists":
        return None if actual is not MISSING and actual is not None else miss("present")
    if op == "absent":
        return None if actual is MISSING or actual is None else miss("absent")
    if op == "type":
        return None if actual is not MISSING and _type_of(actual) == arg else miss(f"type {arg}")
    if op in ("contains", "starts_with", "ends_with", "matches"):
        if not isinstance(actual, str):
            return miss(f"text that {op.replace('_', ' ')} {arg!r}")
        ok: bool | None
        if op == "contains":
            ok = arg in actual
        elif op == "starts_with":
            ok = actual.startswith(arg)
        elif op == "ends_with":
            ok = actual.endswith(arg)
        else:
            ok = regex_guard.search(arg, actual)
        if ok is None:
            return miss(
                f"text that matches {arg!r} (the search ran past {regex_guard.SEARCH_SECONDS:g} s on this text: "
                "the pattern backtracks; rewrite it without nested repetition)"
            )
        return None if ok else miss(f"text that {op.replace('_', ' ')} {arg!r}")
    if op in ("gte", "lte", "gt", "lt"):
        sign = {"gte": ">=", "lte": "<=", "gt": ">", "lt": "<"}[op]
        if not _number(actual):
            return miss(f"a number {sign} {arg}")
        ok = {"gte": actual >= arg, "lte": actual <= arg, "gt": actual > arg, "lt": actual < arg}[op]
        return None if ok else miss(f"a number {sign} {arg}")
    if op in ("count", "count_gte", "count_lte"):
        sign = {"count": "==", "count_gte": ">=", "count_lte": "<="}[op]
        if not isinstance(actual, list):
            return miss(f"an array of length {sign} {arg}")
        n = len(actual)
        ok = {"count": n == arg, "count_gte": n >= arg, "count_lte": n <= arg}[op]
        return None if ok else Mismatch(path, f"an array of length {sign} {arg}", f"length {n}")
    if op == "one_of":
        for option in arg:
            if isinstance(option, (dict, list)):
                if check(option, actual, path) is None:
                    return None
            elif _equal(actual, option):
                return None
        return miss("one of " + shown(arg))
    if op == "all_of":
        for item in arg:
            found = check(item, actual, path)
            if found is not None:
                return found
        return None
    if op == "any_of":
        if any(check(item, actual, path) is None for item in arg):
            return None
        return miss("any of " + shown(arg))
    if op == "items":
        if isinstance(arg, list):  # a list: the elements by position, as a list in an expect block
            return check(arg, actual, path)
        if not isinstance(actual, list):
            return miss("an array whose every element matches")
        for i, item in enumerate(actual):
            found = check(arg, item, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    if op == "not":
        return miss("not " + shown(arg)) if check(arg, actual, path) is None else None
    raise AssertionError(f"unknown operator {op}")  # pragma: no cover - document.py admits only OPERATORS
