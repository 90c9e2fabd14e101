"""Reading scenario files from disk: YAML parsed, every `ScenarioError` located at its file, line and column."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import userfile, yamlfile
from ..scenario import (
    Scenario,
)
from .document import parse, parse_all
from .reader import ScenarioError


def _read(path: Path) -> Any:
    """A scenario file's YAML, read as yamlfile reads YAML: a regular file, its size, nesting and aliases bounded, plain
    data only (dates stay text)."""
    try:
        return yamlfile.load(path, userfile.SCENARIO)
    except userfile.Refused as exc:
        raise ScenarioError(str(path), exc.where, exc.problem, exc.hint) from None


def load_file(path: Path, scenario_id: str | None = None) -> Scenario:
    """Load one scenario file; its id defaults to the file name without extension. A family file (`matrix:`) is
    refused: load_scenarios loads it."""
    data = _read(path)
    try:
        return parse(data, scenario_id or path.stem, str(path))
    except ScenarioError as exc:
        raise _located(exc, path) from None


def load_scenarios(path: Path, scenario_id: str | None = None) -> dict[str, Scenario]:
    """The scenarios of one file by id: a plain file's one, or a family's members (`<id>/<member>`)."""
    data = _read(path)
    try:
        return parse_all(data, scenario_id or path.stem, str(path))
    except ScenarioError as exc:
        raise _located(exc, path) from None


def _located(exc: ScenarioError, path: Path) -> ScenarioError:
    """The error with the line and column of its field in the file, where the path leads to one."""
    if exc.where:
        return exc
    where = yamlfile.locate(path, userfile.SCENARIO, exc.field_path)
    return ScenarioError(exc.source, exc.field_path, exc.problem, exc.hint, where) if where else exc
