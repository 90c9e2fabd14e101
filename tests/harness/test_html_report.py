"""The HTML report: self-contained, and rendered by a real headless browser (Debian's chromium)."""

from __future__ import annotations

import copy
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.harness.cli import main, merge
from a2a_lab.harness.reports import html
from a2a_lab.harness.reports.files import ReportFiles
from a2a_lab.harness.reports.html_scenario import CHECKS_DOC

DOCS = Path(__file__).resolve().parents[2] / "docs"

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or ""
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """Two clients: the reference client and one that sends no A2A-Version (a MUST), each run as two shards."""
    out = tmp_path_factory.mktemp("reports")
    fake = Path(__file__).parent / "clients" / "fake_client.py"
    paths = []
    for name, client in (("builtin", "builtin"), ("bad", f"{sys.executable} {fake} --defect no-header")):
        for k in (1, 2):
            path = out / f"{name}-{k}.json"
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "a2a_lab.harness.cli",
                    "run",
                    "--client",
                    client,
                    "--shard",
                    f"{k}/2",
                    "-j",
                    "2",
                    "--scenario",
                    "spec/*",
                    "--scenario",
                    "quirks/*",
                    "--json",
                    str(path),
                ],
                capture_output=True,
                timeout=300,
            )
            paths.append(path)
    return merge.merge([json.loads(p.read_text()) for p in paths], names=["reference", "no-header"])


def test_merge_joins_shards_per_client(reports: list[dict]) -> None:
    assert len(reports) == 2
    for report in reports:
        assert report["merged_from"] == 2
        ids = [s["id"] for s in report["scenarios"]]
        assert len(ids) == len(set(ids)) >= 6
    bad = next(r for r in reports if "no-header" in r["client"])
    mixed = next(s for s in bad["scenarios"] if s["id"] == "quirks/mixed-version-direct-message")
    assert mixed["outcome"] == "FAIL" and bad["summary"]["gate"] == "failed"


def _ids(page: str) -> list[str]:
    return re.findall(r'\bid="([^"]+)"', page)


def _section(page: str, anchor: str) -> str:
    """The page from the h2 with that id to the next h2."""
    start = page.index(f'<h2 id="{anchor}">')
    end = page.find("<h2 ", start + 1)
    return page[start : end if end > 0 else None]


def test_page_is_self_contained(reports: list[dict]) -> None:
    page = html.build(reports)
    assert "<script" not in page.lower()
    assert not re.search(r"<[a-z]+\b[^>]*\ssrc=", page), "nothing may be fetched at view time"
    assert all(tag == "a" for tag in re.findall(r"<([a-z]+)\b[^>]*\shref=", page)), "only links to follow"
    assert not re.search(r"<(img|link|iframe|object)\b", page) and "@import" not in page
    assert not re.findall(r"url\((?!#ah-)", page), "the only url() are the diagrams' own markers"
    assert page.count("<svg") >= 12  # a sequence diagram per scenario and client
    ids = _ids(page)
    assert len(ids) == len(set(ids)), [i for i in set(ids) if ids.count(i) > 1][:5]
    assert ids.count("ah") == 0 and len([i for i in ids if i.startswith("ah-")]) == page.count("<svg")
    # Every link inside the page lands somewhere: matrix cells, evidence, check ids, failures, changes.
    missing = {h for h in re.findall(r'href="#([^"]+)"', page)} - set(ids)
    assert not missing, sorted(missing)[:5]


