"""Findings: level, field path, message, fix hint."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    level: Severity
    path: str
    message: str
    hint: str = ""

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["level"] = self.level.value
        return out

    def __str__(self) -> str:
        return f"{self.level.value.upper():7} {self.path or '(card)'}: {self.message}" + (
            f"\n        fix: {self.hint}" if self.hint else ""
        )


class Findings(list[Finding]):
    def error(self, path: str, message: str, hint: str = "") -> None:
        self.append(Finding(Severity.ERROR, path, message, hint))

    def warning(self, path: str, message: str, hint: str = "") -> None:
        self.append(Finding(Severity.WARNING, path, message, hint))

    def info(self, path: str, message: str, hint: str = "") -> None:
        self.append(Finding(Severity.INFO, path, message, hint))

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self if f.level is Severity.ERROR]
