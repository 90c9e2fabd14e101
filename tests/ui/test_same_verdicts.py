"""The pages give the command line's verdicts for the same input and the same traffic: the card check's findings
for the same card, and a live run's verdicts, scenario by scenario and check by check, against `a2a-lab score` of
the very same run (the traffic of the tests' own client, with a defect)."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx

from .conftest import CARD_URL, Ui, fake_client, wait_for

#: A card a 0.3 habit left behind: a patched top-level version that differs from its interface's, on an IP literal
#: and a port other than 443.
MIXED_CARD = {
    "name": "Mixed",
    "description": "a 1.0 card with a 0.3 leftover",
    "version": "1.0.0",
    "protocolVersion": "0.3.0",
    "supportedInterfaces": [
        {"url": "http://10.0.0.7:8080/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ],
    "capabilities": {},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}],
}
_FINDING = re.compile(r"<tr class=finding><td class=level-(\w+)>.*?</td><td><code>(.*?)</code></td><td>(.*?)</td>")
_BLOCK = re.compile(r'-block"><summary><b>(.*?)</b> <span class="o"[^>]*>(\w+)</span>')
_CHECK = re.compile(r'<tr><td><code>([A-Z0-9-]+)</code></td><td>\w+</td><td><span class="o"[^>]*>(\w+)</span>')


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "a2a_lab.harness.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def test_the_card_page_finds_what_card_check_finds(ui: Ui, http: httpx.Client, tmp_path: Path) -> None:
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(MIXED_CARD), encoding="utf-8")
    for policy in ("strict", "lenient"):
        done = _cli("card", "check", str(path), "--json", "--policy", policy)
        cli = [(f["level"], f["path"] or "(card)", f["message"]) for f in json.loads(done.stdout)["findings"]]
        shown = ui.post(http, "/card", data={"card": path.read_text(), "policy": policy, "do": "paste"})
        page = [(lvl, html.unescape(p), html.unescape(m)) for lvl, p, m in _FINDING.findall(shown.text)]
        assert page == cli, policy
    assert any("protocolVersion" in p and "differs" in m for _, p, m in page)


def _verdicts(text: str) -> dict[str, tuple[str, dict[str, str]]]:
    """{scenario: (outcome, {check: outcome})} of every result block on a page."""
    out = {}
    parts = text.split("class=box")
    for part in parts:
        block = _BLOCK.search(part)
        if block:
            out[html.unescape(block.group(1))] = (block.group(2), dict(_CHECK.findall(part)))
    return out


def test_a_live_run_gets_the_verdicts_of_a2a_lab_score(ui: Ui, http: httpx.Client) -> None:
    chosen = ["spec/conformant", "quirks/advertised-method-not-found"]
    started = ui.post(http, "/live/start", data={"scenario": chosen, "seed": "3"})
    assert started.status_code == 303
    where = started.headers["location"]
    cards = CARD_URL.findall(http.get(where).text)
    assert len(cards) == 2
    for card in cards:
        subprocess.run(fake_client(card, "wrong-header"), capture_output=True, timeout=120, check=False)

    def both() -> dict[str, tuple[str, dict[str, str]]] | None:
        shown = _verdicts(http.get(where).text)
        return shown if len(shown) == 2 else None

    live = wait_for(both, what="both verdicts on the page")
    run = next(iter(ui.state.runs.values()))
    scored = _cli(
        "score",
        "--server",
        ui.state.lab.remote().url,
        "--run",
        run.run_id,
        *(a for sid in chosen for a in ("--scenario", sid)),
        "--json",
        "-",
        env={"A2A_LAB_RUN_TOKEN": run.shared.run.token},
    )
    assert scored.returncode in (0, 1), scored.stderr
    cli = {
        s["id"]: (s["outcome"], {c["id"]: c["outcome"] for c in s["checks"]})
        for s in json.loads(scored.stdout)["scenarios"]
    }
    assert live == cli
    assert ui.post(http, f"{where}/finish").status_code == 303
    final = _verdicts(http.get(where).text)
    assert final == cli
    assert cli["spec/conformant"][1]["VERSION-MATCHES-METHOD"] == "FAIL"  # the client's defect, on the page too
    assert (run.folder / "report.json").is_file() and (run.folder / "index.html").is_file()
