"""The scenario catalogue: scenario files found under a folder, addressed by id (path without `.yaml`; a family file's
members by `<its id>/<member>`); and a selection from it, by ids, family ids and globs, mixed with scenario files and
folders of the user's own."""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from a2a_lab.protocol.exceptions import LabError

from . import catalogue_cache
from .loader import ScenarioError, load_file, load_scenarios
from .scenario import Scenario
from .suggest import nearest_glob, one_of

SCENARIO_SUFFIXES = (".yaml", ".yml")


class SelectionError(LabError, ValueError):
    """A selection that cannot be made: an id or glob that matches nothing, a file that does not exist, two scenarios
    with one id."""


def builtin_root() -> Path:
    return Path(str(resources.files("a2a_lab.scenarios")))


@dataclass
class Catalogue:
    root: Path
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    #: Files that failed to load, by id (a family's by its own id); they never take the others down.
    broken: dict[str, ScenarioError] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path | None = None) -> Catalogue:
        """The scenarios under `root` (the built-in catalogue by default: read through catalogue_cache)."""
        if root is None or root == builtin_root():
            builtin = builtin_root()
            return catalogue_cache.load(builtin, lambda: cls.read(builtin), cls)
        return cls.read(root)

    @classmethod
    def read(cls, root: Path) -> Catalogue:
        """The scenarios under `root`, read from their files."""
        cat = cls(root)
        for path in sorted(root.rglob("*.yaml")):
            sid = path.relative_to(root).with_suffix("").as_posix()
            try:
                loaded = load_scenarios(path, sid)
            except ScenarioError as exc:
                cat.broken[sid] = exc
                continue
            taken = sorted(set(loaded) & set(cat.scenarios))
            if taken:
                other = cat.scenarios[taken[0]].source
                cat.broken[sid] = ScenarioError(
                    str(path), "matrix", f"makes {taken[0]!r}, which {other} makes too", "rename one file"
                )
                continue
            cat.scenarios.update(loaded)
        return cat

    def families(self) -> dict[str, list[str]]:
        """Each family's id and its members' ids, in id order."""
        out: dict[str, list[str]] = {}
        for sid, s in sorted(self.scenarios.items()):
            if s.family is not None:
                out.setdefault(s.family, []).append(sid)
        return out

    def ids(self) -> list[str]:
        return sorted(self.scenarios)

    def get(self, scenario_id: str) -> Scenario:
        if scenario_id in self.scenarios:
            return self.scenarios[scenario_id]
        for broken_id, exc in self.broken.items():
            if scenario_id == broken_id or scenario_id.startswith(broken_id + "/"):
                raise exc
        members = self.families().get(scenario_id)
        if members:
            raise KeyError(f"{scenario_id!r} is a family of {len(members)} scenarios; name one: {', '.join(members)}")
        raise KeyError(f"unknown scenario {scenario_id!r}; {self.near(scenario_id)}")

    def select(self, include: list[str] | None = None, exclude: list[str] | None = None) -> list[Scenario]:
        """The scenarios an id or glob of `include` matches (all without one) and none of `exclude` does; a family's
        id matches its members."""
        return [
            s
            for _, s in sorted(self.scenarios.items())
            if (not include or any(matches(s, g) for g in include)) and not any(matches(s, g) for g in exclude or [])
        ]

    def near(self, ref: str) -> str:
        """A hint for an id or glob that matches nothing: the nearest glob (its folders corrected), the nearest ids, or
        where to find them."""
        if any(ch in ref for ch in "*?["):
            glob = nearest_glob(ref, [*self.ids(), *self.families()])
            if glob is not None:
                return f"did you mean {glob!r}?"
        close = difflib.get_close_matches(ref, self.ids(), n=3, cutoff=0.4)
        return f"did you mean {', '.join(close)}?" if close else "run `a2a-lab scenarios` to list them"

    def choose(
        self, include: list[str] | None = None, exclude: list[str] | None = None, files: bool = True
    ) -> list[Scenario]:
        """The scenarios `--scenario` and `--exclude` name, in id order. An include is an id or glob of this catalogue,
        or (`files`) a scenario file (`.yaml`/`.yml`, its id the file name) or a folder of them (ids relative to it).
        None given: the whole catalogue. Raises SelectionError for an include that names nothing, a broken file, or
        two scenarios with one id; ScenarioError is never raised (its text is in the SelectionError)."""
        globs = [ref for ref in include or [] if not is_file_ref(ref)]
        for glob in globs:
            if not any(matches(s, glob) for s in self.scenarios.values()):
                raise SelectionError(f"no scenario matches {glob!r}; {self.near(glob)}")
        chosen = {s.id: s for s in self.select(globs, exclude)} if globs or not include else {}
        for ref in include or []:
            if not is_file_ref(ref):
                continue
            if not files:
                raise SelectionError(
                    f"--scenario {ref}: a scenario file can only be run locally (`a2a-lab run` without --server); "
                    "a shared server serves its own catalogue"
                )
            for scenario in load_files(ref).values():
                if any(matches(scenario, g) for g in exclude or []):
                    continue
                other = chosen.get(scenario.id)
                if other is not None and other.source != scenario.source:
                    raise SelectionError(
                        f"two scenarios chosen are called {scenario.id!r}: {other.source} and {scenario.source}; "
                        "rename one file"
                    )
                chosen[scenario.id] = scenario
        return [chosen[sid] for sid in sorted(chosen)]


