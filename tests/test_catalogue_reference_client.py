"""The catalogue's promise: the reference client passes every scenario, and the suite shows each can fail a client.

One real run of `a2a-lab run` (the README's main job) over the whole catalogue, the way a user runs it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from a2a_lab.server.catalogue import Catalogue


def test_reference_client_passes_the_whole_catalogue(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    run = subprocess.run(
        [sys.executable, "-m", "a2a_lab.harness.cli", "run", "-j", "2", "--json", str(report)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    data = json.loads(report.read_text())
    ids = {s["id"] for s in data["scenarios"]}
    assert ids == set(Catalogue.load().ids())
    assert len(ids) >= 45
    assert {s["outcome"] for s in data["scenarios"]} == {"PASS"}
    levels = data["summary"]["levels"]
    assert levels["MUST"]["passed"] == levels["MUST"]["judged"] > 0
    groups = {s["group"] for s in data["scenarios"]}
    assert {"discovery", "responses", "errors", "faults", "streaming", "push", "auth"} <= groups
