"""Everything one served scenario keeps between requests."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from a2a_lab.protocol import cards, signing

from .engine import Engine
from .journal import Journal
from .placeholders import ALT_BASE_URL, BASE_URL, alt_origin, fill_origins
from .scenario import CardSigning, Scenario

PAD_FIELD = "x-a2a-lab-padding"


def substitute(value: Any, base_url: str) -> Any:
    return fill_origins(value, base_url)


def _signed(doc: dict[str, Any], spec: CardSigning) -> dict[str, Any]:
    kid = f"{spec.kid}-unknown" if spec.tamper == "unknown-kid" else spec.kid
    signed = signing.sign(doc, spec.key, kid)
    if spec.tamper == "payload":
        signed["description"] = f"{signed.get('description', '')} (changed after signing)"
    return signed


def render_card(scenario: Scenario, base_url: str) -> bytes:
    """The card bytes to serve: the object with {base_url} filled in (signed, padded if asked), or the raw text."""
    spec = scenario.card
    if spec.raw is not None:
        if not spec.substitute_raw:
            return spec.raw
        return spec.raw.replace(ALT_BASE_URL.encode(), alt_origin(base_url).encode()).replace(BASE_URL.encode(), base_url.encode())
    doc = substitute(spec.object, base_url)
    if spec.sign is not None:
        doc = _signed(doc, spec.sign)
    body = json.dumps(doc, separators=(",", ":")).encode()
    if spec.pad_to and len(body) < spec.pad_to:
        doc = {**doc, PAD_FIELD: ""}
        overhead = len(json.dumps(doc, separators=(",", ":")).encode())
        doc[PAD_FIELD] = "x" * max(0, spec.pad_to - overhead)
        body = json.dumps(doc, separators=(",", ":")).encode()
    return body


def effective_seed(scenario: Scenario, run_seed: int) -> int:
    """One seed threads every random choice: the scenario's own, varied by the run's."""
    return scenario.seed + run_seed * 1_000_003


@dataclass
class LabState:
    """Cards are rendered per base URL (the origin a client used, plus the scenario's prefix), so the
    same server answers correctly on 127.0.0.1, on localhost and behind a compose service name."""

    scenario: Scenario
    journal: Journal
    engine: Engine
    card_doc: Any
    calls: Counter[str] = field(default_factory=Counter)
    open_streams: int = 0
    run_seed: int = 0
    _cards: dict[str, bytes] = field(default_factory=dict)

    @classmethod
    def build(cls, scenario: Scenario, run_seed: int = 0) -> LabState:
        try:
            doc = json.loads(render_card(scenario, "http://a2a-lab.invalid"))
        except ValueError:
            doc = None
        state = cls(scenario, Journal(scenario.limits.journal_entries), Engine(effective_seed(scenario, run_seed)), doc)
        state.run_seed = run_seed
        return state

    def card_bytes(self, base_url: str) -> bytes:
        body = self._cards.get(base_url)
        if body is None:
            if len(self._cards) > 64:
                self._cards.clear()
            body = self._cards[base_url] = render_card(self.scenario, base_url)
        return body

    def capability(self, name: str) -> bool:
        return cards.capability(self.card_doc, name)

    def reset(self) -> None:
        """Forget tasks, calls and journal: the scenario starts again (same seed, same ids)."""
        on_event = self.engine.on_event
        self.engine = Engine(effective_seed(self.scenario, self.run_seed))
        self.engine.on_event = on_event
        self.journal.reset()
        self.calls.clear()
