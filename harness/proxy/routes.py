"""Where the proxy sends what it gets: the card rewritten so every HTTP(S) interface URL passes through the proxy,
and the way back from a proxy path to the upstream URL. The upstream origin keeps its paths; an interface on another
origin is served under `/_via/<n>`. A gRPC interface's address is served on a port of the proxy's own (grpc_pass.py)
and its url written for it in the form the card used (`host:port` stays `host:port`); where gRPC cannot be proxied
(no address to dial, or no grpcio here) the url is left as it is, and named."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from a2a_lab.protocol import cards, grpcwire
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.versions import Version

#: The path prefix of an interface on another origin than the upstream's: `/_via/<n>/...`.
VIA = "/_via/"
#: The well-known card paths the proxy serves rewritten (1.0, and the legacy 0.3 one).
CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")


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

    @property
    def proxy_host(self) -> str:
        """The address the proxy listens on (its gRPC ports too)."""
        return urlsplit(self.proxy).hostname or "127.0.0.1"

    def upstream_url(self, path: str, query: str) -> str:
        """The upstream URL of a request that came to the proxy at `path`."""
        tail = f"?{query}" if query else ""
        if path.startswith(VIA):
            index, _, rest = path[len(VIA) :].partition("/")
            if index.isdigit() and int(index) < len(self.others):
                return f"{self.others[int(index)]}/{rest}{tail}"
        return f"{self.upstream}{path}{tail}"

    def learn(self, card: Any) -> None:
        """Note the origins and the unproxied interfaces of a card (both generations' readings)."""
        seen: set[str] = set()
        for reader in Version:
            for iface in cards.interfaces(card, reader):
                if iface.url in seen:
                    continue
                seen.add(iface.url)
                parts = urlsplit(iface.url)
                if iface.core_binding is Binding.GRPC:
                    self._learn_grpc(iface.label, iface.url)
                    continue
                if parts.scheme not in ("http", "https") or not parts.netloc:
                    self._not_proxied(
                        f"{iface.label} at {iface.url!r}: not proxied (only HTTP(S) and gRPC interfaces are)"
                    )
                    continue
                origin = origin_of(iface.url)
                if origin != self.upstream and origin not in self.others:
                    self.others.append(origin)

    def _learn_grpc(self, label: str, url: str) -> None:
        address = grpcwire.address_of(url)
        missing = grpcwire.missing()
        if address is None or missing is not None:
            why = "no address a client can dial" if address is None else missing
            self._not_proxied(f"{label} at {url!r}: not proxied ({why})")
            return
        tls = grpcwire.tls_of(url)
        self.grpc.setdefault(address, GrpcRoute(address, self.grpc_tls if tls is None else tls))
        self.grpc_urls[url] = address

    def _not_proxied(self, line: str) -> None:
        if line not in self.not_proxied:
            self.not_proxied.append(line)

    def rewrite(self, text: str) -> str:
        """A card's (or extended card's) text with each proxied origin written as the proxy's: nothing else changes."""
        for url, address in self.grpc_urls.items():
            served = self.grpc[address].proxy
            if served is not None:  # a JSON string of the card: the url exactly, quoted
                text = text.replace(json.dumps(url), json.dumps(grpcwire.with_address(url, served)))
        mapping = {self.upstream: self.proxy, **{o: f"{self.proxy}{VIA}{i}" for i, o in enumerate(self.others)}}
        pattern = "|".join(re.escape(o) for o in sorted(mapping, key=len, reverse=True))
        return re.sub(f"(?:{pattern})(?![\\w.:-])", lambda m: mapping[m.group(0)], text)
