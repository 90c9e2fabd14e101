"""Hostile input, end to end (issue 28, "Hardening II"): the files a user hands a2a-lab (baselines, `--compare` and
merged reports, scenario files, cards) and the bytes a client or a file puts on a console, in JUnit XML and in HTML.

Each case is what the adversarial pass found, run as CI runs it: `a2a-lab` in a subprocess, its exit code and its
streams. The subprocess runs within 1.5 GiB of address space, so that a reader without bounds fails here with a
MemoryError (before, `--baseline /dev/zero` grew to 24 GB) instead of taking the machine down; and within a timeout,
so that one that blocks on a FIFO fails instead of hanging. A test reads a file in this process only once the
subprocess has refused it, so that it fails the same way without the fix."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from a2a_lab.contract import userfile
from a2a_lab.contract.loader import MAX_PAD_TO, ScenarioError, load_file
from a2a_lab.harness.client_judging.baseline import Baseline, BaselineError
from a2a_lab.harness.reports.compare import load_previous
from tests.limited import limited

CLI = [sys.executable, "-m", "a2a_lab.harness.cli"]
ESCAPES_CLIENT = f"{sys.executable} {Path(__file__).parent / 'clients' / 'escapes_client.py'}"
MEMORY = 3 * 512 * 1024 * 1024
#: What a terminal takes for an instruction (tab and newline aside): none may reach a console, an XML or HTML file.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


#: A scenario file of the user's own (`{title}` and `{card}`: more of the card section).
SCENARIO = """\
title: {title}
description: A scenario of the user's own.
spec: A2A 1.0 (test)
card:
{card}  object:
    name: test agent
    description: An agent for a test.
    version: "1.0.0"
    supportedInterfaces: [{{url: "{{base_url}}/rpc", protocolBinding: JSONRPC, protocolVersion: "1.0"}}]
    capabilities: {{}}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills: [{{id: s, name: s, description: s, tags: [t]}}]
"""


def write_scenario(folder: Path, name: str, title: str = "mine", card: str = "") -> Path:
    path = folder / name
    path.write_text(SCENARIO.format(title=title, card=card), encoding="utf-8")
    return path


def a2a_lab(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        limited([*CLI, *args], "RLIMIT_AS", MEMORY, MEMORY), cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`a2a-lab run` of one scenario with a client that makes no call (the files are refused before it starts)."""
    return a2a_lab("run", "--client", "true", "--scenario", "spec/conformant", *args, cwd=cwd)


def refused(proc: subprocess.CompletedProcess[str], *says: str) -> str:
    """The one error of a usage refusal (exit 2): no traceback, every `says` in it."""
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "Error:" not in proc.stderr, proc.stderr
    for text in says:
        assert text in proc.stderr, proc.stderr
    return proc.stderr


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    """A FIFO nobody writes to: reading it would block for ever."""
    path = tmp_path / "fifo.yaml"
    os.mkfifo(path)
    return path


# ============================================================================ baselines and --compare (item 2)


def cpu_seconds(load: Callable[[Path], object], path: Path) -> tuple[float, str]:
    """The CPU time a reader takes to refuse `path` (neighbours on the machine do not stretch it), and its refusal."""
    began = time.process_time()
    with pytest.raises(ValueError) as caught:
        load(path)
    return time.process_time() - began, str(caught.value)


LOADERS: dict[str, Callable[[Path], object]] = {"--baseline": Baseline.load, "--compare": load_previous}


@pytest.mark.parametrize("option", ["--baseline", "--compare"])
def test_dev_zero_is_refused_at_once(option: str, tmp_path: Path) -> None:
    """Before: `--baseline /dev/zero` grew to 24 GB and was killed (exit 137), `--compare` a MemoryError traceback."""
    refused(run(option, "/dev/zero", cwd=tmp_path), "/dev/zero: a character device, not a regular file")
    took, said = cpu_seconds(LOADERS[option], Path("/dev/zero"))  # in this process: only once the CLI refused it
    assert took < 0.01 and said.startswith("/dev/zero: a character device, not a regular file"), (took, said)


