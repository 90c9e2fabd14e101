"""`a2a-lab run` end to end, as CI runs it: a subprocess, its exit code, its console and its report files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.harness.client_judging.checks import client_checks

GOOD_SCENARIOS = ["spec/conformant", "quirks/mixed-version-direct-message", "spec/task/submitted-needs-get-task"]
SUPPORTS = "jsonrpc@1.0,jsonrpc@0.3"
CASE_NAME = re.compile(r"^[A-Z][A-Z0-9-]+ \[(MUST|SHOULD|MAY|INFO)\]$")


def a2a_lab_run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "a2a_lab.harness.cli", "run", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _scenario_args(ids: list[str]) -> list[str]:
    return [a for sid in ids for a in ("--scenario", sid)]


@pytest.fixture(scope="module")
def good_run(tmp_path_factory: pytest.TempPathFactory, fake: Callable[..., str]) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("good-run")
    proc = a2a_lab_run(
        "--client",
        fake(),
        *_scenario_args(GOOD_SCENARIOS),
        "-j",
        "2",
        "--client-supports",
        SUPPORTS,
        "--seed",
        "3",
        "--json",
        str(out / "run.json"),
        "--junit",
        str(out / "run.xml"),
        "--report-dir",
        str(out / "reports"),
        cwd=out,
    )
    return {"proc": proc, "dir": out}


@pytest.fixture(scope="module")
def bad_run(tmp_path_factory: pytest.TempPathFactory, fake: Callable[..., str]) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("bad-run")
    proc = a2a_lab_run(
        "--client",
        fake("--defect", "no-header"),
        *_scenario_args(GOOD_SCENARIOS[:2]),
        "-j",
        "2",
        "--client-supports",
        SUPPORTS,
        "--json",
        str(out / "run.json"),
        "--junit",
        str(out / "run.xml"),
        cwd=out,
    )
    return {"proc": proc, "dir": out}


def test_a_correct_client_passes_the_gate(good_run: dict[str, Any]) -> None:
    proc = good_run["proc"]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verdict: conformant" in proc.stdout
    for sid in GOOD_SCENARIOS:
        assert re.search(rf"^{re.escape(sid)}\s+PASS", proc.stdout, re.M), proc.stdout
        assert sid in proc.stderr  # the live progress lines


def test_the_json_report_has_the_summary_the_checks_and_the_journal(good_run: dict[str, Any]) -> None:
    report = json.loads((good_run["dir"] / "run.json").read_text(encoding="utf-8"))
    assert (
        report["summary"]["gate"] == "passed" and report["summary"]["scenarios"] == 3 and report["summary"]["PASS"] == 3
    )
    assert report["seed"] == 3 and report["supports"] == ["JSONRPC@0.3", "JSONRPC@1.0"]
    # `started` is when the run began (to the millisecond): the report was written at least wall_time after it.
    written = (good_run["dir"] / "run.json").stat().st_mtime
    began = datetime.fromisoformat(report["started"]).timestamp()
    assert written - began >= report["wall_time"] - 0.01, (report["started"], report["wall_time"], written)
    assert [c["id"] for c in report["checks"]] == [c.id for c in client_checks()]
    assert sorted(s["id"] for s in report["scenarios"]) == sorted(GOOD_SCENARIOS)
    for scenario in report["scenarios"]:
        assert scenario["outcome"] == "PASS" and scenario["seed"] == 3
        assert [c["id"] for c in scenario["checks"]] == [c.id for c in client_checks()]
        for check in scenario["checks"]:
            assert {"id", "level", "outcome", "message"} <= check.keys()
            assert check["outcome"] in ("PASS", "SKIPPED", "INFORMATIONAL")
        kinds = [e["kind"] for e in scenario["journal"]]
        assert kinds[0] == "card" and "jsonrpc" in kinds
        assert scenario["client"]["exit_code"] == 0


def test_junit_has_one_suite_per_group_and_a_case_per_check(good_run: dict[str, Any]) -> None:
    root = ET.parse(good_run["dir"] / "run.xml").getroot()
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert set(suites) == {"spec", "quirks"}
    cases = [c for s in suites.values() for c in s.findall("testcase")]
    report = json.loads((good_run["dir"] / "run.json").read_text(encoding="utf-8"))
    judged = [(s["id"], c["id"]) for s in report["scenarios"] for c in s["checks"] if c["outcome"] != "SKIPPED"]
    # A SKIPPED check (its situation never arose) is left out: it is noise in every CI view.
    assert 0 < len(judged) < len(GOOD_SCENARIOS) * len(client_checks())
    assert sorted((c.get("classname"), c.get("name", "").split(" ")[0]) for c in cases) == sorted(judged)
    assert not [c for c in cases if (s := c.find("skipped")) is not None and "SKIPPED" in s.get("message", "")]
    assert all(CASE_NAME.match(c.get("name", "")) for c in cases), [
        c.get("name") for c in cases if not CASE_NAME.match(c.get("name", ""))
    ]
    assert {c.get("classname") for c in suites["spec"].findall("testcase")} == {
        "spec/conformant",
        "spec/task/submitted-needs-get-task",
    }
    assert not root.findall(".//failure") and not root.findall(".//error")
    for suite in suites.values():
        assert int(suite.get("tests", "0")) == len(suite.findall("testcase")) and suite.get("failures") == "0"


def test_junit_lists_skipped_checks_when_asked(good_run: dict[str, Any], tmp_path: Path) -> None:
    target = tmp_path / "all.xml"
    merge = ["report", "merge", str(good_run["dir"] / "run.json"), "--junit", str(target), "--junit-skipped"]
    proc = subprocess.run(
        [sys.executable, "-m", "a2a_lab.harness.cli", *merge],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    cases = ET.parse(target).getroot().findall(".//testcase")
    assert len(cases) == len(GOOD_SCENARIOS) * len(client_checks())
    skipped = [c.find("skipped") for c in cases if c.find("skipped") is not None]
    assert any(s is not None and s.get("message", "").startswith("SKIPPED:") for s in skipped)


def test_the_report_dir_holds_every_format_and_each_journal(good_run: dict[str, Any]) -> None:
    folder = good_run["dir"] / "reports"
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    ET.parse(folder / "junit.xml")
    for scenario in report["scenarios"]:
        path = folder / "journals" / f"{scenario['id']}.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines()
        assert [json.loads(line) for line in lines] == scenario["journal"]


def test_a_defective_client_fails_the_gate_and_names_the_check(bad_run: dict[str, Any]) -> None:
    proc = bad_run["proc"]
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "VERSION-HEADER" in proc.stdout and "header absent" in proc.stdout
    assert "not conformant" in proc.stdout
    # A missed check reads once, however many scenarios it missed in: the check, the rule a correct client follows,
    # its spec section, the scenarios, then the first one's finding: expected / actual, the request it quotes, the
    # fix and the command that tells that scenario's story.
    block = proc.stdout[proc.stdout.index("- VERSION-HEADER [MUST] FAIL in 2 scenarios\n") :].split("\n")
    lines = [
        line.strip()
        for line in block[
            : next(i for i, x in enumerate(block[1:], 1) if x.strip().startswith("- ") or not x.startswith(" "))
        ]
    ]
    assert lines[1].startswith("rule: A 1.0 client sends `A2A-Version` with the interface's"), lines
    assert proc.stdout.count("rule: A 1.0 client sends `A2A-Version`") == 1, proc.stdout
    assert any(line.startswith("fix: Send `A2A-Version: 1.0`") for line in lines), lines
    assert any(line.startswith("more: a2a-lab scenarios show ") for line in lines), lines
    [listed] = [line for line in lines if line.startswith("scenarios: ")]
    assert sorted(listed.removeprefix("scenarios: ").split(", ")) == sorted(GOOD_SCENARIOS[:2]), lines
    assert any(line.startswith("spec: A2A 1.0 §3.6") for line in lines), lines
    assert any(re.fullmatch(r"first, in \S+: .+", line) for line in lines), lines
    at = lines.index("expected: A2A-Version: 1.0")
    assert lines[at + 1] == "actual:   header absent", lines
    assert re.fullmatch(r"request #\d+:", lines[at + 2]) and lines[at + 3].startswith("POST /"), lines
    fix = next(i for i, line in enumerate(lines) if line.startswith("fix: "))
    assert lines[fix - 1].startswith('{"jsonrpc": "2.0"'), lines  # the quoted request, then the fix and the story
    assert lines[-1].startswith("more: a2a-lab scenarios show "), lines
    report = json.loads((bad_run["dir"] / "run.json").read_text(encoding="utf-8"))
    assert report["summary"]["gate"] == "failed"
    root = ET.parse(bad_run["dir"] / "run.xml").getroot()
    failed = {c.get("name") for c in root.iter("testcase") if c.find("failure") is not None}
    assert "VERSION-HEADER [MUST]" in failed


@pytest.mark.parametrize(
    "args, says",
    [
        (["--client", "no-such-preset-or-program"], "neither a preset"),
        (["--client-supports", "carrier-pigeon@1.0"], "carrier-pigeon"),
        (["--scenario", "no/such/scenario*"], "no scenario matches"),
        (["--baseline", "{broken}"], "expected a mapping"),
        (["--baseline", "{missing}"], "cannot read the baseline"),
        (["--jobs", "0"], "--jobs"),
    ],
    ids=[
        "unknown-client",
        "bad-client-supports",
        "no-matching-scenario",
        "broken-baseline",
        "missing-baseline",
        "zero-jobs",
    ],
)
def test_usage_errors_exit_2(args: list[str], says: str, tmp_path: Path, fake: Callable[..., str]) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("- just\n- a list\n", encoding="utf-8")
    args = [a.replace("{broken}", str(broken)).replace("{missing}", str(tmp_path / "missing.yaml")) for a in args]
    base = ["--scenario", "spec/conformant"] if "--scenario" not in args else []
    client = [] if "--client" in args else ["--client", fake()]
    proc = a2a_lab_run(*client, *base, *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert says in proc.stderr


def test_a_baseline_accepts_known_failures_and_reports_entries_that_now_pass(
    tmp_path: Path, fake: Callable[..., str]
) -> None:
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text(
        "spec/conformant:\n  VERSION-HEADER: issue 12, no A2A-Version yet\n  VERSION-MATCHES-METHOD: issue 12\n"
        "  CARD-DISCOVERY: fixed in 2.0\n",
        encoding="utf-8",
    )
    proc = a2a_lab_run(
        "--client",
        fake("--defect", "no-header"),
        "--scenario",
        "spec/conformant",
        "--client-supports",
        SUPPORTS,
        "--baseline",
        str(baseline),
        "--json",
        str(tmp_path / "run.json"),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "CARD-DISCOVERY: listed as an expected failure (fixed in 2.0) but it now PASS" in proc.stdout
    assert "expected failure(s) from the baseline" in proc.stdout
    [scenario] = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))["scenarios"]
    checks = {c["id"]: c for c in scenario["checks"]}
    assert (
        checks["VERSION-HEADER"]["outcome"] == "FAIL"
        and checks["VERSION-HEADER"]["baseline"] == "issue 12, no A2A-Version yet"
    )
    assert checks["CARD-DISCOVERY"]["baseline"] is None and "now PASS" in scenario["error"]


@pytest.mark.parametrize("strict, code", [(False, 0), (True, 1)], ids=["lenient", "strict"])
def test_strict_gates_on_a_missed_should(strict: bool, code: int, tmp_path: Path, fake: Callable[..., str]) -> None:
    proc = a2a_lab_run(
        "--client",
        fake("--defect", "patch-header"),
        "--scenario",
        "spec/conformant",
        "--client-supports",
        SUPPORTS,
        *(["--strict"] if strict else []),
        cwd=tmp_path,
    )
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert "VERSION-HEADER (NON_STRICT)" in proc.stdout


def test_run_without_the_grpc_extra_skips_the_grpc_scenarios_and_says_why(tmp_path: Path) -> None:
    """Without grpcio every command still works: `run` leaves the gRPC scenarios out, names them and the fix."""
    report = tmp_path / "report.json"
    blocked = (
        "import sys; sys.modules['grpc'] = None; from a2a_lab.harness.cli import main; "
        f"sys.exit(main(['run', '--client', 'true', '--scenario', 'grpc/*', '--scenario', 'discovery/no-card', "
        f"'--json', {str(report)!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, timeout=120)
    assert "skipped 9 gRPC scenario(s) (grpc/conformant" in done.stderr, done.stderr
    assert "pip install 'a2a-lab[grpc]'" in done.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [s["id"] for s in data["scenarios"]] == ["discovery/no-card"]
    assert "grpc/stream-reset" in data["skipped"]["scenarios"] and "grpc extra" in data["skipped"]["why"]
    only = subprocess.run(
        [sys.executable, "-c", blocked.replace(", '--scenario', 'discovery/no-card'", "")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert only.returncode == 2 and "every scenario chosen serves gRPC" in only.stderr


def test_progress_lines_carry_each_scenarios_outcome(good_run: dict[str, Any], bad_run: dict[str, Any]) -> None:
    """`[1/3] PASS  spec/conformant (0.9s)`: the outcome the scorecard then gives (supports declared), on stderr."""
    for run, outcome in ((good_run, "PASS"), (bad_run, "FAIL")):
        proc = run["proc"]
        progress = re.findall(r"^\[\d+/\d+\] (\S+) +(\S+) \(", proc.stderr, re.M)
        assert progress and {o for o, _ in progress} == {outcome}, proc.stderr
        for _, sid in progress:
            assert re.search(rf"^{re.escape(sid)}\s+{outcome}\b", proc.stdout, re.M), proc.stdout


def test_quiet_prints_the_verdict_alone_and_writes_the_reports(tmp_path: Path, fake: Callable[..., str]) -> None:
    proc = a2a_lab_run(
        "--client",
        fake("--defect", "no-header"),
        *_scenario_args(GOOD_SCENARIOS[:1]),
        "--client-supports",
        SUPPORTS,
        "-q",
        "--json",
        str(tmp_path / "run.json"),
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == ["verdict: not conformant: 2 MUST check(s) failed"] and not proc.stderr
    assert json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))["summary"]["gate"] == "failed"
