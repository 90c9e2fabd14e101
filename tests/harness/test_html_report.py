"""The HTML report: self-contained, and rendered by a real headless browser (Debian's chromium)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from a2a_lab.harness import merge_command
from a2a_lab.harness.reports import html

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
    return merge_command.merge([json.loads(p.read_text()) for p in paths])


def test_merge_joins_shards_per_client(reports: list[dict]) -> None:
    assert len(reports) == 2
    for report in reports:
        assert report["merged_from"] == 2
        ids = [s["id"] for s in report["scenarios"]]
        assert len(ids) == len(set(ids)) >= 6
    bad = next(r for r in reports if "no-header" in r["client"])
    mixed = next(s for s in bad["scenarios"] if s["id"] == "quirks/mixed-version-direct-message")
    assert mixed["outcome"] == "FAIL" and bad["summary"]["gate"] == "failed"


def test_page_is_self_contained(reports: list[dict]) -> None:
    page = html.build(reports)
    assert "<script" not in page.lower()
    assert not re.search(r"""(src|href)=["']https?://""", page), "nothing may be fetched at view time"
    assert "@import" not in page and "url(" not in page.replace("url(#ah)", "")
    assert page.count("<svg") >= 12  # a sequence diagram per scenario and client


@pytest.mark.skipif(not CHROMIUM, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_chromium_renders_the_matrix(reports: list[dict], tmp_path: Path) -> None:
    page = html.write(tmp_path / "html", reports)
    dom = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    rendered = dom.stdout
    assert "<h2>Matrix</h2>" in rendered
    assert "quirks/mixed-version-direct-message" in rendered
    assert rendered.count('class="o"') > 50
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={tmp_path / 'profile2'}",
            "--window-size=1200,900",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
    )
    assert shot.stat().st_size > 10_000  # a real picture, not a blank page
