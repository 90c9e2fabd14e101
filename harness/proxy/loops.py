"""The proxy never forwards to itself. Two guards:

- before forwarding, the target's host is resolved and compared with the addresses the proxy listens on (its HTTP
  port and each gRPC port): a webhook at the proxy's own `/_push/<n>`, a card interface naming the proxy's own origin
  (served under `/_via/<n>`), an upstream that is the proxy itself are refused (508), never forwarded;
- every request it forwards carries `Via: 1.1 <its pseudonym>` (RFC 9110 §7.6.3), and a request that arrives with
  that pseudonym (it went round: another proxy, a name that resolved elsewhere the first time) or with more than
  `MAX_HOPS` entries is refused (508) and journaled, so a loop through anything ends at its second pass."""

from __future__ import annotations

import asyncio
import ipaddress
import secrets
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from a2a_lab.harness.proxy import limits

_VIA = b"via"
#: Resolved names kept (a name's addresses are looked up once; the bound keeps a flood of names from growing it).
_CACHE = 256
_Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _ip(text: str) -> _Address | None:
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _local(address: _Address) -> bool:
    """Whether `address` is one of this machine's (a socket can be bound to it)."""
    if address.is_loopback:
        return True
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.bind((str(address), 0))
    except OSError:
        return False
    return True


@dataclass
class Own:
    """The addresses the proxy listens on, and its pseudonym in `Via`."""

    listening: list[tuple[_Address, int]] = field(default_factory=list)
    pseudonym: str = field(default_factory=lambda: f"a2a-lab-proxy-{secrets.token_hex(4)}")
    _resolved: dict[tuple[str, int], list[_Address]] = field(default_factory=dict)

    @property
    def via(self) -> tuple[bytes, bytes]:
        """The header each forwarded request carries."""
        return _VIA, f"1.1 {self.pseudonym}".encode("latin-1")

    def listen(self, host: str, port: int) -> None:
        """The proxy listens on `host:port` too (an address literal; `0.0.0.0`/`::` for all of this machine's)."""
        address = _ip(host.strip("[]"))
        if address is not None:
            self.listening.append((address, port))

    def _is_own(self, address: _Address, port: int) -> bool:
        for own, own_port in self.listening:
            if port != own_port:
                continue
            if own.is_unspecified:  # all of this machine's (IPv6's: IPv4's too, the socket being dual-stack)
                if (own.version == 6 or address.version == 4) and _local(address):
                    return True
            elif own == address:
                return True
        return False

    def plainly(self, url: str) -> bool:
        """Whether `url` names the proxy without looking its host up: an address literal, or `localhost`."""
        host, port = _host_port(url)
        if host is None:
            return False
        if host.lower() in ("localhost", "localhost."):
            return any(self._is_own(a, port) for a in (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")))
        address = _ip(host)
        return address is not None and self._is_own(address, port)

    async def names(self, url: str) -> bool:
        """Whether `url` (http(s), or a gRPC `host:port` as `//host:port`) reaches the proxy itself: its host
        resolved (once per name) and compared with what the proxy listens on. A name that does not resolve is not
        the proxy (the connection will say why it failed)."""
        host, port = _host_port(url)
        if host is None:
            return False
        if self.plainly(url):
            return True
        if _ip(host) is not None:
            return False
        key = (host.lower(), port)
        addresses = self._resolved.get(key)
        if addresses is None:
            try:
                found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except (OSError, UnicodeError):
                found = []
            addresses = [a for a in (_ip(str(info[4][0])) for info in found) if a is not None]
            if len(self._resolved) >= _CACHE:
                self._resolved.clear()
            self._resolved[key] = addresses
        return any(self._is_own(a, port) for a in addresses)

    def looped(self, headers: list[tuple[bytes, bytes]]) -> str | None:
        """Why a request that came must not be forwarded again (it passed this proxy, or too many), or None."""
        hops = [h.strip() for k, v in headers if k.lower() == _VIA for h in v.decode("latin-1").split(",") if h.strip()]
        if any(self.pseudonym in hop.split() for hop in hops):
            return f"the request has passed through this proxy before (Via: {', '.join(hops)[:300]})"
        if len(hops) >= limits.MAX_HOPS:
            return f"the request has passed {len(hops)} proxies (Via), the most the proxy forwards is {limits.MAX_HOPS}"
        return None


def _host_port(url: str) -> tuple[str | None, int]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None, 0
    default = 443 if parts.scheme in ("https", "grpcs") else 80
    return parts.hostname, port if port is not None else default