def test_summary_comes_first_with_counts_per_group_then_failures(reports: list[dict]) -> None:
    page = html.build(reports)
    order = [page.index(f'<h2 id="{a}">') for a in ("summary", "failures", "changes", "checks", "matrix", "scenarios")]
    assert order == sorted(order)
    summary = _section(page, "summary")
    assert "<b>reference</b>" in summary and "<b>no-header</b>" in summary and "client 1" not in page
    bad = next(r for r in reports if r.get("name") == "no-header")
    fails = sum(1 for s in bad["scenarios"] if s["outcome"] == "FAIL")
    assert f"FAIL {fails}</span>" in summary
    quirks = re.search(r"<tr><td>quirks</td><td>(.*?)</td><td>(.*?)</td></tr>", summary)
    assert quirks and "FAIL" not in quirks.group(1) and "FAIL" in quirks.group(2)
    failures = _section(page, "failures")
    assert f"Failures ({fails})" in failures and "reference</small>" not in failures
    mixed = failures[failures.index("quirks/mixed-version-direct-message") :]
    # The requirement text, expected / actual, a link to the cited request and the request pretty-printed.
    assert "Clients MUST send A2A-Version on every request" in mixed
    assert "<b>expected:</b> <code>A2A-Version: 1.0</code>" in mixed and "<b>actual:</b>" in mixed
    assert re.search(r'evidence:</b> request <a href="#c1-quirks-mixed-version-direct-message-e\d+">#\d+</a>', mixed)
    assert "\n  &quot;jsonrpc&quot;: &quot;2.0&quot;,\n" in mixed


def test_the_per_check_view_lists_where_a_check_missed(reports: list[dict]) -> None:
    checks = _section(html.build(reports), "checks")
    row = re.search(r'<tr id="check-VERSION-HEADER">(.*?)</tr>', checks)
    assert row, "one row per check"
    bad = next(r for r in reports if r.get("name") == "no-header")
    missed = sorted(
        s["id"] for s in bad["scenarios"] for c in s["checks"] if c["id"] == "VERSION-HEADER" and c["outcome"] == "FAIL"
    )
    assert missed and sorted(re.findall(r'<a href="#c1-[^"]+">([^<]+)</a> \(no-header\)', row.group(1))) == missed
    assert "#c0-" not in row.group(1)  # the reference client never missed it
    assert f'href="{CHECKS_DOC}"' in row.group(1)
    assert 'href="https://a2a-protocol.org/latest/specification/#361-client-responsibilities">§3.6.1' in row.group(1)


def test_changes_against_a_previous_report_and_the_baseline(reports: list[dict]) -> None:
    reference, bad = reports
    worse = _section(html.build([bad], previous=[reference]), "changes")
    assert re.search(r"<b>(\d+) worse</b>", worse) and "<b>0 better</b>" in worse
    assert re.search(r"check-VERSION-HEADER.*?PASS</span> → <span[^>]*>FAIL", worse)
    better = _section(html.build([reference], previous=[bad]), "changes")
    assert "<b>0 worse</b>" in better and re.search(r"check-VERSION-HEADER.*?FAIL</span> → <span[^>]*>PASS", better)
    assert "Nothing to compare with" in _section(html.build([reference]), "changes")
    known = copy.deepcopy(bad)
    for scenario in known["scenarios"]:
        for check in scenario["checks"]:
            if check["id"] == "VERSION-HEADER" and check["outcome"] == "FAIL":
                check["baseline"] = "no header yet (#12)"
    known["scenarios"][0]["error"] = (
        "x TENANT: listed as an expected failure (y) but it now PASS; remove it from the baseline"
    )
    page = html.build([known])
    against = _section(page, "changes")
    assert "Against the baseline" in against and "no header yet (#12)" in against and "now pass: remove" in against
    failures = _section(page, "failures")
    # expected failures are not listed as failures (a symptom of one may still name it as its cause)
    assert "<code>VERSION-HEADER</code></a> [" not in failures and "VERSION-HEADER [MUST]" not in failures
    assert re.sub(r"follows from <a [^>]*><code>VERSION-HEADER</code></a>", "", failures).count("VERSION-HEADER") == 0


def test_merge_names_clients_and_refuses_more_names_than_clients(reports: list[dict], tmp_path: Path) -> None:
    page = html.build(reports)
    assert re.search(r'<th title="[^"]*fake_client.py --defect no-header">no-header</th>', page)
    with pytest.raises(ValueError, match="3 --name given for 2 client"):
        merge.merge(reports, names=["a", "b", "c"])


