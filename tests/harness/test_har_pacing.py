"""`a2a-lab record --from-har` paces a replay as the capture was paced: an answer after its HAR `timings.wait`, a
stream's `timings.receive` spread evenly over its events (HAR keeps no time per event, and the scenario's
`observed:` note says so), absurd timings capped and named."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import yaml

from a2a_lab.contract.loader import load_file
from a2a_lab.harness.cli import main
from a2a_lab.harness.proxy.har import MAX_WAIT_MS
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

from .test_proxy import _har_entry, _send


def _captured(base: str) -> list[dict[str, Any]]:
    """A card fetch, a SendMessage, a stream and a second SendMessage, as HAR entries (no timings yet)."""
    with httpx.Client(headers={"A2A-Version": "1.0"}) as http:
        answers = [
            http.get(f"{base}/.well-known/agent-card.json"),
            http.post(f"{base}/a2a/jsonrpc", json=_send("paced")),
            http.post(f"{base}/a2a/jsonrpc", json=_send("streamed", "SendStreamingMessage", 2)),
            http.post(f"{base}/a2a/jsonrpc", json=_send("after a pause", rid=3)),
        ]
    return [_har_entry(r) for r in answers]


def test_a_har_capture_replays_with_the_timings_it_recorded(serve: Any, tmp_path: Path) -> None:
    served = serve("spec/conformant")
    entries = _captured(served.url)
    entries[1]["timings"] = {"send": 1, "wait": 300, "receive": 4}
    entries[2]["timings"] = {"wait": 40, "receive": 600}
    entries[3]["timings"] = {"wait": 3_600_000, "receive": -1}  # an hour: a debugger pause, not the server
    entries[3]["startedDateTime"] = "2026-12-01T00:00:05.000Z"
    har, out = tmp_path / "paced.har", tmp_path / "paced.yaml"
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}), encoding="utf-8")
    assert main(["record", "--from-har", str(har), "--out", str(out)]) == 0
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    sends = data["behaviour"]["SendMessage"]
    assert [r["reply"].get("delay_ms") for r in sends] == [300, MAX_WAIT_MS]  # the wait, and the hour capped
    stream = data["behaviour"]["SendStreamingMessage"][0]["reply"]
    delays = [e["delay_ms"] for e in stream["raw"]["events"]]
    assert stream["delay_ms"] == 40 and len(delays) >= 2 and delays[0] == 0  # the first event with the first byte
    assert abs(sum(delays) - 600) <= len(delays) and max(delays) - min(delays[1:]) <= 1  # receive, spread evenly
    note = data["observed"]["note"]
    assert "no per-event times" in note and "spread evenly" in note
    assert "capped" in note and "log.entries[3].timings.wait 3600000 ms" in note
    with BackgroundServer(ScenarioApp(load_file(out))) as replay:
        began = time.monotonic()
        again = httpx.post(f"{replay.url}/a2a/jsonrpc", json=_send("anything"), headers={"A2A-Version": "1.0"})
        waited = time.monotonic() - began
    assert again.status_code == 200 and waited >= 0.3  # paced like the captured answer


def test_a_har_without_timings_replays_at_once_and_says_so(serve: Any, tmp_path: Path) -> None:
    served = serve("spec/conformant")
    har, out = tmp_path / "unpaced.har", tmp_path / "unpaced.yaml"
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": _captured(served.url)}}), encoding="utf-8")
    assert main(["record", "--from-har", str(har), "--out", str(out)]) == 0
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert all("delay_ms" not in r["reply"] for rules in data["behaviour"].values() for r in rules)
    assert "recorded no timings" in data["observed"]["note"]
