"""The proxy's bounds, in one place: what one request, card and stream event may make it hold, what it holds for all
requests together, how many requests it answers at once, how many origins and gRPC ports a card may make it serve, how
many hops a request may have made, how many informational heads an answer may start with, and how long it waits for
its own shutdown. Each is said at start-up (`said`) and in the report (`proxy.limits`); each refusal names its bound.

`InFlight` is the one budget of bytes held for requests being answered (bodies read, cards read, stream events being
read): each exchange takes its `Share` of it as it reads, and gives it back when it ends. It lives on the serving loop
(no lock)."""

from __future__ import annotations

from typing import Any

MIB = 1024 * 1024
#: The journal's bound in entries unless told (its bytes are the server journal's default, 64 MiB).
ENTRIES = 10_000
#: The largest request body the proxy forwards (a larger one is refused with 413, and journaled).
MAX_BODY = 16 * MIB
#: The largest card (or extended card, or push config answer) the proxy reads to rewrite, at start-up and later; a
#: larger answer passes as it came (at start-up: said, and not read).
MAX_CARD = 4 * MIB
#: The largest stream event (an SSE event, an NDJSON line) the proxy reads to journal: a larger one passes to the
#: client as it came, and is journaled as its size and first bytes.
MAX_EVENT = 4 * MIB
#: The bytes the proxy holds for all requests being answered together (bodies, cards, events being read): past it a
#: request is refused with 503, saying so.
MAX_IN_FLIGHT = 256 * MIB
#: The requests the proxy answers at once (streams included): one more is refused with 503, saying so.
MAX_EXCHANGES = 4096
#: The interfaces of a card's list (1.0 `supportedInterfaces`, 0.3 `additionalInterfaces`) the proxy reads to route
#: and classify requests; the card it serves keeps the rest, not proxied, and named.
MAX_INTERFACES = 256
#: The origins other than the upstream's a card may name for the proxy to serve under `/_via/<n>`; a further one is
#: not proxied, and named.
MAX_ORIGINS = 32
#: The gRPC addresses a card may name for the proxy to open a port of its own for; a further one is not proxied.
MAX_GRPC_PORTS = 16
#: The gRPC urls (of those addresses) the proxy rewrites in the card it serves.
MAX_GRPC_URLS = 64
#: The interfaces named as not proxied, each by a sentence (the rest are counted).
MAX_NOT_PROXIED = 64
#: The proxies a request may have passed (its `Via` header): one more is refused with 508, as is a request that has
#: passed this proxy before.
MAX_HOPS = 16
#: The informational (1xx) heads an upstream answer may start with; one more ends it (502).
MAX_INFORMATIONAL = 32
#: How long the proxy waits for its own ports to close at the end (its gRPC ports GRPC_STOP_S, then its HTTP port);
#: the verdict and the reports are written after it whatever happened.
SHUTDOWN_S = 15.0
GRPC_STOP_S = 5.0
#: The first bytes of an oversized event the journal keeps.
QUOTE_BYTES = 256


def size(n: int) -> str:
    """A byte count as the docs write it (`16 MiB`)."""
    return f"{n // MIB} MiB" if n % MIB == 0 else f"{n} bytes"


def said(timeout: float) -> str:
    """The bounds, as one sentence printed at start-up."""
    return (
        f"bounds: request bodies {size(MAX_BODY)}, cards {size(MAX_CARD)}, one stream event {size(MAX_EVENT)} "
        f"journaled, {size(MAX_IN_FLIGHT)} held in all, {MAX_EXCHANGES} requests at once; of a card {MAX_INTERFACES} "
        f"interfaces a list, {MAX_ORIGINS} other origins and {MAX_GRPC_PORTS} gRPC ports; {MAX_HOPS} hops; the "
        "upstream starts each answer "
        f"(and the start-up card) within --timeout ({timeout:g} s); shutdown within {SHUTDOWN_S:g} s"
    )


def table(timeout: float) -> dict[str, Any]:
    """The bounds, for the report (`proxy.limits`)."""
    return {
        "body_bytes": MAX_BODY,
        "card_bytes": MAX_CARD,
        "event_bytes": MAX_EVENT,
        "in_flight_bytes": MAX_IN_FLIGHT,
        "requests_at_once": MAX_EXCHANGES,
        "interfaces_read": MAX_INTERFACES,
        "other_origins": MAX_ORIGINS,
        "grpc_ports": MAX_GRPC_PORTS,
        "grpc_urls": MAX_GRPC_URLS,
        "hops": MAX_HOPS,
        "informational_heads": MAX_INFORMATIONAL,
        "answer_start_seconds": timeout,
        "shutdown_seconds": SHUTDOWN_S,
    }


class InFlight:
    """The bytes held for all requests being answered, and how many are."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = MAX_IN_FLIGHT if limit is None else limit
        self.used = 0

    def share(self) -> Share:
        return Share(self)

    def refusal(self) -> str:
        return f"the proxy holds {size(self.limit)} for the requests it is answering, its limit; try again later"


class Share:
    """One exchange's part of the budget."""

    def __init__(self, budget: InFlight) -> None:
        self.budget = budget
        self.held = 0

    def hold(self, total: int) -> bool:
        """Hold `total` bytes in all (more or fewer than now); False, and nothing changed, when more would pass the
        budget's limit."""
        grow = total - self.held
        if grow > 0 and self.budget.used + grow > self.budget.limit:
            return False
        self.budget.used += grow
        self.held = total
        return True

    def take(self, n: int) -> bool:
        return self.hold(self.held + n)

    def release(self) -> None:
        self.hold(0)
