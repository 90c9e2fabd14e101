"""The tutorials (docs/tutorials/*.md), followed as a newcomer follows them: every ```sh block of a page, in page
order, as one `bash -e` script, in a folder laid out as the checkout (its docs/examples/tutorial/), the directory a
`cd` moves to kept for the blocks after it, against the exit code and the verdicts the page implies.

- A ```text block right after a ```sh block quotes that block's output: every line of it but `...` must appear in
  the real output (stdout, then stderr), in order; `...` inside a line stands for anything.
- `a2a-lab serve ... --port 0` runs in the background (until the next `serve` or the page's end); the address it
  prints is the page's `$AGENT`, so the page's `AGENT=http://127.0.0.1:PORT` lines (a port the reader copies from
  that line) are left out.
- Each `a2a-lab run` gets `--json FILE` added (its console output is unchanged), so that the verdicts the page
  tells of (the mistaken client FAILs the named check, the fixed one PASSes the same scenarios) are read from its
  report.
- A block is run unless a prefix of its first line is listed in the page's `not_run` with the reason, and every block
  run is listed in `steps` with what it must do: a new block is a decision someone writes down.

The pages' code listings are the example files (docs/examples/tutorial/), and their diffs the difference between the
mistaken and the fixed client.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .background import Background

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = ROOT / "docs" / "tutorials"
EXAMPLES = ROOT / "docs" / "examples" / "tutorial"
TIMEOUT = 120
FENCE = re.compile(r"^```([\w+-]*)\n(.*?)^```[ \t]*$", re.M | re.S)
AGENT_LINE = re.compile(r"^AGENT=\S*$", re.M)
SERVING = re.compile(r" on (https?://127\.0\.0\.1:\d+) ")
WHOLE_CATALOGUE = (
    "runs the whole catalogue (minutes; tests/test_catalogue_reference_client.py runs it with the reference client)"
)


@dataclass(frozen=True)
class Step:
    """What a block of a page must do."""

    code: int = 0
    why: str = "a step that works"
    #: The verdicts of the block's `a2a-lab run`, per scenario: its outcome (key "") and checks' outcomes.
    verdicts: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Tutorial:
    page: str
    #: Why the page cannot be followed here (None: it can).
    missing: Callable[[], str | None]
    #: {prefix of a block's first line: what it must do}.
    steps: Mapping[str, Step]
    #: {prefix of a block's first line: why it is not run}.
    not_run: Mapping[str, str] = field(default_factory=dict)
    #: {language of a code listing on the page: the example file it shows}.
    listings: Mapping[str, str] = field(default_factory=dict)
    #: The diff the page shows: (the mistaken file, the fixed file).
    fix: tuple[str, str] | None = None


def _every(outcome: str, scenarios: list[str]) -> dict[str, dict[str, str]]:
    return {s: {"": outcome} for s in scenarios}


PY_SCENARIOS = [
    "spec/conformant",
    "spec/task/submitted-needs-get-task",
    "quirks/mixed-version-direct-message",
    "discovery/dual-card-different-urls",
]
JS_SCENARIOS = [
    "spec/task/submitted-needs-get-task",
    "quirks/mixed-version-direct-message",
    "quirks/missing-version-header-refused",
]
BASELINED = Step(0, "the baseline excuses the fixed client's known failures: the gate passes")


def _node_missing() -> str | None:
    node = shutil.which("node")
    if node is None:
        return "node is not on PATH (the JavaScript tutorial needs Node.js 18 or later)"
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    found = re.match(r"v(\d+)\.", version)
    if found is None or int(found.group(1)) < 18:
        return f"node {version or '(unknown version)'} is too old: the JavaScript tutorial needs Node.js 18 or later"
    return None


TUTORIAL_PAGES = [
    Tutorial(
        "client-python.md",
        lambda: None,
        steps={
            "mkdir -p tutorial ": Step(),
            "a2a-lab run --client 'python my_client.py'": Step(
                1,
                "the planted mistake (the 0.3 top-level url) fails INTERFACE-SELECTION where the card's 0.3 fields "
                "name another endpoint, and nowhere else",
                {
                    **_every("PASS", PY_SCENARIOS[:3]),
                    "discovery/dual-card-different-urls": {"": "FAIL", "INTERFACE-SELECTION": "FAIL"},
                },
            ),
            "a2a-lab scenarios show": Step(),
            "cp ../docs/examples/tutorial/my_client_fixed.py": Step(
                0,
                "the fixed client passes the same scenarios",
                {**_every("PASS", PY_SCENARIOS), "discovery/dual-card-different-urls": {"INTERFACE-SELECTION": "PASS"}},
            ),
            "cat > a2a-baseline.yaml": BASELINED,
        },
        not_run={"a2a-lab run --client 'python my_client.py' -j auto": WHOLE_CATALOGUE},
        listings={"python": "my_client.py"},
        fix=("my_client.py", "my_client_fixed.py"),
    ),
    Tutorial(
        "client-javascript.md",
        _node_missing,
        steps={
            "mkdir -p tutorial-js ": Step(),
            "a2a-lab run --client 'node my-client.mjs'": Step(
                1,
                "the planted mistake (no A2A-Version header) fails VERSION-HEADER in every scenario",
                {s: {"": "FAIL", "VERSION-HEADER": "FAIL"} for s in JS_SCENARIOS},
            ),
            "a2a-lab scenarios show": Step(),
            "cp ../docs/examples/tutorial/my-client-fixed.mjs": Step(
                0,
                "the fixed client passes the same scenarios",
                {s: {"": "PASS", "VERSION-HEADER": "PASS"} for s in JS_SCENARIOS},
            ),
            "cat > a2a-baseline.yaml": BASELINED,
        },
        not_run={"a2a-lab run --client 'node my-client.mjs' -j auto": WHOLE_CATALOGUE},
        listings={"javascript": "my-client.mjs"},
        fix=("my-client.mjs", "my-client-fixed.mjs"),
    ),
    Tutorial(
        "server.md",
        lambda: None,
        steps={
            "a2a-lab serve ": Step(0, "serves in the background until the next serve"),
            'a2a-lab card check "$AGENT': Step(0, "a card check finds errors or warnings, and exits 0 without errors"),
            'a2a-lab probe "$AGENT"': Step(
                1, "advertised-method-not-found: the method its card advertises answers method not found"
            ),
        },
        not_run={
            "a2a-lab card check https://agent.example.com": "your own server: there is none here, nor network",
        },
    ),
]
#: The last block of the server page writes the probe's HTML report.
PROBE_REPORT = "probe-report/index.html"


def _blocks(page: str) -> list[tuple[str, str]]:
    """The page's fenced blocks, (language, text), in page order."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(page)]


