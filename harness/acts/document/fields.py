"""Typed field access with the file's errors: every refusal an `ActsError` naming file, path, problem and fix."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from a2a_lab.contract.suggest import one_of
from a2a_lab.harness.acts.document.grammar import ACTS_SPEC
from a2a_lab.protocol.exceptions import LabError


class ActsError(LabError, ValueError):
    """An ACTS file a2a-lab does not run: which file, where in it, what is wrong, how to fix it."""

    def __init__(self, source: str | Path, where: str, problem: str, hint: str = "") -> None:
        self.source, self.where, self.problem, self.hint = (
            str(source),
            where,
            problem,
            hint,
        )
        said = ": ".join(part for part in (self.source, where, problem) if part)
        super().__init__(said + (f"\n  hint: {hint}" if hint else ""))


class Fields:
    """Typed field access with the file's errors."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, problem: str, hint: str = "") -> ActsError:
        return ActsError(self.path, where, problem, hint)

    def map(self, value: Any, where: str, allowed: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where or "(top)", f"must be a mapping, got {kind_of(value)}")
        for key in value:
            if not isinstance(key, str) or key not in allowed:
                raise self.fail(
                    join(where, str(key)),
                    "is not a field here",
                    one_of(str(key), allowed) + " (ACTS " + ACTS_SPEC + ")",
                )
        return value

    def text(self, data: Mapping[str, Any], where: str, key: str, required: bool = False) -> str:
        if key not in data:
            if required:
                raise self.fail(join(where, key), "is required", "")
            return ""
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail(join(where, key), f"must be text, got {kind_of(value)}")
        return str(value)

    def integer(
        self, data: Mapping[str, Any], where: str, key: str, default: int | None = None, most: int | None = None
    ) -> int | None:
        if key not in data:
            return default
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(join(where, key), f"must be a whole number >= 0, got {value!r}")
        if most is not None and value > most:
            raise self.fail(
                join(where, key),
                f"is {value}, more than this runner allows ({most})",
                f"at most {most}: a test runs within a deadline (--test-deadline), so a longer wait or more attempts"
                " could not finish",
            )
        return value

    def choice(
        self,
        data: Mapping[str, Any],
        where: str,
        key: str,
        choices: tuple[str, ...],
        default: str = "",
    ) -> str:
        if key not in data:
            return default
        value = self.text(data, where, key)
        if value not in choices:
            raise self.fail(join(where, key), f"{value!r} is not a choice", one_of(value, choices))
        return value

    def items(self, data: Mapping[str, Any], where: str, key: str) -> list[Any]:
        value = data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(join(where, key), f"must be a list, got {kind_of(value)}")
        return value

    def texts(
        self,
        data: Mapping[str, Any],
        where: str,
        key: str,
        choices: tuple[str, ...] = (),
    ) -> tuple[str, ...]:
        out = []
        for i, item in enumerate(self.items(data, where, key)):
            at = f"{join(where, key)}[{i}]"
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                raise self.fail(at, f"must be text, got {kind_of(item)}")
            if choices and str(item) not in choices:
                raise self.fail(at, f"{item!r} is not a choice", one_of(str(item), choices))
            out.append(str(item))
        return tuple(out)

    def text_map(self, data: Mapping[str, Any], where: str, key: str) -> dict[str, str]:
        value = data.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(join(where, key), f"must be a mapping of text, got {kind_of(value)}")
        out = {}
        for name, item in value.items():
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                raise self.fail(join(join(where, key), str(name)), f"must be text, got {kind_of(item)}")
            out[str(name)] = str(item)
        return out


def join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def kind_of(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list", str: "text", bool: "a boolean"}.get(type(value), type(value).__name__)