@pytest.mark.parametrize("option", ["--baseline", "--compare"])
def test_a_fifo_is_refused_without_waiting_on_it(option: str, fifo: Path, tmp_path: Path) -> None:
    """Before: both hung for ever (here: the timeout)."""
    refused(run(option, str(fifo), cwd=tmp_path), f"{fifo}: a FIFO (named pipe), not a regular file")
    took, said = cpu_seconds(LOADERS[option], fifo)  # in this process: only once the CLI refused it
    assert took < 0.01 and "a FIFO (named pipe), not a regular file" in said, (took, said)


def test_a_report_merge_of_a_fifo_is_refused(fifo: Path, tmp_path: Path) -> None:
    refused(a2a_lab("report", "merge", str(fifo), cwd=tmp_path), "a FIFO (named pipe), not a regular file")


def test_a_run_file_that_is_a_fifo_is_refused(fifo: Path, tmp_path: Path) -> None:
    """Before: `score --run-file FIFO` opened it and hung (nothing is driven, the server is never asked)."""
    refused(
        a2a_lab("score", "--server", "http://127.0.0.1:9", "--run-file", str(fifo), cwd=tmp_path),
        f"{fifo}: a FIFO (named pipe), not a regular file",
    )


def test_fifty_thousand_nested_brackets_exit_2(tmp_path: Path) -> None:
    """Before: a RecursionError traceback and exit 1 (documented: 2)."""
    deep = tmp_path / "deep.yaml"
    deep.write_text("[" * 50_000 + "]" * 50_000, encoding="utf-8")
    refused(run("--baseline", str(deep), cwd=tmp_path), f"{deep}: line 1, column 9: nested more than 8 levels deep")
    took, _ = cpu_seconds(Baseline.load, deep)
    assert took < 1.0, "0.25 s here: the scanner reads some 1 000 characters past the 9th level, then it stops"
    report = tmp_path / "deep.json"
    report.write_text("[" * 50_000 + "]" * 50_000, encoding="utf-8")
    refused(run("--compare", str(report), cwd=tmp_path), f"{report}: nested more than 100 levels deep")


def test_a_report_of_too_many_values_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    """18 MB of `0,`: 9 000 000 values, past the cap, counted without building one (0.1 s here)."""
    many = tmp_path / "many.json"
    many.write_text("[" + "0," * 9_000_000 + "0]", encoding="utf-8")
    refused(run("--compare", str(many), cwd=tmp_path), f"{many}: more than {userfile.REPORT.max_values} values")
    took, said = cpu_seconds(load_previous, many)  # in this process: only once the CLI refused it
    assert took < 1.0 and f"more than {userfile.REPORT.max_values} values" in said, (took, said)


def test_many_keys_are_refused_by_the_value_cap_in_a_second(tmp_path: Path) -> None:
    """Before: 200 000 keys took 35 s and 710 MB. Under the size cap, the value cap stops the reading at 20 000 (about
    1 s of CPU here: measured as CPU time, which neighbours on the machine do not stretch)."""
    keys = tmp_path / "keys.yaml"
    keys.write_text("".join(f"k{i}: v\n" for i in range(60_000)), encoding="utf-8")
    assert keys.stat().st_size < userfile.BASELINE.max_bytes
    refused(run("--baseline", str(keys), cwd=tmp_path), f"more than {userfile.BASELINE.max_values} values")
    began = time.process_time()
    with pytest.raises(BaselineError, match=rf"more than {userfile.BASELINE.max_values} values") as caught:
        Baseline.load(keys)
    took = time.process_time() - began
    assert str(caught.value).startswith(f"{keys}: line ") and took < 3.0, (caught.value, took)


def test_a_large_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """Before: a 50 MB baseline took 27 s. Its size is checked first (the file is sparse here)."""
    big = tmp_path / "big.yaml"
    with big.open("wb") as fh:
        fh.truncate(50 * 1024 * 1024)
    refused(run("--baseline", str(big), cwd=tmp_path), "a2a-lab reads at most")
    began = time.process_time()
    with pytest.raises(BaselineError, match=f"the file is {50 * 1024 * 1024} bytes; a2a-lab reads at most"):
        Baseline.load(big)
    assert time.process_time() - began < 0.1


