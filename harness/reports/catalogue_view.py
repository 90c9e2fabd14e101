"""Rendering the scenario catalogue: table, JSON, Markdown, and one scenario explained."""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass
from typing import Any

from a2a_lab.contract.loader import ScenarioError
from a2a_lab.contract.scenario import Scenario
from a2a_lab.protocol import cards
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.versions import Version


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


#: How the reference spells the bindings a2a-lab speaks, in the order it lists them.
BINDING_NAMES = {Binding.JSONRPC: "JSON-RPC", Binding.HTTP_JSON: "HTTP+JSON", Binding.GRPC: "gRPC"}


@dataclass(frozen=True)
class Offer:
    """What a scenario's card offers: the (binding, version) pairs a2a-lab speaks, and what else it declares."""

    spoken: tuple[tuple[Binding, Version], ...]
    #: Interfaces a2a-lab does not speak, as the card declares them (`JSONRPC 0.2`, a custom binding's URI).
    other: tuple[str, ...]

    @property
    def bindings(self) -> list[Binding]:
        return [b for b in BINDING_NAMES if any(b is spoken for spoken, _ in self.spoken)]

    def text(self) -> str:
        """`JSON-RPC (1.0, 0.3), HTTP+JSON (1.0)`; what else the card declares after it."""
        spoken = ", ".join(
            f"{BINDING_NAMES[b]} ({', '.join(v.value for v in Version if (b, v) in self.spoken)})"
            for b in self.bindings
        )
        other = f"also declares {', '.join(self.other)}, which a2a-lab does not speak" if self.other else ""
        return "; ".join(x for x in (spoken, other) if x) or "no interface a client can read (no readable card)"


def _card_documents(s: Scenario) -> list[Any]:
    """Every card the scenario serves, parsed: its object or raw text, and the texts it serves per A2A-Version."""
    texts = ([s.card.raw] if s.card.raw is not None else []) + [body for _, body in s.card.by_version]
    docs: list[Any] = [s.card.object] if s.card.object is not None else []
    for text in texts:
        try:
            docs.append(json.loads(text.decode("utf-8", "replace")))
        except ValueError:
            continue  # a card that is not JSON offers nothing
    return docs


def offer_of(s: Scenario) -> Offer:
    """What the scenario's card offers, read by `cards.interfaces` as a client of each generation reads it."""
    spoken: list[tuple[Binding, Version]] = []
    other: list[str] = []
    for doc in _card_documents(s):
        for reader in Version:
            for iface in cards.interfaces(doc, reader):
                if iface.support is not None:
                    if iface.support not in spoken:
                        spoken.append(iface.support)
                elif f"{iface.binding} {iface.version}" not in other:
                    other.append(f"{iface.binding} {iface.version}")
    return Offer(tuple(spoken), tuple(other))


_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
#: Characters of a scenario's prose that Markdown would read as markup, and how each is written instead.
_PROSE_ESCAPES = {"\\": "\\\\", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]", "|": "\\|", "<": "&lt;", "&": "&amp;"}


def _prose(text: str) -> str:
    """One paragraph of a scenario's text as Markdown shows it verbatim: markup characters escaped outside its code
    spans (which Markdown shows as they are), on one line, never starting a list, heading or quote."""
    out, at = [], 0
    flat = " ".join(text.split())
    for m in _CODE_SPAN.finditer(flat):
        out.append("".join(_PROSE_ESCAPES.get(ch, ch) for ch in flat[at : m.start()]))
        out.append(m.group(0))
        at = m.end()
    out.append("".join(_PROSE_ESCAPES.get(ch, ch) for ch in flat[at:]))
    line = "".join(out)
    return "\\" + line if re.match(r"[#>+-]|\d+[.)]\s", line) else line


def _paragraphs(text: str) -> list[str]:
    return [_prose(p) for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]


def source_line(s: Scenario) -> str:
    """`spec: ...`, `observed: ...` or `recorded: ...`: what the scenario stands on, and the kind of source."""
    kind = "spec" if s.spec else "observed" if s.observed else "recorded"
    return f"{kind}: {source_of(s)}"


def as_markdown(scenarios: list[Scenario]) -> str:
    """The scenario reference: the groups with their counts, then per group every scenario with its title,
    description, what its card offers, its checks and its source; anchors are the ids (`#quirks/card-redirected`)."""
    groups: dict[str, list[Scenario]] = {}
    for s in scenarios:
        groups.setdefault(s.group, []).append(s)
    lines = [
        f"{len(scenarios)} scenarios in {len(groups)} groups. A scenario's id is its file's path under `scenarios/` "
        "without `.yaml` (a family's members add a name of their own); `a2a-lab scenarios show ID` explains one on "
        "the console, and `a2a-lab run --scenario ID` (or a glob, `'quirks/*'`) chooses it. *Offers* is what its "
        "card declares, as a client of each generation reads it: the bindings with the protocol versions of each. "
        "*Checks* are the checks it exists to exercise; every other check that applies judges it too.",
        "",
        "| group | scenarios |",
        "|---|---|",
        *(f"| [{g}](#{g}) | {len(members)} |" for g, members in groups.items()),
    ]
    for group, members in groups.items():
        lines += ["", f"## {group} ({len(members)}) {{#{group}}}"]
        for s in members:
            offer = offer_of(s)
            checks = ", ".join(f"`{c}`" for c in s.checks) or "every applicable check"
            lines += ["", f"### `{s.id}` {{#{s.id}}}", "", f"**{_prose(s.title)}**"]
            for paragraph in _paragraphs(s.description):
                lines += ["", paragraph]
            lines += [
                "",
                f"- **Offers:** {_prose(offer.text())}",
                f"- **Checks:** {checks}",
                f"- **Source:** {_prose(source_line(s))}",
            ]
            if s.family:
                lines.append(f"- **Family:** `{s.family}` (one member of its matrix)")
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
