"""Everything one served scenario keeps between requests."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any

from a2a_lab.contract import edits
from a2a_lab.contract.journal import Journal
from a2a_lab.contract.placeholders import (
    ALT_BASE_URL,
    BASE_URL,
    GRPC_ADDRESS,
    HTTP_BASE_URL,
    NO_GRPC_ADDRESS,
    alt_origin,
    fill_origins,
    plain_origin,
)
from a2a_lab.contract.redaction import Redaction
from a2a_lab.contract.scenario import CardSigning, CardSpec, Scenario, Tamper
from a2a_lab.protocol import cards, signing
from a2a_lab.protocol.revisions import has_generations
from a2a_lab.protocol.shapes import PartsLimit

from . import budgets
from .auth import Policy, TokenStore, security_of
from .engine import Engine, TaskRecord

PAD_FIELD = "x-a2a-lab-padding"
#: Rendered cards kept at most, whatever their size (a server hears a handful of origins).
CARDS_KEPT = 64


def _signed(doc: dict[str, Any], spec: CardSigning) -> dict[str, Any]:
    kid = f"{spec.kid}-unknown" if spec.tamper is Tamper.UNKNOWN_KID else spec.kid
    signed = signing.sign(doc, spec.key, kid)
    if spec.tamper is Tamper.PAYLOAD:
        signed["description"] = f"{signed.get('description', '')} (changed after signing)"
    return signed


def substitute_raw(
    spec: CardSpec,
    raw: bytes,
    base_url: str,
    grpc_address: str = NO_GRPC_ADDRESS,
    http_base_url: str | None = None,
    alt_base_url: str | None = None,
) -> bytes:
    """Raw card text with its placeholders filled in, unless the card keeps its bytes untouched."""
    if not spec.substitute_raw:
        return raw
    return (
        raw.replace(ALT_BASE_URL.encode(), (alt_base_url or alt_origin(base_url)).encode())
        .replace(HTTP_BASE_URL.encode(), (http_base_url or base_url).encode())
        .replace(BASE_URL.encode(), base_url.encode())
        .replace(GRPC_ADDRESS.encode(), grpc_address.encode())
    )


def render_card(
    scenario: Scenario,
    base_url: str,
    grpc_address: str = NO_GRPC_ADDRESS,
    http_base_url: str | None = None,
    alt_base_url: str | None = None,
) -> bytes:
    """The card bytes to serve: the object with {base_url} filled in (signed, padded if asked), or the raw text."""
    spec = scenario.card
    if spec.raw is not None:
        return substitute_raw(spec, spec.raw, base_url, grpc_address, http_base_url, alt_base_url)
    doc = edits.apply(fill_origins(spec.object, base_url, grpc_address, http_base_url, alt_base_url), spec.edits)
    if spec.sign is not None:
        doc = _signed(doc, spec.sign)
    body = json.dumps(doc, separators=(",", ":")).encode()
    if spec.pad_to and len(body) < spec.pad_to:
        # The card with PAD_FIELD last, holding as many "x" as fill it to pad_to: encoded with the field empty, the
        # x's spliced in before its closing quote and brace (they need no escaping; the bytes are the same as
        # encoding the padded object, without encoding megabytes of x three times per origin).
        empty = json.dumps({**doc, PAD_FIELD: ""}, separators=(",", ":")).encode()
        body = b"".join((empty[:-2], b"x" * max(0, spec.pad_to - len(empty)), empty[-2:]))
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
    #: When this scenario started serving (wall clock): the card's Last-Modified.
    started_at: float = field(default_factory=time.time)
    #: Rendered cards by base URL, least recently served first, within limits.card_cache_bytes (and CARDS_KEPT).
    _cards: OrderedDict[str, bytes] = field(default_factory=OrderedDict)
    _card_bytes: int = 0
    #: Background movers of tasks that time moves on (keep_moving), by task id.
    _movers: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    #: The extension URIs the card marks required (§3.6), read once: every SendMessage checks them.
    required_extensions: tuple[str, ...] = ()
    #: limits.parts_per_message, as the message reader takes it.
    parts_limit: PartsLimit = field(init=False)
    #: Where the scenario's gRPC server listens (`host:port`, what `{grpc_address}` reads), once it has started.
    grpc_address: str = NO_GRPC_ADDRESS
    #: The port of the server's plain-HTTP listener beside its TLS one (what `{http_base_url}` names), if any.
    http_port: int | None = None

    #: The card's security as the scenario enforces it, and the access tokens its token endpoint issued.
    auth: Policy | None = None
    #: Another name of this server (`host[:port]`, `a2a-lab serve --other-origin`) that `{alt_base_url}` names, where
    #: the loopback alias (127.0.0.1 <-> localhost) would not reach it: client and server on different hosts.
    other_origin: str | None = None
    #: Hosts push notifications may go to besides loopback and the scenario's own `push.allow` (`serve --push-allow`).
    push_allow_extra: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.scenario.auth is not None:
            tokens = TokenStore(effective_seed(self.scenario, self.run_seed), self.scenario.id)
            self.auth = Policy(self.scenario.auth, security_of(self.card_doc), tokens)
        self.required_extensions = tuple(cards.required_extensions(self.card_doc))
        most = self.scenario.limits.parts_per_message
        self.parts_limit = PartsLimit(most, budgets.raise_hint("parts_per_message"))

    @classmethod
    def build(cls, scenario: Scenario, run_seed: int = 0) -> LabState:
        try:
            doc = json.loads(render_card(scenario, "http://a2a-lab.invalid"))
        except ValueError:
            doc = None
        state = cls(
            scenario,
            Journal(
                scenario.limits.journal_entries,
                Redaction.for_cards(doc, scenario.extended_card),
                scenario.limits.journal_bytes,
            ),
            cls._engine(scenario, run_seed),
            doc,
            run_seed=run_seed,
        )
        return state

    @staticmethod
    def _engine(scenario: Scenario, run_seed: int) -> Engine:
        limits = scenario.limits
        return Engine(
            effective_seed(scenario, run_seed),
            max_tasks=limits.tasks,
            max_bytes=limits.task_bytes,
            generations=has_generations(scenario.spec_revision),
        )

    def card_bytes(self, base_url: str) -> bytes:
        """The card as served at `base_url`: rendered once per origin and kept, the least recently served forgotten
        first, within limits.card_cache_bytes (a card larger than that is rendered for every request)."""
        body = self._cards.get(base_url)
        if body is not None:
            self._cards.move_to_end(base_url)
            return body
        body = render_card(
            self.scenario, base_url, self.grpc_address, plain_origin(base_url, self.http_port), self.alt_base(base_url)
        )
        budget = self.scenario.limits.card_cache_bytes
        if len(body) <= budget:
            while self._cards and (self._card_bytes + len(body) > budget or len(self._cards) >= CARDS_KEPT):
                self._card_bytes -= len(self._cards.popitem(last=False)[1])
            self._cards[base_url] = body
            self._card_bytes += len(body)
        return body

    def alt_base(self, base_url: str) -> str:
        """What `{alt_base_url}` reads for a client that used `base_url`: the same server on another origin."""
        return alt_origin(base_url, self.other_origin)

    @property
    def push_allow(self) -> tuple[str, ...]:
        """The hosts besides loopback that push notifications may be sent to."""
        return (*self.scenario.push_allow, *self.push_allow_extra)

    def serve_grpc_at(self, address: str) -> None:
        """The gRPC server started: cards name it from now on."""
        self.grpc_address = address
        self._cards.clear()
        self._card_bytes = 0

    @property
    def cached_card_bytes(self) -> int:
        """Bytes of rendered cards kept now."""
        return self._card_bytes

    @property
    def cached_cards(self) -> list[str]:
        """The base URLs whose rendered cards are kept, least recently served first."""
        return list(self._cards)

    def capability(self, name: str) -> bool:
        return cards.capability(self.card_doc, name)

    def keep_moving(self, rec: TaskRecord) -> None:
        """Time moves a task with `advance: {after_ms}` on by itself, watched or not: its webhooks are notified and a
        dropped stream's task goes on, as on a real server. A task that moves on GetTask moves the same way, at its
        pace (`advance.follow_ms` per GetTask), while a client follows it by subscription or push (TaskRecord.
        followed). One mover per task; it ends at a stop, the script's end, or when nothing follows the task any more.
        Without a running event loop (the engine used directly) time is only observed when the task is looked at."""
        if self.engine.next_move_in(rec) is None or rec.id in self._movers:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        engine = self.engine

        async def move() -> None:
            try:
                while self.engine is engine:
                    wait = engine.next_move_in(rec)
                    if wait is None:
                        return
                    await asyncio.sleep(wait)
                    engine.tick(rec)
            finally:
                if self._movers.get(rec.id) is asyncio.current_task():
                    del self._movers[rec.id]

        self._movers[rec.id] = loop.create_task(move())

    def reset(self) -> None:
        """Forget tasks, calls and journal: the scenario starts again (same seed, same ids)."""
        for mover in list(self._movers.values()):
            mover.cancel()
        self._movers.clear()
        on_event = self.engine.on_event
        self.engine = self._engine(self.scenario, self.run_seed)
        self.engine.on_event = on_event
        self.journal.reset()
        self.calls.clear()
        if self.auth is not None:
            self.auth.tokens.reset()
