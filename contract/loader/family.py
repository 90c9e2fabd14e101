"""Scenario families: one file with a `matrix:` key becomes one ordinary scenario per combination of its axes.

`matrix: {version: ["1.0", "0.3"], binding: [JSONRPC, HTTP+JSON]}` makes four members of the file's id `f`:
`f/1.0-jsonrpc`, `f/1.0-http-json`, `f/0.3-jsonrpc`, `f/0.3-http-json` (values in the order the axes are listed
in AXES, each as it is written in the member id). For each member, in this order:

1. the file without its `matrix` key is the base;
2. `overlay.<axis>.<value>` (a partial scenario) is merged onto it for each axis value of the member: a mapping
   merges into a mapping key by key, anything else replaces what was there;
3. every `{name}` placeholder is filled in every text and mapping key: `{version}` (`1.0`, `0.3`), `{binding}`
   (`JSONRPC`, `HTTP+JSON`) and the names `let.<axis>.<value>` defines; the server's own placeholders
   (`{base_url}`, `{text}`, ...) are left for the server, and so is any other `{word}` in prose (a title,
   description, spec, observed or recorded: `GET /tasks/{id}`);
4. the title gets the member's values appended, e.g. ` [0.3, HTTP+JSON]`.

`exclude` lists combinations (mappings of some axes to a value) that are not generated. Everything a family says
is checked before any member is made: every axis known and non-empty, every value known and listed once, every
`let`/`overlay` value one of its axis, every placeholder outside prose defined (for every member) and every
defined name used,
and no axis that changes nothing (then all its members would be the same scenario).

This module works on decoded YAML only; the loader parses each member as it parses any scenario file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import product
from typing import TYPE_CHECKING, Any

from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.versions import Version

from ..placeholders import ALT_BASE_URL, BASE_URL, GRPC_ADDRESS, HTTP_BASE_URL, TEXT
from ..suggest import nearest

if TYPE_CHECKING:
    from .reader import Reader

#: The axes a matrix may have, in the order member ids name them.
AXES = ("version", "binding")
#: The bindings a family varies over (gRPC is served in 1.0 only, from its own server: not a matrix value).
MATRIX_BINDINGS = (Binding.JSONRPC, Binding.HTTP_JSON)
#: Placeholders the server fills when it serves a scenario: a family leaves them alone.
SERVER_PLACEHOLDERS = frozenset(p.strip("{}") for p in (BASE_URL, ALT_BASE_URL, GRPC_ADDRESS, HTTP_BASE_URL, TEXT))
#: Top-level fields written for people: braces there may be text, not a placeholder.
PROSE = frozenset({"title", "description", "spec", "observed", "recorded"})
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")

Value = Version | Binding


@dataclass(frozen=True)
class Member:
    """One combination of a family: its id suffix and the scenario data it makes."""

    suffix: str
    values: dict[str, Value]
    data: dict[str, Any]


def is_family(data: Any) -> bool:
    return isinstance(data, dict) and "matrix" in data


def slug(value: Value) -> str:
    """A value as a member id writes it: `1.0`, `0.3`, `jsonrpc`, `http-json`."""
    spelled: str = value.value
    return spelled.lower().replace("+", "-")


def expand(r: Reader, data: dict[str, Any]) -> list[Member]:
    """The members of a family file (data holding `matrix`), in the order of the matrix's lists; raises ScenarioError
    on bad matrix input."""
    m = r.mapping(data["matrix"], "matrix", "matrix")
    axes = {axis: _axis(r, m[axis], axis) for axis in AXES if axis in m}
    if not axes:
        raise r.fail("matrix", "names no axis", 'e.g. matrix: {version: ["1.0", "0.3"], binding: [JSONRPC, HTTP+JSON]}')
    lets = _by_value(r, m.get("let", {}), "matrix.let", axes, _let)
    overlays = _by_value(r, m.get("overlay", {}), "matrix.overlay", axes, _overlay)
    excluded = _excludes(r, m.get("exclude", []), axes)
    base = {k: v for k, v in data.items() if k != "matrix"}
    names = _defined_names(r, axes, lets)

    members: list[Member] = []
    for combo in product(*axes.values()):
        values = dict(zip(axes, combo, strict=True))
        if any(all(values[a] == v for a, v in ex.items()) for ex in excluded):
            continue
        merged: Any = base
        for axis, value in values.items():
            if value in overlays.get(axis, {}):
                merged = _merge(merged, overlays[axis][value])
        fills = {axis: value.value for axis, value in values.items()}
        for axis, value in values.items():
            fills.update(lets.get(axis, {}).get(value, {}))
        suffix = "-".join(slug(v) for v in values.values())
        _check_placeholders(r, merged, fills, suffix)
        filled = _fill(merged, fills)
        if isinstance(filled.get("title"), str):
            filled["title"] = f"{filled['title']} [{', '.join(v.value for v in values.values())}]"
        members.append(Member(suffix, values, filled))
    if not members:
        raise r.fail("matrix.exclude", "excludes every combination", "drop an exclude, or write a plain scenario")
    _check_used(r, base, overlays, names, axes)
    return members


def _axis(r: Reader, value: Any, axis: str) -> tuple[Value, ...]:
    path = f"matrix.{axis}"
    example = '["1.0", "0.3"]' if axis == "version" else "[JSONRPC, HTTP+JSON]"
    if not isinstance(value, list) or not value:
        raise r.fail(path, "expected a non-empty list of values", f"e.g. {axis}: {example}")
    out = [_value(r, item, axis, f"{path}[{i}]") for i, item in enumerate(value)]
    for i, item in enumerate(out):
        if item in out[:i]:
            raise r.fail(f"{path}[{i}]", f"{item.value} is listed twice", "list each value once")
    return tuple(out)


def _value(r: Reader, value: Any, axis: str, path: str) -> Value:
    if axis == "version":
        return r.version(value, path)
    binding = r.binding(value, path)
    if binding not in MATRIX_BINDINGS:
        raise r.fail(path, f"{binding.value} cannot be a matrix value", "a family varies over JSONRPC and HTTP+JSON")
    return binding


def _known_axis(r: Reader, axis: Any, path: str, axes: dict[str, tuple[Value, ...]]) -> str:
    if axis not in axes:
        known = f"this matrix has {', '.join(axes)}" if axis in AXES else f"the axes are {', '.join(AXES)}"
        raise r.fail(f"{path}.{axis}", "unknown matrix axis", known)
    return str(axis)


def _by_value(
    r: Reader,
    value: Any,
    path: str,
    axes: dict[str, tuple[Value, ...]],
    item: Callable[[Reader, Any, str], dict[str, Any]],
) -> dict[str, dict[Value, dict[str, Any]]]:
    """`{axis: {value: item}}`, each axis and value one the matrix lists (`let` and `overlay`)."""
    out: dict[str, dict[Value, dict[str, Any]]] = {}
    for axis, per_value in r.mapping(value, path).items():
        name = _known_axis(r, axis, path, axes)
        out[name] = {}
        for key, v in r.mapping(per_value, f"{path}.{name}").items():
            member = _value(r, key, name, f"{path}.{name}.{key}")
            if member not in axes[name]:
                raise r.fail(
                    f"{path}.{name}.{key}",
                    f"{member.value} is not a value of the matrix's {name}",
                    f"its values: {', '.join(x.value for x in axes[name])}",
                )
            out[name][member] = item(r, v, f"{path}.{name}.{key}")
    return out


def _let(r: Reader, value: Any, path: str) -> dict[str, Any]:
    given = r.mapping(value, path)
    for name, text in given.items():
        if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            raise r.fail(f"{path}.{name}", "a placeholder name is lowercase letters, digits and _", "e.g. path")
        if name in AXES or name in SERVER_PLACEHOLDERS:
            raise r.fail(f"{path}.{name}", f"{{{name}}} is already a placeholder", "choose another name")
        if not isinstance(text, str):
            raise r.fail(f"{path}.{name}", f"expected text, got {type(text).__name__}", "quote it")
    return given


def _overlay(r: Reader, value: Any, path: str) -> dict[str, Any]:
    given = r.mapping(value, path)
    if "matrix" in given:
        raise r.fail(f"{path}.matrix", "an overlay cannot hold a matrix", "one matrix per file, at the top level")
    return given


def _excludes(r: Reader, value: Any, axes: dict[str, tuple[Value, ...]]) -> list[dict[str, Value]]:
    if not isinstance(value, list):
        raise r.fail("matrix.exclude", "expected a list of combinations", 'e.g. [{version: "0.3", binding: HTTP+JSON}]')
    out = []
    for i, item in enumerate(value):
        path = f"matrix.exclude[{i}]"
        given = r.mapping(item, path)
        if not given:
            raise r.fail(path, "an empty combination excludes everything", "name a value of at least one axis")
        combo = {}
        for axis, v in given.items():
            name = _known_axis(r, axis, path, axes)
            member = _value(r, v, name, f"{path}.{name}")
            if member not in axes[name]:
                raise r.fail(f"{path}.{name}", f"{member.value} is not a value of the matrix's {name}")
            combo[name] = member
        out.append(combo)
    return out


def _defined_names(
    r: Reader, axes: dict[str, tuple[Value, ...]], lets: dict[str, dict[Value, dict[str, Any]]]
) -> dict[str, str]:
    """Every placeholder the matrix defines, and where: each `let` name must be given for every value of its axis."""
    names = {axis: f"matrix.{axis}" for axis in axes}
    for axis, per_value in lets.items():
        all_names = {n for given in per_value.values() for n in given}
        for value in axes[axis]:
            missing = sorted(all_names - set(per_value.get(value, {})))
            if missing:
                raise r.fail(
                    f"matrix.let.{axis}.{value.value}",
                    f"does not define {', '.join('{' + n + '}' for n in missing)}",
                    f"give every value of {axis} the same names",
                )
        for n in all_names:
            if n in names:
                raise r.fail(f"matrix.let.{axis}.*.{n}", f"{{{n}}} is defined by two axes", "name it once")
            names[n] = f"matrix.let.{axis}"
    return names


def _merge(base: Any, over: Any) -> Any:
    if isinstance(base, dict) and isinstance(over, dict):
        return {**base, **{k: _merge(base[k], v) if k in base else v for k, v in over.items()}}
    return over


def _walk(value: Any, path: str = "") -> list[tuple[str, str]]:
    """Every text (values and mapping keys) in data, with its field path."""
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, list):
        return [t for i, v in enumerate(value) for t in _walk(v, f"{path}[{i}]")]
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            sub = f"{path}.{k}" if path else str(k)
            if isinstance(k, str):
                out.append((sub, k))
            out += _walk(v, sub)
        return out
    return []


def _check_placeholders(r: Reader, data: Any, fills: dict[str, str], suffix: str) -> None:
    """Every `{name}` is defined, except in prose (PROSE), where only an axis name must be: `GET /tasks/{id}` in a
    description is text."""
    for path, text in _walk(data):
        prose = path.split(".", 1)[0].split("[", 1)[0] in PROSE
        for name in _PLACEHOLDER.findall(text):
            if name not in fills and name not in SERVER_PLACEHOLDERS and (not prose or name in AXES):
                defined = ", ".join("{" + n + "}" for n in fills)
                near = nearest(name, list(fills))
                raise r.fail(
                    path,
                    f"placeholder {{{name}}} is not defined for member {suffix}",
                    (f"did you mean {{{near}}}? " if near else "")
                    + f"this matrix defines {defined}; add an axis, or a name under matrix.let",
                )


def _check_used(
    r: Reader,
    base: dict[str, Any],
    overlays: dict[str, dict[Value, dict[str, Any]]],
    names: dict[str, str],
    axes: dict[str, tuple[Value, ...]],
) -> None:
    """Every defined placeholder is used, and every axis changes something (a placeholder, or an overlay)."""
    texts = [t for _, t in _walk(base)] + [t for per in overlays.values() for o in per.values() for _, t in _walk(o)]
    used = {n for t in texts for n in _PLACEHOLDER.findall(t)}
    for name, where in names.items():
        if name not in axes and name not in used:
            raise r.fail(
                f"{where}.*.{name}",
                f"{{{name}}} is defined but never used",
                f"use {{{name}}} in the file, or drop it from {where}",
            )
    for axis in axes:
        if not (axis in overlays or axis in used or any(n in used for n in _let_names(names, axis))):
            raise r.fail(
                f"matrix.{axis}",
                f"nothing in the file uses {{{axis}}}, its matrix.let names or matrix.overlay.{axis}: every member "
                "along this axis would be the same scenario",
                f"use {{{axis}}} where the members differ (a card interface, a rule), or drop the axis",
            )


def _let_names(names: dict[str, str], axis: str) -> list[str]:
    return [n for n, where in names.items() if where == f"matrix.let.{axis}"]


def _fill(value: Any, fills: dict[str, str]) -> Any:
    def text(s: str) -> str:
        return _PLACEHOLDER.sub(lambda m: fills.get(m.group(1), m.group(0)), s)

    if isinstance(value, str):
        return text(value)
    if isinstance(value, list):
        return [_fill(v, fills) for v in value]
    if isinstance(value, dict):
        return {text(k) if isinstance(k, str) else k: _fill(v, fills) for k, v in value.items()}
    return value