def test_report_files_pass_the_previous_report_to_the_page(reports: list[dict], tmp_path: Path) -> None:
    """What `run --compare OLD.json --html DIR` (and --report-dir) write."""
    reference, bad = reports
    ReportFiles(html=tmp_path / "h", folder=tmp_path / "d", previous=[reference]).write(bad, [], False)
    for page in (tmp_path / "h" / "index.html", tmp_path / "d" / "index.html"):
        assert "Against the previous report" in _section(page.read_text(encoding="utf-8"), "changes")


def test_compare_refuses_a_file_that_is_no_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x.json").write_text("{}", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["report", "merge", str(tmp_path / "x.json"), "--compare", str(tmp_path / "x.json")])
    assert exc.value.code == 2
    assert "--compare: " + str(tmp_path / "x.json") + ": not an a2a-lab JSON report" in capsys.readouterr().err


def test_sequence_diagram_labels_never_overlap(reports: list[dict]) -> None:
    for svg in re.findall(r"<svg.*?</svg>", html.build(reports)):
        ys = sorted(float(y) for y in re.findall(r'<text x="[\d.]+" y="([\d.]+)"', svg)[2:])  # after the names
        gaps = [b - a for a, b in itertools.pairwise(ys)]
        assert all(gap >= 12 for gap in gaps), gaps  # a label is at most 11 px high


def test_a_probe_report_is_worded_for_a_server(serve: Any, tmp_path: Path) -> None:
    served = serve("quirks/advertised-method-not-found")
    assert main(["probe", served.url, "--json", str(tmp_path / "p.json"), "--html", str(tmp_path / "h")]) == 1
    page = (tmp_path / "h" / "index.html").read_text(encoding="utf-8")
    assert "<h1>a2a-lab probe report</h1>" in page and "conformance report" not in page
    assert "<th>server</th>" in page and '<h2 id="scenarios">Interfaces</h2>' in page
    assert ">a2a-lab probe</text>" in page and ">server under test</text>" in page and ">a2a-lab server<" not in page
    assert html.PROBE_DOC in page and CHECKS_DOC not in page


@pytest.mark.skipif(not CHROMIUM, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_chromium_renders_the_summary_and_a_failure(reports: list[dict], tmp_path: Path) -> None:
    """Rendered by a real browser. A2A_LAB_UPDATE_SCREENSHOT=1 keeps the picture as docs/report.png."""
    page = html.write(tmp_path / "html", reports)
    dom = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    rendered = dom.stdout
    assert '<h2 id="summary">Summary</h2>' in rendered and '<div class="fail">' in rendered
    assert rendered.index('id="summary"') < rendered.index('class="fail"') < rendered.index('id="matrix"')
    assert "quirks/mixed-version-direct-message" in rendered
    assert rendered.count('class="o"') > 50
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={tmp_path / 'profile2'}",
            "--hide-scrollbars",
            "--window-size=1100,860",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
    )
    assert shot.stat().st_size > 10_000  # a real picture, not a blank page
    if os.environ.get("A2A_LAB_UPDATE_SCREENSHOT"):
        shutil.copyfile(shot, DOCS / "report.png")


def test_a_pass_that_became_unimplemented_is_worse_not_better() -> None:
    """Between runs, a scenario or check that PASSed and is now UNIMPLEMENTED (or SKIPPED) lost its evidence: worse;
    the other way is better; a miss is worse than both."""
    from a2a_lab.harness.reports.compare import Change

    assert Change("s", None, "PASS", "UNIMPLEMENTED").worse and Change("s", "C", "PASS", "SKIPPED").worse
    assert not Change("s", None, "UNIMPLEMENTED", "PASS").worse
    assert Change("s", None, "UNIMPLEMENTED", "NON_STRICT").worse and not Change("s", None, "FAIL", "PASS").worse