@pytest.mark.parametrize("which", ["card", "--jwks"])
def test_card_check_refuses_a_device_a_fifo_and_deep_nesting(which: str, fifo: Path, tmp_path: Path) -> None:
    """`card check` read its file (and its --jwks) whole after a stat: /dev/zero (size 0) without end, a FIFO for
    ever, 30 000 nested brackets to a RecursionError."""
    card = tmp_path / "card.json"
    card.write_text(json.dumps({"name": "a"}), encoding="utf-8")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 30_000 + "]" * 30_000, encoding="utf-8")  # within the default --max-bytes (64 KiB)
    for path, says in (
        ("/dev/zero", "a character device, not a regular file"),
        (str(fifo), "a FIFO (named pipe), not a regular file"),
        (str(deep), "nested more than"),
    ):
        args = [path] if which == "card" else [str(card), "--jwks", path]
        refused(a2a_lab("card", "check", *args, cwd=tmp_path), f"{path}: {says}")


@pytest.mark.parametrize("size", ["0", str(userfile.CARD.max_bytes + 1)])
def test_card_check_max_bytes_is_bounded(size: str, tmp_path: Path) -> None:
    refused(a2a_lab("card", "check", "card.json", "--max-bytes", size, cwd=tmp_path), "--max-bytes")


def test_the_reference_clients_tls_files_are_checked_before_openssl_reads_them(fifo: Path, tmp_path: Path) -> None:
    """OpenSSL would block on a FIFO given as --ca-file (and a file it cannot read was a traceback)."""
    refused(
        a2a_lab("client", "https://127.0.0.1:9/", "--ca-file", str(fifo), cwd=tmp_path),
        f"{fifo}: a FIFO (named pipe), not a regular file",
    )


# ============================================================================ error wording (item 8)

SHADOW = "root:$6$s3cr3tsalt$planted-password-hash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"


@pytest.mark.parametrize(
    "content",
    [SHADOW, 'reason: "planted-password-hash\n  \tnext', "- [planted-password-hash\n"],
    ids=["shadow", "bad-quote-and-tab", "unclosed"],
)
def test_a_baseline_it_cannot_parse_is_never_quoted(content: str, tmp_path: Path) -> None:
    """Before: a baseline symlinked to /etc/shadow printed its first line, a password hash, in the error."""
    target = tmp_path / "secret"
    target.write_text(content, encoding="utf-8")
    link = tmp_path / "baseline.yaml"
    link.symlink_to(target)
    said = refused(run("--baseline", str(link), cwd=tmp_path), f"{link}: line ")
    assert "planted-password-hash" not in said and "s3cr3t" not in said, said


def test_an_invalid_utf8_baseline_names_the_file_and_the_line(tmp_path: Path) -> None:
    """Before: `'utf-8' codec can't decode byte 0xff in position 0`, and no file."""
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"spec/conformant:\n  '*': \xff\xfe\n")
    refused(run("--baseline", str(binary), cwd=tmp_path), f"{binary}: line 2: the file is not UTF-8 text")


@pytest.mark.parametrize("command", ["run", "show"])
def test_a_scenario_path_that_is_a_fifo_or_a_directory_says_so(command: str, fifo: Path, tmp_path: Path) -> None:
    """Before: both were reported as "no such file"."""
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    # `run --scenario FOLDER` runs the scenario files in it; `scenarios show` shows one file.
    folder_says = "the folder holds no scenario file" if command == "run" else "a directory, not a scenario file"
    for path, says in ((fifo, "a FIFO (named pipe), not a regular file"), (folder, folder_says)):
        if command == "run":
            args = ["run", "--client", "true", "--scenario", str(path)]
        else:
            args = ["scenarios", "show", str(path)]
        said = refused(a2a_lab(*args, cwd=tmp_path), f"{path}", says)
        assert "no such file" not in said


# ============================================================================ size options (item 5)


def test_pad_to_three_billion_is_refused_at_load_with_the_file_the_field_and_the_most(tmp_path: Path) -> None:
    """Before: 2.5 GB at start-up, then a MemoryError; under `run --scenario`, "ERROR harness error: MemoryError" and
    "the client never started: it exited None"."""
    path = write_scenario(tmp_path, "padded.yaml", card="  pad_to: 3000000000\n")
    with pytest.raises(ScenarioError) as caught:
        load_file(path)
    error = caught.value
    assert error.source == str(path) and error.field_path == "card.pad_to", error
    assert error.problem == f"3000000000 is more than {MAX_PAD_TO}, the most a2a-lab allows here"
    assert "16 MiB" in error.hint
    said = refused(
        a2a_lab("run", "--client", "true", "--scenario", str(path), cwd=tmp_path),
        f"{path}, line 5, column 11: card.pad_to: ",
        "hint:",
    )
    assert "MemoryError" not in said and "never started" not in said