def matches(scenario: Scenario, glob: str) -> bool:
    """Whether an id or glob names the scenario: its id, or the id of the family it is a member of."""
    return fnmatch.fnmatchcase(scenario.id, glob) or (
        scenario.family is not None and fnmatch.fnmatchcase(scenario.family, glob)
    )


#: `FILE#member`: one member of a family file.
MEMBER_MARK = "#"


def split_member(ref: str) -> tuple[str, str | None]:
    """`fam.yaml#1.0-jsonrpc` -> ("fam.yaml", "1.0-jsonrpc"); a ref without a member -> (ref, None)."""
    head, mark, member = ref.rpartition(MEMBER_MARK)
    if mark and head.endswith(SCENARIO_SUFFIXES) and member:
        return head, member
    return ref, None


def is_file_ref(ref: str) -> bool:
    """Whether a `--scenario` value names a scenario file or folder rather than ids: it ends in .yaml/.yml (or names
    one member of a family file, `FILE#member`), or it is a folder."""
    ref = split_member(ref)[0]
    return ref.endswith(SCENARIO_SUFFIXES) or Path(ref).is_dir()


def load_files(ref: str) -> dict[str, Scenario]:
    """The scenarios of a file (id: its name without the suffix; a family's members under it) or of a folder (ids:
    paths relative to it, as the built-in catalogue's); `FILE#member` the one member of a family file. Raises
    SelectionError when the path does not exist, holds no scenario, any file in it is broken (every broken file is
    named), or the member is not one of the family's."""
    ref, member = split_member(ref)
    if member is not None:
        return _member(ref, member)
    path = Path(ref)
    if path.is_dir():
        found = {
            p.relative_to(path).with_suffix("").as_posix(): p
            for p in sorted(path.rglob("*"))
            if p.suffix in SCENARIO_SUFFIXES and not p.is_dir()  # a FIFO among them is refused, not skipped
        }
        if not found:
            raise SelectionError(f"--scenario {ref}: the folder holds no scenario file (*.yaml, *.yml)")
    elif _on_disk(path):
        found = {path.stem: path}  # the loader refuses what is not a regular file, saying what it is
    else:
        raise SelectionError(f"--scenario {ref}: no such file")
    loaded: dict[str, Scenario] = {}
    broken: list[str] = []
    for sid, file in found.items():
        try:
            loaded.update(load_scenarios(file, sid))
        except ScenarioError as exc:
            broken.append(str(exc))
    if broken:
        raise SelectionError("\n".join(broken))
    return loaded


def _member(ref: str, member: str) -> dict[str, Scenario]:
    """`FILE#member`: the family member of that name, by the id its family gives it (`<file stem>/<member>`)."""
    members = load_files(ref)
    wanted = f"{Path(ref).stem}/{member}"
    if wanted in members:
        return {wanted: members[wanted]}
    names = [sid.split("/", 1)[1] for sid in members if "/" in sid]
    if not names:
        raise SelectionError(f"--scenario {ref}{MEMBER_MARK}{member}: {ref} is not a family (it has no `matrix:`)")
    raise SelectionError(f"--scenario {ref}{MEMBER_MARK}{member}: no such member; {one_of(member, names)}")


def resolve_all(ref: str, catalogue: Catalogue | None = None) -> list[Scenario]:
    """What `a2a-lab serve REF` serves: one scenario (an id, a file, `FILE#member`), or every member of a family (a
    family file, or a family's id in the catalogue). Raises KeyError or ScenarioError (a broken file), or
    SelectionError (a member not in the family)."""
    if is_file_ref(ref) and not Path(split_member(ref)[0]).is_dir():
        return list(load_files(ref).values())
    cat = catalogue or Catalogue.load()
    members = [s for s in cat.scenarios.values() if s.family == ref]
    return sorted(members, key=lambda s: s.id) if members else [resolve(ref, cat)]


def uncited(scenarios: Iterable[Scenario]) -> list[str]:
    """A warning for each scenario that cites neither `spec:` nor `observed:` (nor `recorded:`): fine for a local
    reproduction, required of the catalogue's scenarios. One line per file (a family's members share theirs)."""
    files = sorted({s.source for s in scenarios if not s.cited})
    return [
        f"warning: {source} cites neither `spec:` (the section and keyword it stands on) nor `observed:` (where and "
        "when the behaviour was seen); fine for a local reproduction, required in the catalogue"
        for source in files
    ]


def _on_disk(path: Path) -> bool:
    """Whether something is at the path (a file, a FIFO, a broken symlink...), for the reader to say what it is."""
    return path.exists() or path.is_symlink()


def resolve(ref: str, catalogue: Catalogue | None = None) -> Scenario:
    """A scenario by id from the built-in catalogue, or from a YAML file path."""
    path = Path(ref)
    if path.is_dir():
        if ref.endswith(SCENARIO_SUFFIXES):
            raise KeyError(
                f"{ref}: a directory, not a scenario file; give one file "
                f"(`a2a-lab run --scenario {ref}` runs the scenarios in a folder)"
            )
    elif _on_disk(path) and (ref.endswith(SCENARIO_SUFFIXES) or "/" in ref):
        return load_file(path, path.stem)
    if ref.endswith(SCENARIO_SUFFIXES):
        raise KeyError(f"{ref}: no such file")
    return (catalogue or Catalogue.load()).get(ref)
