"""The scenario catalogue the pages serve, the shared server's way (`a2a-lab serve` with no scenario: server/shared.py's
`CatalogueApp`, every scenario under `/<scenario-id>/`, isolated runs under `/runs/<run>/...` through its admin API),
hosted in this process on a free port of the UI's own address, started the first time a page needs it."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness.client_judging.remote import RemoteServer
from a2a_lab.harness.reports.catalogue_view import BINDING_NAMES, Offer, offer_of
from a2a_lab.server.guard import AdminGuard
from a2a_lab.server.hosting import BackgroundServer
from a2a_lab.server.shared import CatalogueApp


@dataclass(frozen=True)
class Listed:
    """A scenario as the catalogue browser lists it: what it is, and what its card offers."""

    scenario: Scenario
    offer: Offer

    @property
    def bindings(self) -> list[str]:
        return [BINDING_NAMES[b] for b in self.offer.bindings]

    @property
    def generations(self) -> list[str]:
        return sorted({v.value for _, v in self.offer.spoken}, reverse=True)


@dataclass
class Lab:
    host: str = "127.0.0.1"
    #: More host names the shared server's admin API answers (the UI's --allowed-host).
    allowed: tuple[str, ...] = ()
    _catalogue: Catalogue | None = None
    _listed: list[Listed] | None = None
    _server: BackgroundServer | None = None
    _guard: AdminGuard | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def catalogue(self) -> Catalogue:
        with self._lock:
            if self._catalogue is None:
                self._catalogue = Catalogue.load()
            return self._catalogue

    def listed(self) -> list[Listed]:
        """The scenarios a shared server can serve (not the TLS ones: each needs a certificate of its own)."""
        if self._listed is None:
            scenarios = [s for s in self.catalogue.scenarios.values() if s.tls is None]
            self._listed = [Listed(s, offer_of(s)) for s in sorted(scenarios, key=lambda s: s.id)]
        return self._listed

    def server(self) -> BackgroundServer:
        """The shared server, started on first use."""
        scenarios = list(self.catalogue.scenarios.values())
        with self._lock:
            if self._server is None:
                self._guard = AdminGuard.of(None, self.allowed)
                self._server = BackgroundServer(CatalogueApp(scenarios, self._guard), self.host, 0).start()
            return self._server

    @property
    def port(self) -> int:
        return int(self.server().url.rpartition(":")[2])

    def remote(self) -> RemoteServer:
        """The shared server through its admin API, with its admin token (which never leaves this process)."""
        server = self.server()
        assert self._guard is not None
        return RemoteServer(server.url.replace("0.0.0.0", "127.0.0.1"), token=self._guard.token)

    def origin_for(self, hostname: str, scheme: str = "http") -> str:
        """The shared server's origin under the name the browser used for the UI (a client on another host reaches it
        there when the UI listens beyond loopback)."""
        name = f"[{hostname}]" if ":" in hostname else hostname
        return f"{scheme}://{name}:{self.port}"

    def stop(self) -> None:
        with self._lock:
            if self._server is not None:
                self._server.stop()
                self._server = None

    def scenario(self, sid: str) -> Scenario | None:
        return self.catalogue.scenarios.get(sid)