# ============================================================================ what is shown (items 4 and 6)


@pytest.fixture(scope="module")
def escapes_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """A client that writes terminal escapes on stderr, run with every report."""
    out = tmp_path_factory.mktemp("escapes")
    proc = a2a_lab(
        "run",
        "--client",
        ESCAPES_CLIENT,
        "--scenario",
        "spec/conformant",
        "--report-dir",
        str(out / "reports"),
        "-v",
        cwd=out,
    )
    return proc, out / "reports"


def test_control_characters_in_a_clients_stderr_leave_the_junit_file_valid_xml(
    escapes_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    """Before: "not well-formed (invalid token)" from ANSI colours alone. The JSON report keeps the text as it was."""
    _, reports = escapes_run
    root = ET.parse(reports / "junit.xml").getroot()
    [error] = root.iter("error")
    assert error.text is not None and r"\x1b[31mred\x1b[0m" in error.text and r"csi\x9b31m nul\x00" in error.text
    assert not CONTROL.search(error.text)
    [scenario] = json.loads((reports / "report.json").read_text(encoding="utf-8"))["scenarios"]
    assert "\x1b[31mred\x1b[0m" in scenario["client"]["stderr_tail"], "JSON as it is"


def test_control_characters_in_a_clients_stderr_reach_the_console_visibly(
    escapes_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    """Before: clear screen, window title, hyperlink, BEL, CSI and NUL reached the terminal as they were."""
    proc, _ = escapes_run
    assert proc.returncode == 2 and "the client never started" in proc.stderr, proc.stderr
    assert not CONTROL.search(proc.stdout + proc.stderr), repr(proc.stderr)
    for shown in (r"\x1b[2J\x1b[Hcleared", r"\x1b]0;a window title\x07", r"\x1b]8;;http://link.invalid/\x1b\a"):
        assert shown in proc.stderr, proc.stderr
    # A carriage return ends a line of the tail (str.splitlines): what it would have hidden stays on its own line.
    assert "| bell\\x07 csi\\x9b31m nul\\x00 del\\x7f hidden\n    | shown\n" in proc.stderr
    assert "raw \ufffd2J byte" in proc.stderr, "a byte that is not UTF-8 is read as U+FFFD"


def test_control_characters_in_a_clients_stderr_are_visible_in_the_html(
    escapes_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    """Before: entity-escaped, but the raw ESC bytes were kept."""
    _, reports = escapes_run
    page = (reports / "index.html").read_text(encoding="utf-8")
    assert not CONTROL.search(page)
    assert r"\x1b[31mred\x1b[0m" in page and r"\x1b]8;;http://link.invalid/" in page


def test_a_scenario_title_with_escapes_is_shown_escaped(tmp_path: Path) -> None:
    """Before: `scenarios show` printed a title's OSC 0 (window title) and clear screen as they were."""
    path = write_scenario(tmp_path, "titled.yaml", title='"\\e]0;pwned\\a\\e[2Jmine"')
    for args in (["scenarios", "show", str(path)], ["scenarios", "--scenario", str(path)]):
        proc = a2a_lab(*args, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert r"\x1b]0;pwned\x07\x1b[2J" in proc.stdout and not CONTROL.search(proc.stdout), repr(proc.stdout)


def test_baseline_reasons_with_escapes_are_shown_escaped_under_run_v(tmp_path: Path) -> None:
    """Before: `run -v` printed a baseline's reasons as they were: its `*` entry (excusing a client that made no call)
    and an entry with nothing to excuse."""
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text(
        'spec/conformant:\n  "*": "\\e[2Jthe screen"\n  CARD-DISCOVERY: "\\e]8;;http://x.invalid/\\e\\\\link\\a"\n',
        encoding="utf-8",
    )
    proc = a2a_lab(
        "run", "--client", "true", "--scenario", "spec/conformant", "--baseline", str(baseline), "-v", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert r"expected failure (baseline): \x1b[2Jthe screen" in proc.stdout, proc.stdout
    assert r"listed as an expected failure (\x1b]8;;http://x.invalid/\x1b\link\x07)" in proc.stdout, proc.stdout
    assert not CONTROL.search(proc.stdout + proc.stderr), repr(proc.stdout)
