"""The scenario catalogue: scenario files found under a folder, addressed by id (path without `.yaml`)."""

from __future__ import annotations

import difflib
import fnmatch
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from .loader import ScenarioError, load_file
from .scenario import Scenario


def builtin_root() -> Path:
    return Path(str(resources.files("a2a_lab.scenarios")))


@dataclass
class Catalogue:
    root: Path
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    #: Files that failed to load, by id; they never take the others down.
    broken: dict[str, ScenarioError] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path | None = None) -> Catalogue:
        root = root or builtin_root()
        cat = cls(root)
        for path in sorted(root.rglob("*.yaml")):
            sid = path.relative_to(root).with_suffix("").as_posix()
            try:
                cat.scenarios[sid] = load_file(path, sid)
            except ScenarioError as exc:
                cat.broken[sid] = exc
        return cat

    def ids(self) -> list[str]:
        return sorted(self.scenarios)

    def get(self, scenario_id: str) -> Scenario:
        if scenario_id in self.scenarios:
            return self.scenarios[scenario_id]
        if scenario_id in self.broken:
            raise self.broken[scenario_id]
        near = difflib.get_close_matches(scenario_id, self.ids(), n=3, cutoff=0.4)
        hint = f"did you mean {', '.join(near)}?" if near else "run `a2a-lab scenarios` to list them"
        raise KeyError(f"unknown scenario {scenario_id!r}; {hint}")

    def select(self, include: list[str] | None = None, exclude: list[str] | None = None) -> list[Scenario]:
        chosen = [
            s
            for sid, s in sorted(self.scenarios.items())
            if (not include or any(fnmatch.fnmatchcase(sid, g) for g in include))
            and not any(fnmatch.fnmatchcase(sid, g) for g in exclude or [])
        ]
        return chosen


def resolve(ref: str, catalogue: Catalogue | None = None) -> Scenario:
    """A scenario by id from the built-in catalogue, or from a YAML file path."""
    if ref.endswith((".yaml", ".yml")) or ("/" in ref and Path(ref).is_file()):
        path = Path(ref)
        if path.is_file():
            return load_file(path, path.stem)
    return (catalogue or Catalogue.load()).get(ref)
