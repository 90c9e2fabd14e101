"""Where the proxy sends what it gets: the card rewritten so every HTTP(S) interface URL passes through the proxy,
and the way back from a proxy path to the upstream URL. The upstream origin keeps its paths; an interface on another
origin is served under `/_via/<n>`. A gRPC interface's address is served on a port of the proxy's own (grpc_pass.py)
and its url written for it in the form the card used (`host:port` stays `host:port`); where gRPC cannot be proxied
(no address to dial, or no grpcio here) the url is left as it is, and named.

A card may make the proxy serve at most `limits.MAX_ORIGINS` other origins and `limits.MAX_GRPC_PORTS` gRPC
addresses (cards that change on every fetch included: what was learnt stays); an interface past them, or naming the
proxy's own address, is left as it is and named (`not_proxied`, itself bounded)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from a2a_lab.harness.proxy import limits
from a2a_lab.harness.proxy.loops import Own
from a2a_lab.protocol import cards, grpcwire
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.versions import Version

#: The path prefix of an interface on another origin than the upstream's: `/_via/<n>/...`.
VIA = "/_via/"
#: The well-known card paths the proxy serves rewritten (1.0, and the legacy 0.3 one).
CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")


#: The members of a card that list interfaces (1.0, and 0.3's besides its main `url`).
INTERFACE_LISTS = ("supportedInterfaces", "additionalInterfaces")


def read_of(card: Any) -> tuple[Any, int]:
    """The card as the proxy reads it to route and classify requests: each list of interfaces cut at
    limits.MAX_INTERFACES (the card served keeps them all); and how many were left out."""
    if not isinstance(card, dict):
        return card, 0
    cut, left = card, 0
    for key in INTERFACE_LISTS:
        listed = card.get(key)
        if isinstance(listed, list) and len(listed) > limits.MAX_INTERFACES:
            cut = dict(cut) if cut is card else cut
            cut[key] = listed[: limits.MAX_INTERFACES]
            left += len(listed) - limits.MAX_INTERFACES
    return cut, left


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@dataclass
class GrpcRoute:
    """A gRPC interface of the upstream's: the address dialed, whether over TLS, and the proxy's own address for it
    once it listens (None before)."""

    upstream: str
    tls: bool
    proxy: str | None = None
    #: Why no port of the proxy's serves it (it could not listen, or the address is the proxy's own), or None.
    refused: str | None = None


@dataclass
class Routes:
    """The upstream origin, the proxy's own, and the other origins interfaces named (by their `/_via/<n>` index)."""

    upstream: str
    proxy: str
    others: list[str] = field(default_factory=list)
    #: Interfaces that do not pass through the proxy, as a sentence each (gRPC, non-http URLs).
    not_proxied: list[str] = field(default_factory=list)
    #: The upstream's gRPC interfaces by the address they dial, and each gRPC url of the card to that address.
    grpc: dict[str, GrpcRoute] = field(default_factory=dict)
    grpc_urls: dict[str, str] = field(default_factory=dict)
    #: Whether a gRPC url that names no scheme (`host:port`) is dialed over TLS (`--grpc-tls`; default plaintext).
    grpc_tls: bool = False
    #: The proxy's own addresses (an interface naming one is not proxied), once it listens.
    own: Own | None = None
    #: Interfaces not proxied past the `not_proxied` lines kept (the most one card named).
    unlisted: int = 0
    _unlisted_now: int = 0

    @property
    def proxy_host(self) -> str:
        """The address the proxy listens on (its gRPC ports too)."""
        return urlsplit(self.proxy).hostname or "127.0.0.1"

    def upstream_url(self, path: str, query: str, raw: str | None = None) -> str:
        """The upstream URL of a request that came to the proxy at `path` (percent-decoded): its `raw` path, as it
        came (`a%2Fb` stays `a%2Fb`), when known."""
        tail = f"?{query}" if query else ""
        sent = raw if raw is not None else path
        if path.startswith(VIA):
            index, _, rest = path[len(VIA) :].partition("/")
            if index.isdigit() and int(index) < len(self.others):
                prefix = f"{VIA}{index}/"
                if raw is not None:  # the rest as it came; a prefix written with escapes: the rest re-escaped
                    rest = raw[len(prefix) :] if raw.startswith(prefix) else quote(rest, safe="/:@!$&'()*+,;=~")
                return f"{self.others[int(index)]}/{rest}{tail}"
        return f"{self.upstream}{sent}{tail}"

    def learn(self, card: Any) -> None:
        """Note the origins and the unproxied interfaces of a card (both generations' readings; each list of
        interfaces up to limits.MAX_INTERFACES)."""
        seen: set[str] = set()
        self._unlisted_now = 0
        card, left = read_of(card)
        if left:
            self._not_proxied(f"interfaces past the first {limits.MAX_INTERFACES} of a list: not read (not proxied)")
        missing = grpcwire.missing()  # looked up once: it searches the module path
        for reader in Version:
            for iface in cards.interfaces(card, reader):
                if iface.url in seen:
                    continue
                seen.add(iface.url)
                parts = urlsplit(iface.url)
                if iface.core_binding is Binding.GRPC:
                    self._learn_grpc(iface.label, iface.url, missing)
                    continue
                if parts.scheme not in ("http", "https") or not parts.netloc:
                    self._not_proxied(
                        f"{iface.label} at {iface.url!r}: not proxied (only HTTP(S) and gRPC interfaces are)"
                    )
                    continue
                origin = origin_of(iface.url)
                if origin == self.upstream or origin in self.others:
                    continue
                if self.own is not None and self.own.plainly(origin):
                    self._not_proxied(f"{iface.label} at {iface.url!r}: not proxied (the proxy's own address)")
                elif len(self.others) >= limits.MAX_ORIGINS:
                    self._not_proxied(
                        f"{iface.label} at {iface.url!r}: not proxied (the proxy serves at most "
                        f"{limits.MAX_ORIGINS} origins besides the upstream's)"
                    )
                else:
                    self.others.append(origin)
        self.unlisted = max(self.unlisted, self._unlisted_now)

    def _learn_grpc(self, label: str, url: str, missing: str | None) -> None:
        address = grpcwire.address_of(url)
        if address is None or missing is not None:
            why = "no host:port a client can dial" if address is None else missing
            self._not_proxied(f"{label} at {url!r}: not proxied ({why})")
            return
        if url in self.grpc_urls:
            return
        if (address not in self.grpc and len(self.grpc) >= limits.MAX_GRPC_PORTS) or len(
            self.grpc_urls
        ) >= limits.MAX_GRPC_URLS:
            self._not_proxied(
                f"{label} at {url!r}: not proxied (the proxy opens at most {limits.MAX_GRPC_PORTS} gRPC ports, for "
                f"at most {limits.MAX_GRPC_URLS} gRPC urls)"
            )
            return
        tls = grpcwire.tls_of(url)
        self.grpc.setdefault(address, GrpcRoute(address, self.grpc_tls if tls is None else tls))
        self.grpc_urls[url] = address

    def not_proxied_line(self, line: str) -> None:
        """Name an interface that is not proxied (bounded: past limits.MAX_NOT_PROXIED lines, counted)."""
        self._not_proxied(line)
        self.unlisted = max(self.unlisted, self._unlisted_now)

    def _not_proxied(self, line: str) -> None:
        if line in self.not_proxied:
            return
        if len(self.not_proxied) < limits.MAX_NOT_PROXIED:
            self.not_proxied.append(line)
        else:
            self._unlisted_now += 1

    def rewrite(self, text: str) -> str:
        """A card's (or extended card's) text with each proxied origin written as the proxy's: nothing else changes."""
        for url, address in self.grpc_urls.items():
            served = self.grpc[address].proxy
            if served is not None:  # a JSON string of the card: the url exactly, quoted
                text = text.replace(json.dumps(url), json.dumps(grpcwire.with_address(url, served)))
        mapping = {self.upstream: self.proxy, **{o: f"{self.proxy}{VIA}{i}" for i, o in enumerate(self.others)}}
        pattern = "|".join(re.escape(o) for o in sorted(mapping, key=len, reverse=True))
        return re.sub(f"(?:{pattern})(?![\\w.:-])", lambda m: mapping[m.group(0)], text)
