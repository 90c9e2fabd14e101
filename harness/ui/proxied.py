"""A live pair on a page: a proxy session (proxy/session.py's `hosted`, as `a2a-lab proxy` opens one) in front of
an agent, judged by the proxy's own verdict (proxy/verdict.py: the client checks that need no scenario, and the
probe's judging of every answer) whenever its journal grows. Page 2 (talk) puts the reference client on the near
side, each message the page asks for one `refclient.run` through the proxy; page 3 (watch) leaves the near side to a
client the user starts."""

from __future__ import annotations

import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness.client_judging import scoring
from a2a_lab.harness.clients import refclient
from a2a_lab.harness.proxy import session
from a2a_lab.harness.proxy.app import ProxyState
from a2a_lab.harness.proxy.verdict import report_checks, verdict
from a2a_lab.harness.reports import json_report
from a2a_lab.protocol.cards import WELL_KNOWN_PATH
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer


@dataclass
class Sent:
    """One message the page asked the reference client to send, and what it understood."""

    text: str
    asked: str
    result: dict[str, Any] | None = None
    #: The result for people (refclient.render_text), as `a2a-lab client` prints it.
    said: str = ""


@dataclass
class Pair:
    id: str
    upstream: str
    state: ProxyState
    url: str
    said: str
    started: float
    stack: ExitStack = field(repr=False)
    sent: list[Sent] = field(default_factory=list)
    closed: bool = False
    #: What the upstream is, for people (` (scenario quirks/...)` when the pair serves one).
    what: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _busy: int = 0

    @classmethod
    def open(cls, pair_id: str, upstream: str, host: str = "127.0.0.1", scenario: Scenario | None = None) -> Pair:
        """A proxy in front of `upstream`, listening on `host` (a free port). With a `scenario`, the upstream is that
        scenario served alone at the origin root of a server of its own (as `a2a-lab serve SCENARIO` serves it),
        stopped with the pair."""
        stack = ExitStack()
        try:
            if scenario is not None:
                served = stack.enter_context(BackgroundServer(ScenarioApp(scenario, seed=scenario.seed), host))
                upstream = served.url
            state, url, said = stack.enter_context(session.hosted(upstream, host=host, timeout=60.0))
        except BaseException:
            stack.close()
            raise
        what = f" (the scenario {scenario.id}, served here)" if scenario is not None else ""
        return cls(pair_id, upstream, state, url, said, time.monotonic(), stack, what=what)

    @property
    def target(self) -> str:
        """Where a client reaches the agent through the proxy: the proxy's origin and the upstream's path."""
        return self.url + urlsplit(self.upstream).path.rstrip("/")

    @property
    def card_url(self) -> str:
        """The card URL a client is pointed at: the proxy's."""
        return self.target + WELL_KNOWN_PATH

    @property
    def done(self) -> bool:
        return self.closed

    @property
    def busy(self) -> bool:
        return self._busy > 0

    def signature(self) -> tuple[Any, ...]:
        """Changes whenever there is more to show: an exchange, a byte of one, a message answered."""
        journal = self.state.journal
        return (len(journal.entries), journal.bytes, journal.dropped, self._busy, len(self.sent), self.closed)

    def judged(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Both sides' results now (client, server), and the journal they share."""
        found = verdict(self.state, self.started)
        results = [r.to_json() for r in found.results]
        return results, results[0].get("journal") or []

    def report(self) -> dict[str, Any]:
        """The session as a JSON report, as `a2a-lab proxy --json` writes it."""
        found = verdict(self.state, self.started)
        summary = scoring.summary(found.results, False)
        meta = {"client": f"a2a-lab ui: a live pair through the proxy to {self.upstream}", "proxy": found.meta}
        return json_report.build(found.results, summary, meta, checks=report_checks())

    def send(self, text: str, options: refclient.ClientOptions, asked: str) -> None:
        """Send `text` with the reference client through the proxy, in a thread of its own."""
        sent = Sent(text, asked)
        with self._lock:
            self.sent.append(sent)
            self._busy += 1

        def talk() -> None:
            try:
                result = refclient.run(self.target, text, options)
                sent.result, sent.said = result.to_json(), refclient.render_text(result)
            except Exception as exc:  # refclient.run reports every failure; this is a2a-lab's own
                sent.result = {"kind": "error", "error": {"message": f"{type(exc).__name__}: {exc}"}}
            finally:
                with self._lock:
                    self._busy -= 1

        threading.Thread(target=talk, name=f"a2a-lab ui talk {self.id}", daemon=True).start()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.stack.close()
