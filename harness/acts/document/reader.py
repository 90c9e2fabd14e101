"""The reader: a file (YAML or JSON, bounded), its `include` list followed relative to it (§16, each file once, a
cycle refused), its variables, suites and tests; and the sut-behaviors file (§11.1)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from a2a_lab.contract import userfile, yamlfile
from a2a_lab.harness.acts.document.fields import ActsError, Fields
from a2a_lab.harness.acts.document.grammar import (
    ACTS_MAJORS,
    ACTS_SPEC,
    RESOLVED_CHARS,
    RESOLVED_REFERENCES,
    VARIABLE_DEPTH,
)
from a2a_lab.harness.acts.document.records import Document, Suite, Test
from a2a_lab.harness.acts.document.suites import read_suite


def load(path: str | Path) -> Document:
    """Read an ACTS file (and what it includes) into a Document, or raise ActsError / userfile.Refused."""
    return _Reader().document(Path(path), ())


class _Reader:
    def __init__(self) -> None:
        self.seen: set[Path] = set()

    def document(
        self,
        path: Path,
        chain: tuple[Path, ...],
        inherited: Mapping[str, str] | None = None,
    ) -> Document:
        """`inherited`: the variables of the files that include this one (its own win over them)."""
        real = path.resolve()
        if real in chain:
            raise ActsError(
                chain[-1],
                "include",
                f"includes {path} again (a cycle)",
                "include each file once",
            )
        if real in self.seen:
            return Document("", "", (), ())
        self.seen.add(real)
        data = _parse(path)
        f = Fields(path)
        f.map(
            data,
            "",
            (
                "acts_version",
                "spec_version",
                "spec_ref",
                "metadata",
                "variables",
                "include",
                "suites",
            ),
        )
        acts_version = f.text(data, "", "acts_version", required=True)
        if acts_version.split(".")[0] not in ACTS_MAJORS:
            raise ActsError(
                path,
                "acts_version",
                f"ACTS format {acts_version!r} is not one this runner reads",
                _VERSION_HINT,
            )
        spec_version = f.text(data, "", "spec_version", required=True)
        metadata = data.get("metadata") or {}
        f.map(metadata, "metadata", ("title", "description", "authors", "license"))
        own = f.text_map(data, "", "variables")
        variables = {**(inherited or {}), **own}
        check_variables(path, own, variables)
        if "include" not in data and "suites" not in data:
            raise ActsError(
                path,
                "",
                "has neither `suites` nor `include`",
                "an ACTS document needs at least one (§2)",
            )
        suites: list[Suite] = []
        files = [str(path)]
        for i, name in enumerate(f.texts(data, "", "include")):
            target = path.parent / name
            if not target.is_file():
                raise ActsError(
                    path,
                    f"include[{i}]",
                    f"no such file {str(target)!r}",
                    "paths are relative to this file",
                )
            inner = self.document(target, (*chain, real), variables)
            suites += inner.suites
            files += inner.files
        doc_ref = f.text(data, "", "spec_ref")
        for i, raw in enumerate(f.items(data, "", "suites")):
            suites.append(read_suite(f, raw, f"suites[{i}]", doc_ref, variables))
        _unique([t for s in suites for t in s.tests], path)
        return Document(
            acts_version,
            spec_version,
            tuple(suites),
            tuple(files),
            str(metadata.get("title") or ""),
            variables,
        )


_VERSION_HINT = f"a2a-lab reads ACTS {ACTS_SPEC} (format versions {', '.join(m + '.x' for m in ACTS_MAJORS)})"


def _parse(path: Path) -> Any:
    if path.suffix.lower() == ".json":
        return userfile.load_json(path, userfile.ACTS)
    return yamlfile.loads(userfile.read_text(path, userfile.ACTS), userfile.ACTS, path)


def check_unique(tests: list[Test]) -> None:
    """Refuse a test id used twice across the files of one run (§14)."""
    _unique(tests, Path())


def load_behaviors(path: str | Path) -> tuple[str, ...]:
    """The prefixes of an ACTS sut-behaviors file (§11.1): the behaviours a SUT declares it serves."""
    path = Path(path)
    data = _parse(path)
    f = Fields(path)
    f.map(data, "", ("acts_version", "behaviors"))
    f.text(data, "", "acts_version", required=True)
    out = []
    for i, raw in enumerate(f.items(data, "", "behaviors")):
        at = f"behaviors[{i}]"
        f.map(
            raw,
            at,
            (
                "prefix",
                "description",
                "response_type",
                "terminal_state",
                "artifacts",
                "delay_ms",
                "streaming",
            ),
        )
        f.choice(raw, at, "response_type", ("task", "message"))
        f.integer(raw, at, "delay_ms")
        f.text(raw, at, "description", required=True)
        out.append(f.text(raw, at, "prefix", required=True))
    if not out:
        raise ActsError(
            path,
            "behaviors",
            "is required: at least one behaviour",
            "behaviors: [{prefix: ..., description: ...}]",
        )
    return tuple(out)


def _unique(tests: list[Test], path: Path) -> None:
    seen: dict[str, Test] = {}
    for test in tests:
        if test.id in seen:
            raise ActsError(
                test.where.file,
                test.where.path + ".id",
                f"test id {test.id!r} is used again (first at {seen[test.id].where})",
                "every test id is unique across the files a run reads (§14)",
            )
        seen[test.id] = test


_REFERENCE = re.compile(r"\{\{([^{}]*)\}\}")


def check_variables(path: Path, own: Mapping[str, str], variables: Mapping[str, str]) -> None:
    """Refuse a variable of this file that refers to itself (directly or through others), nests deeper than
    VARIABLE_DEPTH, or expands past RESOLVED_CHARS characters or RESOLVED_REFERENCES references (a reference to
    anything but a variable, a capture or the environment, counts as the reference alone)."""
    sizes: dict[str, tuple[int, int, int]] = {}  # name -> (characters, references, depth)

    def size(name: str, chain: tuple[str, ...]) -> tuple[int, int, int]:
        if name in sizes:
            return sizes[name]
        if name in chain:
            cycle = " -> ".join((*chain[chain.index(name) :], name))
            raise ActsError(
                path,
                f"variables.{chain[0]}",
                f"refers to itself ({cycle}): a cycle",
                "define each variable without referring back to it",
            )
        text = variables[name]
        chars, refs, depth = len(text), 0, 1
        for found in _REFERENCE.finditer(text):
            ref = found[1].strip()
            refs += 1
            if ref in variables:
                inner = size(ref, (*chain, name))
                chars += inner[0] - len(found[0])
                refs += inner[1]
                depth = max(depth, inner[2] + 1)
        sizes[name] = (chars, refs, depth)
        return sizes[name]

    for name in own:
        chars, refs, depth = size(name, ())
        where = f"variables.{name}"
        if depth > VARIABLE_DEPTH:
            raise ActsError(
                path,
                where,
                f"nests variables {depth} levels deep",
                f"at most {VARIABLE_DEPTH}: refer to fewer variables that refer to others",
            )
        if chars > RESOLVED_CHARS or refs > RESOLVED_REFERENCES:
            raise ActsError(
                path,
                where,
                f"expands to {chars} characters through {refs} references",
                f"at most {RESOLVED_CHARS} characters and {RESOLVED_REFERENCES} references: variables that repeat"
                " others multiply, write fewer repeats",
            )
