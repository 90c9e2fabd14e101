"""`a2a-lab fuzz`: it finds what no catalogue scenario serves, shrinks it, and writes a scenario file that
`a2a-lab run --scenario FILE` reproduces; the reference client survives it.

The fragile clients (clients/fragile_client.py) are the reference client plus one crash on one unusual answer. The
seeds are chosen so that each is found in a few cases (the strategies' own draws, deterministic per seed); the shrink
budgets are small, so that the suite stays fast.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, find, settings

from a2a_lab.harness import cli
from a2a_lab.harness.checks.survival import crash_of
from a2a_lab.harness.fuzz import command, search, strategies
from a2a_lab.harness.fuzz.oracles import Failure
from a2a_lab.server.catalogue import Catalogue
from a2a_lab.server.loader import load_file, parse

FRAGILE = Path(__file__).parent / "clients" / "fragile_client.py"


def fragile(defect: str) -> str:
    return " ".join(shlex.quote(a) for a in (sys.executable, str(FRAGILE), defect, "{card_url}"))


def fuzz(tmp_path: Path, client: str, *args: str) -> tuple[int, list[Path], dict[str, Any]]:
    report = tmp_path / "fuzz.json"
    out = tmp_path / "findings"
    code = cli.main(["fuzz", "--client", client, "--out", str(out), "--json", str(report), *args])
    files = sorted(out.glob("*.yaml")) if out.exists() else []
    return code, files, json.loads(report.read_text()) if report.exists() else {}


def run(tmp_path: Path, client: str, scenario: Path) -> dict[str, Any]:
    report = tmp_path / "run.json"
    cli.main(["run", "--client", client, "--scenario", str(scenario), "--json", str(report)])
    return dict(json.loads(report.read_text())["scenarios"][0])


def check_outcome(scenario: dict[str, Any], check_id: str) -> str:
    return str(next(c["outcome"] for c in scenario["checks"] if c["id"] == check_id))


#: (defect, fuzz arguments, what the shrunk scenario must still hold)
FINDS = [
    ("non-bmp-artifact-name", ["--seed", "SEED_NONBMP", "--budget", "40"], lambda d: "artifacts" in d["task"]),
    ("data-only-status", ["--seed", "SEED_DATAONLY", "--budget", "40"], lambda d: "task" in d),
    (
        "many-chunks",
        ["--seed", "SEED_CHUNKS", "--budget", "40", "--scenario", "streaming/v1-stream"],
        lambda d: any(len(a["parts"]) > 50 for a in d["task"]["artifacts"]),
    ),
    ("empty-status-parts", ["--seed", "0", "--budget", "20", "--invalid"], lambda d: 'parts": []' in json.dumps(d)),
]


@pytest.mark.parametrize(("defect", "args", "holds"), FINDS, ids=[f[0] for f in FINDS])
def test_fuzz_finds_a_crash_no_catalogue_scenario_serves_and_the_file_reproduces_it(
    tmp_path: Path, defect: str, args: list[str], holds: Any
) -> None:
    client = fragile(defect)
    # No catalogue scenario serves it: the fragile client passes the whole catalogue's answers of this kind.
    code, files, report = fuzz(tmp_path, client, "--shrink-runs", "25", *args)
    assert code == 1, report
    assert len(files) == 1, files
    data = yaml.safe_load(files[0].read_text(encoding="utf-8"))
    assert data["observed"]["where"] == "a2a-lab fuzz"
    assert data["checks"] == ["CLIENT-SURVIVES"]
    assert data["expect"] == {"survives": True}
    assert holds(data), data
    assert report["fuzz"]["findings"] == [str(files[0])]
    # `a2a-lab run --scenario FILE` reproduces it; the reference client passes the same file (the answer is the
    # client's problem, not the server's).
    scenario = run(tmp_path, client, files[0])
    assert check_outcome(scenario, "CLIENT-SURVIVES") == "FAIL", scenario
    assert scenario["outcome"] == "FAIL"
    assert run(tmp_path, "builtin", files[0])["outcome"] == "PASS"
