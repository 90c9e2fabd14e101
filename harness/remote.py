"""Talking to a long-lived `a2a-lab serve` through its admin API: start a run, read journals and cards."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx

from a2a_lab.server.shared import RUNS_PREFIX

from .command_line import ADMIN_TOKEN_ENV, admin_token


class RemoteError(RuntimeError):
    pass


@dataclass
class RemoteServer:
    url: str
    token: str | None = None

    def __post_init__(self) -> None:
        self.url = self.url.rstrip("/")
        self.token = admin_token(self.token)

    def _call(self, method: str, path: str, **kw: Any) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            with httpx.Client(timeout=30, trust_env=False) as http:
                r = http.request(method, f"{self.url}/_lab{path}", headers=headers, **kw)
        except httpx.HTTPError as exc:
            raise RemoteError(f"cannot reach the a2a-lab server at {self.url}: {type(exc).__name__}: {exc}") from None
        if r.status_code == 403:
            raise RemoteError(f"{self.url}: the admin API refused us; pass --admin-token or set {ADMIN_TOKEN_ENV}")
        if r.status_code >= 400:
            raise RemoteError(f"{self.url}/_lab{path}: HTTP {r.status_code}: {r.text[:300]}")
        try:
            return r.json()
        except ValueError:
            raise RemoteError(f"{self.url}/_lab{path}: not an a2a-lab admin API (the answer is not JSON)") from None

    def start_run(self, seed: int) -> dict[str, Any]:
        return self._call("POST", "/runs", content=json.dumps({"seed": seed}))

    def run_info(self, run_id: str) -> dict[str, Any]:
        return self._call("GET", f"/runs/{run_id}")

    def journal(self, run_id: str, scenario_id: str) -> dict[str, Any]:
        return self._call("GET", f"/runs/{run_id}/journal", params={"scenario": scenario_id})

    def facts(self, run_id: str, scenario_id: str) -> dict[str, Any]:
        return self._call("GET", f"/runs/{run_id}/scenario", params={"scenario": scenario_id})

    def base_url(self, run_id: str, scenario_id: str) -> str:
        return f"{self.url}{RUNS_PREFIX}/{run_id}/{scenario_id}"
