"""The command line as a new user meets it (issue 17): through a real subprocess, its exit code and its streams."""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import pty
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import httpx
import pytest

from a2a_lab.contract.catalogue import builtin_root
from a2a_lab.harness.cli import build_parser
from a2a_lab.harness.cli.outputs import file_problem, folder_problem

CLI = [sys.executable, "-m", "a2a_lab.harness.cli"]
#: Scenarios a client that makes no call runs through fast.
FEW = ["spec/conformant", "spec/tck-sut", "spec/tck-sut-no-capabilities", "spec/v1.0.0-server"]


def a2a_lab(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


def scenarios(*ids: str) -> list[str]:
    return [a for sid in ids for a in ("--scenario", sid)]


def script(folder: Path, name: str, body: str) -> str:
    """A tiny Python client, as a command line."""
    path = folder / name
    path.write_text(body, encoding="utf-8")
    return f"{sys.executable} {path}"


# Point 1: a client that does not start.


def test_a_client_that_never_starts_is_a_usage_error_that_quotes_its_stderr(tmp_path: Path) -> None:
    proc = a2a_lab("run", "--client", f"{sys.executable} {tmp_path / 'missing.py'}", *scenarios(*FEW), cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    progress, _, last = proc.stderr.rpartition("a2a-lab: the client never started:")
    assert "exited 2 before any request, in all 4 scenario(s)" in last and "can't open file" in last, proc.stderr
    # The first three progress lines quote the stderr, the fourth does not repeat it.
    assert progress.count("can't open file") == 3, progress
    assert "exit 2 before any request reached the server" in progress


def test_a_client_that_exits_0_without_a_call_fails_the_gate_not_usage(tmp_path: Path) -> None:
    proc = a2a_lab("run", "--client", "true", *scenarios(*FEW[:2]), cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "never started" not in proc.stderr and "NO_CONTACT" in proc.stdout


def test_a_client_that_fails_only_sometimes_is_scored_and_its_exit_code_is_not_a_progress_note(tmp_path: Path) -> None:
    """It reads the card (contact) and exits 1 in one scenario, and fails to do anything in the other: the run is
    scored (exit 1), the silent scenario quotes the stderr, the other shows no `exit 1` beside it."""
    client = script(
        tmp_path,
        "sometimes.py",
        "import os, sys, urllib.request\n"
        "if os.environ['A2A_LAB_SCENARIO'] == 'spec/conformant':\n"
        "    urllib.request.urlopen(sys.argv[-1]).read()\n"
        "    sys.exit(1)\n"
        "sys.exit('refusing to start today')\n",
    )
    proc = a2a_lab("run", "--client", client, *scenarios(*FEW[:2]), cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "never started" not in proc.stderr
    [contacted] = [line for line in proc.stderr.splitlines() if "spec/conformant (" in line]
    assert "exit" not in contacted, proc.stderr
    assert "    | refusing to start today" in proc.stderr


# Point 4: scenario files and folders of the user's own.


def _own_scenarios(tmp_path: Path) -> tuple[Path, Path]:
    """A folder with one scenario in a group of its own, and a single file elsewhere (copies of a built-in one)."""
    text = (builtin_root() / "spec" / "conformant.yaml").read_text(encoding="utf-8")
    folder = tmp_path / "mine"
    (folder / "vendor").mkdir(parents=True)
    (folder / "vendor" / "observed-quirk.yaml").write_text(
        text.replace("title: ", "title: Mine - ", 1), encoding="utf-8"
    )
    single = tmp_path / "recorded.yaml"
    single.write_text(text, encoding="utf-8")
    return folder, single


def test_run_takes_scenario_files_and_folders_mixed_with_ids(tmp_path: Path, fake: Callable[..., str]) -> None:
    folder, single = _own_scenarios(tmp_path)
    selection = scenarios(str(folder), str(single), "spec/tck-sut")
    report = tmp_path / "run.json"
    proc = a2a_lab("run", "--client", fake(), *selection, "--json", str(report), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ran = {s["id"]: s["outcome"] for s in json.loads(report.read_text(encoding="utf-8"))["scenarios"]}
    assert ran == {"vendor/observed-quirk": "PASS", "recorded": "PASS", "spec/tck-sut": "PASS"}
    listed = a2a_lab("scenarios", "--json", *selection, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    titles = {s["id"]: s["title"] for s in json.loads(listed.stdout)["scenarios"]}
    assert set(titles) == set(ran) and titles["vendor/observed-quirk"].startswith("Mine - ")


@pytest.mark.parametrize(
    "selection, says",
    [
        (["{folder}", "spec/conformnt"], "no scenario matches 'spec/conformnt'; did you mean spec/conformant"),
        (["{tmp}/nowhere.yaml"], "nowhere.yaml: no such file"),
        (["{tmp}/broken.yaml"], "broken.yaml"),
        (["{tmp}/empty"], "holds no scenario file"),
        (["{single}", "{tmp}/again/recorded.yaml"], "two scenarios chosen are called 'recorded'"),
    ],
    ids=["misspelled-id", "missing-file", "broken-file", "empty-folder", "one-id-twice"],
)
def test_a_selection_that_cannot_be_made_is_a_usage_error(selection: list[str], says: str, tmp_path: Path) -> None:
    folder, single = _own_scenarios(tmp_path)
    (tmp_path / "broken.yaml").write_text("title: [unclosed\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    (tmp_path / "again").mkdir()
    (tmp_path / "again" / "recorded.yaml").write_text(single.read_text(encoding="utf-8"), encoding="utf-8")
    given = [a.format(folder=folder, single=single, tmp=tmp_path) for a in selection]
    # `run` and `scenarios` choose alike (Catalogue.choose); `run` is tried once, on the missing file.
    command = ["run", "--client", "true"] if "nowhere" in selection[0] else ["scenarios"]
    proc = a2a_lab(*command, *scenarios(*given), cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert says in proc.stderr and "Traceback" not in proc.stderr


def test_scenario_files_are_refused_with_a_shared_server(tmp_path: Path) -> None:
    _, single = _own_scenarios(tmp_path)
    proc = a2a_lab("run", "--server", "http://127.0.0.1:9", "--scenario", str(single), cwd=tmp_path)
    assert proc.returncode == 2 and "can only be run locally" in proc.stderr, proc.stderr


def test_show_says_a_missing_file_is_missing(tmp_path: Path) -> None:
    proc = a2a_lab("scenarios", "show", "mine.yaml", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip() == "a2a-lab: mine.yaml: no such file", proc.stderr


# Point 2: the baseline.


def test_a_whole_scenario_entry_excuses_its_timeout(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text('spec/conformant:\n  "*": "known hang, tracked in #31"\n', encoding="utf-8")
    report, junit = tmp_path / "run.json", tmp_path / "junit.xml"
    args = [
        "--client",
        "sh -c 'sleep 30' {card_url}",
        "--timeout",
        "0.5",
        "--scenario",
        "spec/conformant",
        "--json",
        str(report),
    ]
    proc = a2a_lab("run", *args, "--junit", str(junit), "--baseline", str(baseline), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "expected failure (baseline): known hang, tracked in #31" in proc.stdout
    data = json.loads(report.read_text(encoding="utf-8"))
    [scenario] = data["scenarios"]
    assert scenario["outcome"] == "TIMEOUT" and scenario["baseline"] == "known hang, tracked in #31"
    assert data["summary"]["gate"] == "passed" and data["baseline"]["stale"] == []
    [case] = [c for c in ET.parse(junit).getroot().iter("testcase") if c.get("name") == "(scenario)"]
    assert case.find("skipped") is not None and case.find("error") is None


def test_entries_with_nothing_to_excuse_are_listed(tmp_path: Path, fake: Callable[..., str]) -> None:
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text(
        'spec/conformant:\n  "*": it used to hang\nspec/tck-sut:\n  VERSION-HEADER: issue 12\n', encoding="utf-8"
    )
    report = tmp_path / "run.json"
    selection = scenarios("spec/conformant", "spec/tck-sut")
    proc = a2a_lab(
        "run", "--client", fake(), *selection, "--baseline", str(baseline), "--json", str(report), cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "baseline: 2 entries with nothing to excuse, remove:" in proc.stdout
    assert "  spec/conformant * (now PASS)" in proc.stdout and "  spec/tck-sut VERSION-HEADER (now PASS)" in proc.stdout
    assert json.loads(report.read_text(encoding="utf-8"))["baseline"]["stale"] == [
        {"scenario": "spec/conformant", "check": "*", "now": "PASS"},
        {"scenario": "spec/tck-sut", "check": "VERSION-HEADER", "now": "PASS"},
    ]


@pytest.mark.parametrize(
    "entry, says",
    [
        ("spec/conformnt:\n  VERSION-HEADER: x\n", "unknown scenario 'spec/conformnt'; did you mean spec/conformant"),
        ("spec/conformant:\n  VERSION-HEADR: x\n", "unknown check 'VERSION-HEADR'; did you mean VERSION-HEADER"),
    ],
    ids=["scenario", "check"],
)
def test_unknown_ids_in_the_baseline_are_refused(entry: str, says: str, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text(entry, encoding="utf-8")
    proc = a2a_lab("run", "--client", "true", "--scenario", "spec/tck-sut", "--baseline", str(baseline), cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert says in proc.stderr and "spec/tck-sut (" not in proc.stderr  # refused before the run


# Point 5: report paths that cannot be written are refused before the run.


FIX = "give a path in a folder you can write"


@pytest.mark.parametrize(
    "args, says",
    [
        (["run", "--html", "{file}"], "--html {file}: exists and is not a folder; give a folder (or a new name)"),
        (
            ["run", "--report-dir", "{file}/reports"],
            f"--report-dir {{file}}/reports: {{file}} is not a folder; {FIX}, e.g. --report-dir reports",
        ),
        (["run", "--json", "{tmp}"], "--json {tmp}: is a folder; give a file name, e.g. --json {tmp}/report"),
        (
            ["run", "--junit", "{file}/junit.xml"],
            f"--junit {{file}}/junit.xml: {{file}} is not a folder; {FIX}, e.g. --junit junit.xml",
        ),
        (
            ["drive", "--server", "http://127.0.0.1:9", "--run-file", "{file}/run.json"],
            f"--run-file {{file}}/run.json: {{file}} is not a folder; {FIX}, e.g. --run-file run.json",
        ),
        (
            ["report", "merge", "{file}", "--html", "{file}"],
            "--html {file}: exists and is not a folder; give a folder (or a new name)",
        ),
    ],
    ids=["html-on-a-file", "report-dir-under-a-file", "json-on-a-folder", "junit-under-a-file", "run-file", "merge"],
)
def test_unwritable_report_paths_are_refused_before_the_run(args: list[str], says: str, tmp_path: Path) -> None:
    file = tmp_path / "taken"
    file.write_text("not a folder\n", encoding="utf-8")
    given = [a.format(file=file, tmp=tmp_path) for a in args]
    run = ["--client", "true", "--scenario", "spec/tck-sut"] if given[0] in ("run", "drive") else []
    proc = a2a_lab(*given, *run, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [f"a2a-lab: {says.format(file=file, tmp=tmp_path)}"], proc.stderr


#: Every command that writes a report or a file, with a path where nothing can be created, even by root (issue 42).
UNWRITABLE = [
    ["run", "--client", "true", "--json", "/proc/x.json"],
    ["run", "--client", "true", "--junit", "/proc/x.xml"],
    ["run", "--client", "true", "--html", "/proc/html"],
    ["score", "--server", "http://127.0.0.1:9", "--run", "r", "--run-token", "t", "--json", "/proc/x.json"],
    ["probe", "http://127.0.0.1:9", "--junit", "/proc/x.xml"],
    ["proxy", "--upstream", "http://127.0.0.1:9", "--html", "/proc/html"],
    ["proxy", "--upstream", "http://127.0.0.1:9", "--out", "/proc/seen.yaml"],
    ["acts", "run", "missing.acts.yaml", "--server", "http://127.0.0.1:9", "--json", "/proc/acts"],
    ["acts", "run", "missing.acts.yaml", "--server", "http://127.0.0.1:9", "--junit", "/proc/x.xml"],
    ["report", "merge", "missing.json", "--json", "/proc/x.json"],
    ["fuzz", "--client", "true", "--out", "/proc/findings"],
    ["drive", "--server", "http://127.0.0.1:9", "--run-file", "/proc/run.json"],
    ["record", "http://127.0.0.1:9", "--out", "/proc/x.yaml"],
]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("args", UNWRITABLE, ids=[" ".join(a[:1] + a[-2:-1]) for a in UNWRITABLE])
def test_a_path_nothing_can_be_written_to_is_refused_before_anything_runs(args: list[str], tmp_path: Path) -> None:
    """Before: `run --json /proc/x.json` ran the whole catalogue as root (os.access says yes), then failed to write.
    Now every command refuses at once, in main() (outputs.unwritable), saying what, where and how to fix it."""
    began = time.monotonic()
    proc = a2a_lab(*args, cwd=tmp_path)
    path = args[-1]
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        f"a2a-lab: {args[-2]} {path}: nothing can be created in /proc (No such file or directory); {FIX}, "
        f"e.g. {args[-2]} {Path(path).name}"
    ], proc.stderr
    assert time.monotonic() - began < 30 and not list(tmp_path.iterdir())


def test_checking_a_path_leaves_nothing_behind(tmp_path: Path) -> None:
    assert unwritable_of(["run", "--json", str(tmp_path / "a" / "b.json"), "--html", str(tmp_path / "h")]) is None
    assert not list(tmp_path.iterdir())


def unwritable_of(argv: list[str]) -> str | None:
    from a2a_lab.harness.cli.outputs import unwritable
    from a2a_lab.harness.cli.parser import innermost

    parser = build_parser()
    args = parser.parse_args(argv)
    return unwritable(innermost(parser, args), args)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_folder_that_is_not_writable_is_refused(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    said = file_problem(locked / "run.json", "--json")
    why = "nothing can be created in"
    assert said == f"--json {locked}/run.json: {why} {locked} (Permission denied); {FIX}, e.g. --json run.json"
    assert folder_problem(locked / "html", "--html") is not None


# Point 3: Ctrl-C and SIGTERM.

HANGING_CLIENT = """\
import os, subprocess, sys
if os.environ["A2A_LAB_SCENARIO"] == "spec/conformant":
    sys.exit(0)
child = subprocess.Popen(["sleep", "60"])
marker = sys.argv[1]
with open(marker + ".tmp", "w") as out:
    out.write(f"{os.getpid()} {child.pid}")
os.rename(marker + ".tmp", marker)  # the test waits for this file: the client and its child are running
child.wait()
"""


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")  # a zombie is dead, waiting to be reaped


def _to_a_thread_other_than_main(pid: int, sig: signal.Signals) -> None:
    """The signal, sent to one of the process's other threads (tgkill): where the kernel may deliver a signal meant
    for the whole process, while the main thread sleeps in a lock."""
    tgkill = getattr(ctypes.CDLL(None, use_errno=True), "tgkill", None)
    if tgkill is None:
        pytest.skip("this C library has no tgkill (glibc 2.30+ has)")
    others = sorted(int(t) for t in os.listdir(f"/proc/{pid}/task") if int(t) != pid)
    assert others, "a run has worker threads"
    assert tgkill(pid, others[-1], int(sig)) == 0, ctypes.get_errno()


@pytest.mark.parametrize(
    ("sig", "to_thread"),
    [(signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGINT, True)],
    ids=["SIGINT", "SIGTERM", "SIGINT-to-a-worker-thread"],
)
def test_an_interrupted_run_kills_its_clients_reports_what_finished_and_exits_130(
    sig: signal.Signals, to_thread: bool, tmp_path: Path
) -> None:
    marker, report = tmp_path / "running", tmp_path / "run.json"
    client = script(tmp_path, "hang.py", HANGING_CLIENT) + f" {marker} {{card_url}}"
    chosen = scenarios("spec/conformant", "spec/tck-sut", "spec/v1.0.0-server")
    errors = tmp_path / "stderr.txt"
    with open(errors, "w", encoding="utf-8") as stderr:
        harness = subprocess.Popen(
            [*CLI, "run", "--client", client, *chosen, "--json", str(report)],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    try:
        deadline = time.monotonic() + 60
        # A hanging client is up, and spec/conformant is done: its progress line is out (the longest time limit
        # starts first, spec/tck-sut, whose client waits off the CPU while the others run: schedule.py).
        while not (marker.exists() and re.search(r"\] [A-Z_]+ +spec/conformant", errors.read_text(encoding="utf-8"))):
            assert harness.poll() is None and time.monotonic() < deadline, errors.read_text(encoding="utf-8")
            time.sleep(0.02)
        pids = [int(p) for p in marker.read_text(encoding="ascii").split()]
        signalled = time.monotonic()
        if to_thread:
            _to_a_thread_other_than_main(harness.pid, sig)
        else:
            harness.send_signal(sig)
        out, _ = harness.communicate(timeout=30)
        err = errors.read_text(encoding="utf-8")
    finally:
        if harness.poll() is None:
            harness.kill()
    assert harness.returncode == 130, out + err
    assert time.monotonic() - signalled < 10  # at once, not at the scenario's 20 s timeout
    assert "Traceback" not in err and f"interrupted ({sig.name})" in err and "1 of 3 scenario(s) finished" in err
    assert all(_gone(pid) for pid in pids), pids  # the client and the child in its group
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [s["id"] for s in data["scenarios"]] == ["spec/conformant"]
    assert data["incomplete"] == {"signal": sig.name, "unfinished": ["spec/tck-sut", "spec/v1.0.0-server"]}


# Point 6: command-line conventions.


def test_version(tmp_path: Path) -> None:
    proc = a2a_lab("--version", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == f"a2a-lab {metadata.version('a2a-lab')}", proc


def test_json_dash_writes_the_report_to_stdout_and_the_rest_to_stderr(tmp_path: Path) -> None:
    proc = a2a_lab("run", "--client", "true", "--scenario", "spec/tck-sut", "--json", "-", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)  # nothing else on stdout
    assert [s["outcome"] for s in report["scenarios"]] == ["NO_CONTACT"]
    assert re.search(r"^spec/tck-sut\s+NO_CONTACT\s", proc.stderr, re.M) and "verdict:" in proc.stderr
    assert "\033[" not in proc.stderr  # no colour into a pipe
    assert not (tmp_path / "-").exists()


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path: Path) -> None:
    proc = subprocess.Popen([*CLI, "checks"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # as `a2a-lab checks | head -0` does
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 141 and err == b"", err


@pytest.mark.parametrize(
    "args, says",
    [
        (["serve", "--port", "99999"], "argument --port: 99999 is not a port number (0 to 65535"),
        (["run", "--client", "./client.py"], "--client: ./client.py is not an executable file"),
        (["run", "--client", "./absent.js"], "--client: ./absent.js does not exist"),
        (["run", "--client", "client.py"], "(a file of that name is here: run it as ./client.py)"),
        (
            ["scenarios", "show", "advance.yaml"],
            "task.advance: unknown advance 'get_taks'\n  hint: did you mean 'get_task'?",
        ),
    ],
    ids=["port-out-of-range", "not-executable", "missing-script", "script-not-on-path", "misspelled-advance"],
)
def test_bad_input_gets_a_clear_error(args: list[str], says: str, tmp_path: Path) -> None:
    (tmp_path / "client.py").write_text("print('hi')\n", encoding="utf-8")
    scenario = (builtin_root() / "spec" / "conformant.yaml").read_text(encoding="utf-8")
    (tmp_path / "advance.yaml").write_text(scenario + "task:\n  advance: get_taks\n", encoding="utf-8")
    proc = a2a_lab(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert says in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_show_json(tmp_path: Path) -> None:
    proc = a2a_lab("scenarios", "show", "spec/tck-sut", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["id"] == "spec/tck-sut"


def test_every_command_help_has_a_description_examples_and_exit_codes(tmp_path: Path) -> None:
    proc = a2a_lab("run", "--help", cwd=tmp_path)
    assert proc.returncode == 0 and "examples:\n" in proc.stdout and "\n  130  interrupted" in proc.stdout
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name, sub in commands.items():
        text = sub.format_help()
        assert sub.description and "examples:\n  a2a-lab " in text and "exit codes:\n  0 " in text, name


def _on_a_terminal(args: list[str], cwd: Path, **env: str) -> str:
    """Run with stdout and stderr on a pseudo-terminal; what it printed."""
    main, side = pty.openpty()
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")} | {"TERM": "xterm", **env}
    proc = subprocess.Popen([*CLI, *args], cwd=cwd, stdout=side, stderr=side, env=environ)
    os.close(side)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    proc.wait(timeout=60)
    return b"".join(chunks).decode("utf-8", "replace")


def test_colour_on_a_terminal_unless_no_color(tmp_path: Path) -> None:
    args = ["run", "--client", "true", "--scenario", "spec/tck-sut"]
    assert "\033[31mNO_CONTACT" in _on_a_terminal(args, tmp_path)
    plain = _on_a_terminal(args, tmp_path, NO_COLOR="1")
    assert "NO_CONTACT" in plain and "\033[" not in plain


@pytest.mark.parametrize(
    "argv, usage, says",
    [
        (["runn"], "usage: a2a-lab [-h]", "invalid choice: 'runn': did you mean 'run'?"),
        (
            ["run", "--jbos", "2"],
            "usage: a2a-lab run ",
            "unrecognized arguments: --jbos 2 (--jbos: did you mean --jobs?)",
        ),
        (["report", "merg", "a.json"], "usage: a2a-lab report ", "invalid choice: 'merg': did you mean 'merge'?"),
        (["probe", "http://127.0.0.1:9", "--bindng", "grpc"], "usage: a2a-lab probe ", "did you mean --binding?"),
        (["scenarios", "--jsno"], "usage: a2a-lab scenarios ", "(--jsno: did you mean --json?)"),
    ],
)
def test_a_mistyped_command_or_option_gets_the_nearest_under_its_commands_usage(
    argv: list[str], usage: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(argv)
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.startswith(usage) and says in err, err


@pytest.mark.parametrize("argv", [["zzzz"], ["run", "--qqqqqq"]])
def test_a_word_near_nothing_gets_no_guess(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(argv)
    err = capsys.readouterr().err
    assert "did you mean" not in err and ("invalid choice" in err or "unrecognized arguments" in err), err


def test_a_file_of_ones_own_without_a_citation_runs_with_a_warning(tmp_path: Path, fake: Callable[..., str]) -> None:
    """A quick local reproduction may cite neither spec: nor observed: (the catalogue's scenarios must): run scores it
    and says so once, naming the file; a cited file gets no warning."""
    text = (builtin_root() / "spec" / "conformant.yaml").read_text(encoding="utf-8")
    bare = tmp_path / "repro.yaml"
    bare.write_text(re.sub(r"^spec:.*\n(?:[ \t]+.*\n)*", "", text, count=1, flags=re.M), encoding="utf-8")
    assert "spec:" not in bare.read_text(encoding="utf-8") and "observed:" not in bare.read_text(encoding="utf-8")
    cited = tmp_path / "cited.yaml"
    cited.write_text(text, encoding="utf-8")
    proc = a2a_lab("run", "--client", fake(), *scenarios(str(bare), str(cited)), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "warning:" in line]
    assert warnings == [
        f"a2a-lab: warning: {bare} cites neither `spec:` (the section and keyword it stands on) nor `observed:` "
        "(where and when the behaviour was seen); fine for a local reproduction, required in the catalogue"
    ], proc.stderr


# Issue 42: did-you-mean for presets and globs, a card by its origin, the reference page.


@pytest.mark.parametrize(
    "client, says",
    [
        ("a2a_sdk", "; did you mean the preset 'a2a-sdk'?"),
        ("builtn", "; did you mean the preset 'builtin'?"),
        ("a2a_sdk --verbose", None),  # a command line of the user's: no preset is meant
        ("zzqqxx", None),  # near no preset
    ],
)
def test_a_mistyped_preset_gets_the_nearest(client: str, says: str | None, tmp_path: Path) -> None:
    proc = a2a_lab("run", "--client", client, "--scenario", "spec/tck-sut", cwd=tmp_path)
    assert proc.returncode == 2 and "is neither a preset (builtin, a2a-sdk) nor a program found on PATH" in proc.stderr
    if says is None:
        assert "did you mean" not in proc.stderr, proc.stderr
    else:
        assert proc.stderr.rstrip().endswith(says), proc.stderr


def test_a_program_on_path_is_never_taken_for_a_mistyped_preset(tmp_path: Path) -> None:
    """`builtn` is a program here: it is run, not second-guessed."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "builtn").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    (bin_dir / "builtn").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    proc = a2a_lab("run", "--client", "builtn", "--scenario", "spec/tck-sut", cwd=tmp_path, env=env)
    assert proc.returncode == 1 and "NO_CONTACT" in proc.stdout and "did you mean" not in proc.stderr, proc.stderr


@pytest.mark.parametrize(
    "glob, near",
    [("quirk/*", "quirks/*"), ("spec/tsk/*", "spec/task/*"), ("famlies/direct-mesage/*", "families/direct-message/*")],
)
def test_a_glob_that_matches_nothing_gets_the_nearest_glob(glob: str, near: str, tmp_path: Path) -> None:
    proc = a2a_lab("scenarios", "--scenario", glob, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"a2a-lab: no scenario matches {glob!r}; did you mean {near!r}?", proc.stderr


def test_card_check_takes_an_origin_as_probe_and_client_do(tmp_path: Path) -> None:
    from tests.harness.lab_serve import lab_server

    with lab_server("spec/conformant") as served:
        for target in (served.url, served.url + "/"):
            proc = a2a_lab("card", "check", target, "--json", cwd=tmp_path)
            assert proc.returncode == 0, proc.stderr
            assert json.loads(proc.stdout)["source"] == served.url + "/.well-known/agent-card.json"
        missing = a2a_lab("card", "check", served.url + "/elsewhere/card.json", cwd=tmp_path)
    assert missing.returncode == 2 and "HTTP 404" in missing.stderr, missing.stderr


def test_card_check_falls_back_to_the_legacy_path_with_a_warning(tmp_path: Path) -> None:
    from tests.harness.lab_serve import lab_server

    with lab_server("discovery/legacy-card-path-only") as served:
        proc = a2a_lab("card", "check", served.url, "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["source"].endswith("/.well-known/agent.json")
    assert any(f["path"] == "(discovery)" and f["level"] == "warning" for f in report["findings"]), report


def test_the_reference_page_is_generated_from_the_parser(tmp_path: Path) -> None:
    from a2a_lab.harness.cli.reference import as_markdown
    from a2a_lab.harness.cli.tasks import tasks

    page = as_markdown()
    proc = subprocess.run([*CLI, "--help"], capture_output=True, text=True, check=True)
    assert (
        subprocess.run(
            [sys.executable, "-m", "a2a_lab.harness.cli.reference"], capture_output=True, text=True, check=True
        ).stdout
        == page
    )
    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    at = 0
    for task in tasks():
        assert task.heading.split(":")[0] in proc.stdout
        for command in task.commands:
            heading = f"### `a2a-lab {command.name}`"
            assert page.index(heading) > at, command.name  # in the order of the tasks
            at = page.index(heading)
            section = page[at:].split("\n### ", 1)[0]
            assert subs[command.name].description in section and "usage: a2a-lab " + command.name in section
            for action in subs[command.name]._actions:
                for option in [] if isinstance(action, argparse._HelpAction) else action.option_strings:
                    assert f"`{option}" in section or f", {option}" in section, (command.name, option)
            assert all(example in section for example in command.examples), command.name
            assert all(f"| {code} |" in section for code, _ in command.exit_codes), command.name


def test_a_family_file_of_ones_own_is_run_whole_or_one_member_and_served(tmp_path: Path) -> None:
    """`run --scenario FILE` runs every member of a family file, `FILE#member` one of them; `serve FILE` serves every
    member under /<scenario-id>/ and `serve FILE#member` that one at the origin root. A member the family does not
    have is a usage error that names the nearest."""
    from .lab_serve import lab_server

    family = tmp_path / "fam.yaml"
    family.write_text((builtin_root() / "families" / "direct-message.yaml").read_text(encoding="utf-8"), "utf-8")
    listed = a2a_lab("scenarios", "--json", "--scenario", str(family), cwd=tmp_path)
    members = sorted(s["id"] for s in json.loads(listed.stdout)["scenarios"])
    assert len(members) == 4 and "fam/1.0-jsonrpc" in members, members
    one = a2a_lab("scenarios", "--json", "--scenario", f"{family}#1.0-jsonrpc", cwd=tmp_path)
    assert [s["id"] for s in json.loads(one.stdout)["scenarios"]] == ["fam/1.0-jsonrpc"], one.stderr
    wrong = a2a_lab("run", "--scenario", f"{family}#1.0-jsonprc", cwd=tmp_path)
    assert wrong.returncode == 2 and "no such member; did you mean '1.0-jsonrpc'" in wrong.stderr, wrong.stderr
    with lab_server(str(family)) as served:
        for sid in members:
            card = httpx.get(f"{served.url}/{sid}/.well-known/agent-card.json", trust_env=False)
            assert card.status_code == 200, (sid, card.status_code)
        assert "the family" in "".join(served.said) and "4 scenarios under /<scenario-id>/" in "".join(served.said)
    with lab_server(f"{family}#0.3-http-json") as served:
        root = httpx.get(f"{served.url}/.well-known/agent-card.json", trust_env=False)
        assert root.status_code == 200 and "scenario fam/0.3-http-json at the origin root" in "".join(served.said)
