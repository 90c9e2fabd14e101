"""Talking to a long-lived `a2a-lab serve` through its admin API: start a run, read journals and cards.

The server's admin token starts runs; each run answers only to its own token, which the answer that started it
carries (RemoteRun). A run file keeps both the id and the token, for `a2a-lab score --run-file` (run_file.py: with
what was driven).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx

from a2a_lab.contract.lab_api import RUNS_PREFIX, credentials
from a2a_lab.harness.common.secrecy import ADMIN_TOKEN_ENV, admin_token
from a2a_lab.protocol.exceptions import LabError


class RemoteError(LabError, RuntimeError):
    pass


@dataclass
class RemoteServer:
    url: str
    token: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.url = self.url.rstrip("/")
        self.token = admin_token(self.token)

    def call(self, method: str, path: str, token: str | None, hint: str, **kw: Any) -> dict[str, Any]:
        """One admin request presenting `token`; RemoteError (with the server's reason and `hint`) unless 2xx."""
        headers = credentials(token) if token else {}
        if method == "POST":
            headers["Content-Type"] = "application/json"
        try:
            with httpx.Client(timeout=30, trust_env=False) as http:
                r = http.request(method, f"{self.url}/_lab{path}", headers=headers, **kw)
        except httpx.HTTPError as exc:
            raise RemoteError(f"cannot reach the a2a-lab server at {self.url}: {type(exc).__name__}: {exc}") from None
        if r.status_code >= 400:
            try:
                reason = str(r.json().get("error", ""))
            except (ValueError, AttributeError):
                reason = r.text[:300]
            advice = f"; {hint}" if r.status_code in (401, 403) else ""
            raise RemoteError(f"{self.url}/_lab{path}: HTTP {r.status_code}: {reason}{advice}")
        try:
            answer: dict[str, Any] = r.json()  # the admin API answers objects
            return answer
        except ValueError:
            raise RemoteError(f"{self.url}/_lab{path}: not an a2a-lab admin API (the answer is not JSON)") from None

    def start_run(self, seed: int) -> RemoteRun:
        hint = f"pass the server's admin token in {ADMIN_TOKEN_ENV}, --admin-token-file or --admin-token"
        started = self.call("POST", "/runs", self.token, hint, content=json.dumps({"seed": seed}))
        return RemoteRun(self, started["run"], started["token"], started)

    def base_url(self, run_id: str, scenario_id: str) -> str:
        return f"{self.url}{RUNS_PREFIX}/{run_id}/{scenario_id}"


@dataclass
class RemoteRun:
    """One run of a shared server, and the token that opens its admin paths."""

    server: RemoteServer
    id: str
    token: str = field(repr=False)
    #: What POST /_lab/runs answered (empty for a run opened from its id and token).
    started: dict[str, Any] = field(default_factory=dict, repr=False)

    HINT = "pass the run's token with --run-token, or the --run-file `a2a-lab drive` wrote"

    def _call(self, method: str, what: str = "", **kw: Any) -> dict[str, Any]:
        return self.server.call(method, f"/runs/{self.id}{what}", self.token, self.HINT, **kw)

    def info(self) -> dict[str, Any]:
        return self._call("GET")

    def journal(self, scenario_id: str) -> dict[str, Any]:
        return self._call("GET", "/journal", params={"scenario": scenario_id})

    def facts(self, scenario_id: str) -> dict[str, Any]:
        return self._call("GET", "/scenario", params={"scenario": scenario_id})

    def reset(self, scenario_id: str) -> dict[str, Any]:
        return self._call("POST", "/reset", params={"scenario": scenario_id})

    def end(self) -> dict[str, Any]:
        """Delete the run on the server (its journals go; its slot is free at once)."""
        return self._call("DELETE")

    def base_url(self, scenario_id: str) -> str:
        return self.server.base_url(self.id, scenario_id)
