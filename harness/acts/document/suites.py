"""Suites and tests (§3): ids, levels, tags, transports, preconditions, behaviours and runner requirements."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from a2a_lab.contract.suggest import one_of
from a2a_lab.harness.acts.document.checks import read_named
from a2a_lab.harness.acts.document.fields import Fields, join, kind_of
from a2a_lab.harness.acts.document.grammar import LEVELS, RUNNER_REQUIREMENTS, TEST_FIELDS, TRANSPORTS
from a2a_lab.harness.acts.document.records import Preconditions, Suite, Test, Where
from a2a_lab.harness.acts.document.steps import read_step


def read_suite(f: Fields, raw: Any, where: str, doc_ref: str, variables: Mapping[str, str]) -> Suite:
    f.map(raw, where, ("id", "name", "description", "tags", "tests"))
    suite_id = f.text(raw, where, "id", required=True)
    tags = f.texts(raw, where, "tags")
    tests = f.items(raw, where, "tests")
    if not tests:
        raise f.fail(join(where, "tests"), "is required: a suite holds at least one test")
    return Suite(
        suite_id,
        f.text(raw, where, "name", required=True),
        tuple(_test(f, t, f"{where}.tests[{i}]", suite_id, tags, doc_ref, variables) for i, t in enumerate(tests)),
        f.text(raw, where, "description"),
        str(f.path),
    )


def _test(
    f: Fields,
    raw: Any,
    where: str,
    suite: str,
    tags: tuple[str, ...],
    doc_ref: str,
    variables: Mapping[str, str],
) -> Test:
    f.map(raw, where, TEST_FIELDS)
    test_id = f.text(raw, where, "id", required=True)
    level = f.text(raw, where, "level", required=True)
    if level not in LEVELS:
        raise f.fail(
            join(where, "level"),
            f"{level!r} is not a conformance level",
            one_of(level, LEVELS),
        )
    steps_raw = f.items(raw, where, "steps")
    if not steps_raw:
        raise f.fail(join(where, "steps"), "is required: a test has at least one step")
    steps = tuple(read_step(f, s, f"{where}.steps[{i}]") for i, s in enumerate(steps_raw))
    ids = [s.id for s in steps]
    dup = next((i for i in ids if ids.count(i) > 1), None)
    if dup is not None:
        raise f.fail(
            join(where, "steps"),
            f"step id {dup!r} is used twice",
            "step ids are unique within a test (§4)",
        )
    transport = f.texts(raw, where, "transport", TRANSPORTS)
    if not transport and all(s.kind == "raw" for s in steps):
        raise f.fail(
            join(where, "transport"),
            "is required: every step is a raw wire step",
            "raw steps are transport-specific",
        )
    return Test(
        id=test_id,
        name=f.text(raw, where, "name", required=True),
        level=level,
        suite=suite,
        where=Where(str(f.path), where),
        steps=steps,
        description=f.text(raw, where, "description"),
        spec_ref=f.text(raw, where, "spec_ref"),
        tags=tuple(dict.fromkeys((*tags, *f.texts(raw, where, "tags")))),
        transport=transport,
        preconditions=_preconditions(f, raw.get("preconditions"), join(where, "preconditions")),
        requires_behaviors=f.texts(raw, where, "requires_behaviors"),
        origin=f.text(raw, where, "origin"),
        runner_requirements=f.texts(raw, where, "runner_requirements", RUNNER_REQUIREMENTS),
        assertions=tuple(
            read_named(f, a, f"{where}.assertions[{i}]", True) for i, a in enumerate(f.items(raw, where, "assertions"))
        ),
        doc_spec_ref=doc_ref,
        variables=variables,
    )


def _preconditions(f: Fields, raw: Any, where: str) -> Preconditions:
    if raw is None:
        return Preconditions()
    f.map(raw, where, ("capabilities", "skills", "transport", "extensions", "description"))
    caps = raw.get("capabilities") or {}
    if not isinstance(caps, dict):
        raise f.fail(join(where, "capabilities"), f"must be a mapping, got {kind_of(caps)}")
    skills = []
    for i, skill in enumerate(f.items(raw, where, "skills")):
        f.map(skill, f"{where}.skills[{i}]", ("id",))
        skills.append(f.text(skill, f"{where}.skills[{i}]", "id", required=True))
    return Preconditions(
        caps,
        tuple(skills),
        f.texts(raw, where, "transport", TRANSPORTS),
        f.texts(raw, where, "extensions"),
        f.text(raw, where, "description"),
    )