def _listed(first: str, table: Mapping[str, Any]) -> str | None:
    return next((prefix for prefix in table if first.startswith(prefix)), None)


def _first_line(script: str) -> str:
    return next((line for line in script.splitlines() if line.strip()), "")


def _quoted_lines_found(quote: str, said: str) -> str | None:
    """None when every quoted line (but `...`) is in `said`, in order; else the first one that is not."""
    lines = said.splitlines()
    at = 0
    for quoted in quote.splitlines():
        quoted = quoted.rstrip()
        if quoted.strip() in ("", "..."):
            continue
        pattern = re.compile(".*?".join(re.escape(piece) for piece in quoted.split("...")))
        found = next((i for i in range(at, len(lines)) if pattern.search(lines[i])), None)
        if found is None:
            return quoted
        at = found + 1
    return None


class Server:
    """A page's `a2a-lab serve ... --port 0`, in the background; the address it printed."""

    def __init__(self, command: str, cwd: Path, env: dict[str, str]) -> None:
        assert "--port 0" in command, f"a tutorial serves on a free port only (--port 0): {command!r}"
        self.url = ""
        self.running = Background(command, cwd, env, self._read, TIMEOUT)

    def _read(self, line: str) -> bool:
        if found := SERVING.search(line):
            self.url = found.group(1)
        return bool(self.url)

    def stop(self) -> None:
        self.running.stop()


def _with_json_reports(script: str, reports: Path) -> tuple[str, list[Path]]:
    """The script with `--json FILE` added to each `a2a-lab run`, and the files (new ones in `reports`)."""
    files: list[Path] = []
    taken = len(list(reports.iterdir()))

    def add(_: re.Match[str]) -> str:
        files.append(reports / f"run-{taken + len(files)}.json")
        return f"a2a-lab run --json {files[-1]} "

    return re.sub(r"\ba2a-lab run ", add, script), files


