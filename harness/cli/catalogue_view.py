"""Rendering the scenario catalogue: table, JSON, Markdown, and one scenario explained."""

from __future__ import annotations

import textwrap
from typing import Any

from a2a_lab.contract.loader import ScenarioError
from a2a_lab.contract.scenario import Scenario


def source_of(s: Scenario) -> str:
    if s.spec:
        return s.spec
    if s.observed:
        o = s.observed
        return "; ".join(str(o[k]) for k in ("where", "when", "note") if o.get(k))
    return "recorded"


def as_json(scenarios: list[Scenario], broken: dict[str, ScenarioError] | None = None) -> dict[str, Any]:
    return {
        "scenarios": [
            {
                "id": s.id,
                "group": s.group,
                "family": s.family,
                "title": s.title,
                "description": s.description,
                "source": source_of(s),
                "spec": s.spec,
                "observed": s.observed,
                "checks": list(s.checks),
                "message": s.client.message,
                "timeout": s.timeout,
            }
            for s in scenarios
        ],
        "broken": [{"id": sid, "error": str(exc)} for sid, exc in sorted((broken or {}).items())],
    }


def as_table(scenarios: list[Scenario]) -> str:
    width = max((len(s.id) for s in scenarios), default=2)
    lines = [f"{'ID'.ljust(width)}  TITLE"] + [f"{s.id.ljust(width)}  {s.title}" for s in scenarios]
    lines.append(f"\n{len(scenarios)} scenarios. `a2a-lab scenarios show ID` explains one.")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def as_markdown(scenarios: list[Scenario]) -> str:
    lines = ["| id | title | checks | source |", "|---|---|---|---|"]
    for s in scenarios:
        lines.append(
            f"| `{s.id}` | {_cell(s.title)} | {_cell(', '.join(s.checks) or 'all applicable')} "
            f"| {_cell(source_of(s))} |"
        )
    return "\n".join(lines) + "\n"


def explain(s: Scenario) -> str:
    def wrap(text: str) -> str:
        return textwrap.fill(" ".join(text.split()), 100, initial_indent="  ", subsequent_indent="  ")

    parts = [
        f"{s.id}: {s.title}",
        "",
        wrap(s.description),
        "",
        f"Source: {source_of(s)}",
        f"File:   {s.source}" + (f" (family {s.family}: one member of its matrix)" if s.family else ""),
        f"Client is asked to send: {s.client.message!r}"
        + (f" and to act on {s.client.action}" if s.client.action else ""),
        f"Timeout: {s.timeout:g}s   Seed: {s.seed}   Spec revision: {s.spec_revision.value}",
        "Endpoints:",
    ]
    for e in s.endpoints:
        parts.append(f"  {e.binding.value:<9} {', '.join(v.value for v in e.versions):<9} at {e.path}")
    if s.rules:
        parts.append("Behaviour overrides: " + ", ".join(op.value for op in s.rules))
    if s.checks:
        parts.append("Checks: " + ", ".join(s.checks))
    return "\n".join(parts)