def _verdicts(files: list[Path]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for path in files:
        report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        for scenario in report["scenarios"]:
            out[scenario["id"]] = {"": scenario["outcome"], **{c["id"]: c["outcome"] for c in scenario["checks"]}}
    return out


def _follow(tutorial: Tutorial, work: Path) -> Iterator[str]:
    """Follow the page in `work`; yield each step's first line as it passes (for the stale-entry check)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("A2A_LAB_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["NO_COLOR"] = "1"
    checkout = work / "checkout"
    shutil.copytree(EXAMPLES, checkout / "docs" / "examples" / "tutorial")
    reports = work / "reports"
    reports.mkdir()
    cwd_file = work / "cwd"
    cwd = checkout
    server: Server | None = None
    blocks = _blocks((TUTORIALS / tutorial.page).read_text(encoding="utf-8"))
    try:
        for i, (language, text) in enumerate(blocks):
            if language != "sh" or _listed(_first_line(text), tutorial.not_run):
                continue
            script = AGENT_LINE.sub("", text).strip() + "\n"
            first = _first_line(script)
            prefix = _listed(first, tutorial.steps)
            assert prefix is not None, f"{tutorial.page}: no step says what {first!r} must do: list it in steps"
            step = tutorial.steps[prefix]
            yield prefix
            if first.startswith("a2a-lab serve "):
                if server is not None:
                    server.stop()
                server = Server(script.strip(), cwd, env)
                env["AGENT"] = server.url
                continue
            script, files = _with_json_reports(script, reports)
            done = subprocess.run(
                ["bash", "-e", "-c", f"trap 'pwd > {cwd_file}' EXIT\n{script}"],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
            )
            cwd = Path(cwd_file.read_text(encoding="utf-8").strip())
            said = done.stdout + done.stderr
            assert done.returncode == step.code, (
                f"{tutorial.page}: {first!r} exited {done.returncode}, expected {step.code} ({step.why}):\n"
                f"{said[-4000:]}"
            )
            if i + 1 < len(blocks) and blocks[i + 1][0] == "text":
                missing = _quoted_lines_found(blocks[i + 1][1], said)
                assert missing is None, (
                    f"{tutorial.page} quotes {missing!r} from the output of {first!r}, which does not say it "
                    f"(in the order quoted):\n{said[-4000:]}"
                )
            verdicts = _verdicts(files)
            for scenario, expected in step.verdicts.items():
                got = verdicts.get(scenario, {})
                wrong = {k: got.get(k) for k, v in expected.items() if got.get(k) != v}
                assert not wrong, (
                    f"{tutorial.page}: {first!r} in {scenario}: expected {dict(expected)}, got {wrong} ({step.why})"
                )
            if step.verdicts:
                assert set(verdicts) == set(step.verdicts), f"{tutorial.page}: {first!r} ran {sorted(verdicts)}"
    finally:
        if server is not None:
            server.stop()


@pytest.mark.parametrize("tutorial", TUTORIAL_PAGES, ids=[t.page for t in TUTORIAL_PAGES])
def test_tutorial_followed_as_written(tutorial: Tutorial, tmp_path: Path) -> None:
    reason = tutorial.missing()
    if reason is not None:
        pytest.skip(reason)
    used = set(_follow(tutorial, tmp_path))
    stale = sorted(set(tutorial.steps) - used)
    assert not stale, f"{tutorial.page}: no block starts with {stale}: update the steps"
    if tutorial.page == "server.md":
        assert (tmp_path / "checkout" / PROBE_REPORT).is_file(), "the probe's --html report was not written"


@pytest.mark.parametrize("tutorial", TUTORIAL_PAGES, ids=[t.page for t in TUTORIAL_PAGES])
def test_not_run_blocks_are_on_the_page(tutorial: Tutorial) -> None:
    firsts = [
        _first_line(text) for language, text in _blocks((TUTORIALS / tutorial.page).read_text()) if language == "sh"
    ]
    stale = [prefix for prefix in tutorial.not_run if not any(first.startswith(prefix) for first in firsts)]
    assert not stale, f"{tutorial.page}: no block starts with {stale}: update not_run"


@pytest.mark.parametrize("tutorial", [t for t in TUTORIAL_PAGES if t.listings or t.fix], ids=lambda t: t.page)
def test_the_page_shows_the_example_files(tutorial: Tutorial) -> None:
    """The code a reader copies from the page is the file the test runs, and the diff is the fix."""
    blocks = _blocks((TUTORIALS / tutorial.page).read_text(encoding="utf-8"))
    for language, name in tutorial.listings.items():
        shown = [text for lang, text in blocks if lang == language]
        assert shown == [(EXAMPLES / name).read_text(encoding="utf-8")], (
            f"{tutorial.page}: its {language} listing is not docs/examples/tutorial/{name}: copy the file in"
        )
    if tutorial.fix is not None:
        mistaken, fixed = tutorial.fix
        want = "".join(
            difflib.unified_diff(
                (EXAMPLES / mistaken).read_text(encoding="utf-8").splitlines(keepends=True),
                (EXAMPLES / fixed).read_text(encoding="utf-8").splitlines(keepends=True),
                mistaken,
                mistaken,
                n=1,
            )
        )
        assert [text for lang, text in blocks if lang == "diff"] == [want], (
            f"{tutorial.page}: its diff is not the fix ({mistaken} -> {fixed}); the diff to show:\n{want}"
        )


def test_the_examples_are_the_pages() -> None:
    """Every file in docs/examples/tutorial/ is shown or run by a tutorial."""
    named = {n for t in TUTORIAL_PAGES for n in (*t.listings.values(), *(t.fix or ()))}
    assert sorted(p.name for p in EXAMPLES.iterdir()) == sorted(named)


def test_quoted_lines_matcher() -> None:
    said = (
        "4 scenarios: FAIL 1, PASS 3\n- CHECK [MUST] FAIL in 1 scenario\n      expected: at http://127.0.0.1:4000/a\n"
    )
    assert _quoted_lines_found("4 scenarios: FAIL 1, PASS 3\n...\n      expected: at http://...:.../a", said) is None
    assert _quoted_lines_found("- CHECK [MUST] FAIL in 1 scenario\n4 scenarios: FAIL 1, PASS 3", said) is not None
    assert _quoted_lines_found("verdict: conformant", said) == "verdict: conformant"
