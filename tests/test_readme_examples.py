"""The shell examples of the README and of every page of the docs site, run as written: every command of every
```sh / ```bash / ```console block, page by page, in document order, each page in a temporary directory of its own
(so a file one example writes is the file a later one on the same page reads), through `bash -e -c` with this
environment's `a2a-lab` first on PATH, against the exit code the page states or implies.

A command is run unless a prefix of it is listed in NOT_RUN with the reason: a new example runs by default, and a
skip is a decision someone wrote down. A ```python or ```yaml block whose first line names a file (`# my-quirk.yaml`)
is that file: it is written into the page's directory before the page's commands run, so `pytest test_my_client.py`
or `--scenario my-quirk.yaml` after it runs what the page shows. One rewrite is made, for `a2a-lab serve`: the
examples use port 8000, and tests bind none of their own, so a `serve` line runs with `--port 0` in the background
(until the next `serve` line of the page, as a person would stop one server to start another), its printed address
and admin token are read, and the example's port in the commands after it stands for the port the server bound.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from .background import Background

ROOT = Path(__file__).resolve().parent.parent
#: Pages whose examples another test runs, its own way: {a folder or a page under docs/: why}.
PAGES_RUN_ELSEWHERE = {
    "tutorials": "each tutorial is followed as one script, its `cd` and heredocs kept, by tests/test_tutorials.py",
    "reference/cli.md": "generated from every command's --help, whose examples tests/harness/test_cli_examples.py "
    "runs (against servers it starts, with the programs they name stood in for)",
}


def _run_elsewhere(page: Path) -> bool:
    relative = page.relative_to(ROOT / "docs")
    return relative.parts[0] in PAGES_RUN_ELSEWHERE or relative.as_posix() in PAGES_RUN_ELSEWHERE


#: The README and every page of the docs site, by path from the root.
DOCUMENTS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if not _run_elsewhere(p))]

#: Fenced block languages whose lines are commands; blocks in LANGUAGES_NOT_RUN are not shell.
SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}
LANGUAGES_NOT_RUN = {
    "yaml": "configuration, a scenario or a baseline (written as a file when its first line names one)",
    "python": "a pytest example (written as a file when its first line names one, and run by a shell line), a loop "
    "client (tests/harness/test_loop.py runs it) or an in-process client (tests/harness/test_inprocess.py runs it)",
    "javascript": "a loop client (tests/harness/test_loop.py runs it)",
    "text": "output shown",
    "diff": "a change to a file, shown",
    "": "a transcript or a folder tree",
}
#: The first line of a block that is a file: `# name.ext`.
FILE_NAME = re.compile(r"# ([\w.-]+\.(?:py|ya?ml|json))")

WHOLE_CATALOGUE = "runs the whole catalogue (tests/test_catalogue_reference_client.py covers it)"
#: {command prefix: why the test does not run it}.
NOT_RUN: dict[str, str] = {
    "pip install": "installs packages (tests/test_packaging.py builds and installs the project)",
    "docker build": "no container runtime here (tests/test_packaging.py checks what the image installs)",
    "a2a-lab run --client-mode loop": WHOLE_CATALOGUE,
    "a2a-lab run -j auto --client-mode loop": WHOLE_CATALOGUE,
    "a2a-lab card check card.json": "needs your own card.json and keys.json, which no example writes "
    "(tests/harness/test_cardcheck.py covers --jwks)",
    "docker compose": "no container runtime here (tests/test_compose.py checks the files and runs the services' "
    "command lines)",
    "a2a-lab proxy": "serves until Ctrl-C (tests/harness/test_proxy.py runs it with a real client, SIGINT and --out)",
    "a2a-lab ui": "serves until Ctrl-C (tests/ui/ runs the app on a real uvicorn and drives it in chromium)",
    "python docs/ui/shoot.py": "rewrites the docs' screenshots (tests/ui/test_browser.py drives the same pages)",
    "a2a-lab client http://127.0.0.1:8780": "talks to the proxy of the example before, which is not run",
    "a2a-lab run --scenario seen.yaml": "replays the proxy's --out, which the example before does not run",
    "a2a-lab record --from-har": "needs a HAR capture of your own (tests/harness/test_proxy.py writes one)",
    "python -m a2a_lab.harness.proxy.matrix": "needs the servers it names running "
    "(tests/harness/test_proxy_matrix.py runs a 2 x 2 matrix)",
    "python tests/peers/scorecard.py": "runs six real clients over the whole catalogue (~3.5 min) and rewrites the "
    "pins and docs/reference/clients.md (tests/peers/test_scorecard_pins.py runs them)",
}


@dataclass(frozen=True)
class Expected:
    code: int
    why: str
    output: str | None = None  # a pattern stdout + stderr must contain


#: {command prefix: what the page states or implies}; every other command run must exit 0.
EXPECTED: dict[str, Expected] = {
    "a2a-lab run --client 'my-client --card {card_url}'": Expected(
        2, "the placeholder client is not on PATH: a usage error naming it, once the options parsed", "'my-client'"
    ),
    "curl -s localhost:8000/api/a2a": Expected(
        0, "the quirk: method not found for the method its card advertises", '"code":-32601'
    ),
    "curl -s localhost:8000/_lab/journal": Expected(0, "the token `serve` printed opens the journal", '"entries"'),
    "a2a-lab probe": Expected(
        1, "the server served above is the advertised-method-not-found quirk: SEND-MESSAGE fails"
    ),
    "a2a-lab record": Expected(0, "written", "recorded .* to "),
    "a2a-lab client": Expected(1, "the replay answers with the recorded error", "-32601"),
}
SERVE = "a2a-lab serve "
EXPORT = re.compile(r"export ([A-Z_][A-Z0-9_]*)=\S.*")
TIMEOUT = 60


def _blocks(text: str) -> list[tuple[str, str]]:
    """Every fenced block of a page: (language, body)."""
    return re.findall(r"^```(\S*)\n(.*?)^```", text, re.M | re.S)


def shell_commands(text: str) -> Iterator[str]:
    """Every command of a page's shell blocks, in order: a line, with its `\\` continuations."""
    for lang, body in _blocks(text):
        if lang not in SHELL_LANGUAGES:
            assert lang in LANGUAGES_NOT_RUN, f"a ```{lang} block: add it to SHELL_LANGUAGES or say why not"
            continue
        pending = ""
        for line in body.splitlines():
            if lang == "console":
                if not line.startswith("$ ") and not pending:
                    continue  # output shown in the example
                line = line.removeprefix("$ ") if not pending else line
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                continue
            pending += line
            if line.endswith("\\"):
                pending += "\n"
                continue
            yield pending
            pending = ""
        assert not pending, f"a continuation line ends a block: {pending!r}"


def files_shown(text: str) -> dict[str, str]:
    """The blocks of a page that are files, by name: a block whose first line is `# name.ext`."""
    files: dict[str, str] = {}
    for lang, body in _blocks(text):
        first = body.split("\n", 1)[0]
        if lang not in SHELL_LANGUAGES and (named := FILE_NAME.fullmatch(first)):
            assert named.group(1) not in files, f"two blocks of one page are the file {named.group(1)}"
            files[named.group(1)] = body
    return files


def _name(document: Path) -> str:
    return document.relative_to(ROOT).as_posix()


#: {page: its commands, in order}, for every page with at least one.
PAGES = {_name(d): cmds for d in DOCUMENTS if (cmds := list(shell_commands(d.read_text(encoding="utf-8"))))}
COMMANDS = [c for commands in PAGES.values() for c in commands]


def _listed(command: str, table: Mapping[str, object]) -> str | None:
    return next((prefix for prefix in table if command.startswith(prefix)), None)


class Server:
    """A page's `serve` line in the background, on a free port; its address and admin token as it printed them."""

    def __init__(self, command: str, cwd: Path, env: dict[str, str]) -> None:
        found = re.search(r"--port (\d+)", command)
        assert found, f"a serve example names its port: {command!r}"
        self.readme_port = found.group(1)
        self.port = self.token = ""
        #: The token the page exported for the server (A2A_LAB_ADMIN_TOKEN): it then prints none.
        self.given_token = env.get("A2A_LAB_ADMIN_TOKEN", "")
        self.running = Background(command.replace(found.group(0), "--port 0"), cwd, env, self._read, TIMEOUT)

    def _read(self, line: str) -> bool:
        if address := re.search(r" on https?://127\.0\.0\.1:(\d+) ", line):
            self.port = address.group(1)
        if token := re.search(r"generated token .*: Authorization: Bearer (\S+)", line):
            self.token = token.group(1)
        elif self.port and self.given_token:
            self.token = self.given_token
        return bool(self.port and self.token)

    def stop(self) -> None:
        self.running.stop()


def test_every_listed_prefix_names_a_command_of_a_page() -> None:
    tables: tuple[Mapping[str, object], ...] = (NOT_RUN, EXPECTED)
    for table in tables:
        stale = [prefix for prefix in table if not any(c.startswith(prefix) for c in COMMANDS)]
        assert not stale, f"no command of the README or the docs starts with {stale}: update the list"
    assert not [p for p in EXPECTED if _listed(p, NOT_RUN)], "a command is both expected and not run"


def test_the_readme_has_examples_that_run() -> None:
    assert [c for c in PAGES["README.md"] if not _listed(c, NOT_RUN)], "the README runs no example"


@pytest.mark.parametrize("page", [p for p, commands in PAGES.items() if any(not _listed(c, NOT_RUN) for c in commands)])
def test_examples_run_as_written(page: str, tmp_path: Path) -> None:
    for name, body in files_shown((ROOT / page).read_text(encoding="utf-8")).items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("A2A_LAB_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    server: Server | None = None
    ran = 0
    try:
        for command in PAGES[page]:
            if _listed(command, NOT_RUN):
                continue
            ran += 1
            if command.startswith(SERVE):
                if server is not None:
                    server.stop()
                server = Server(command, tmp_path, env)
                continue
            if exported := EXPORT.fullmatch(command):
                # A variable the page exports for the commands after it (a terminal keeps it; each command here
                # runs in a shell of its own): its value as bash computes it.
                done = subprocess.run(
                    ["bash", "-e", "-c", f'{command}; printf %s "${exported.group(1)}"'],
                    cwd=tmp_path,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=TIMEOUT,
                )
                assert done.returncode == 0 and done.stdout, f"{page}: example {command!r}: {done.stderr[-3000:]}"
                env[exported.group(1)] = done.stdout
                continue
            line = command
            if server is not None:
                line = re.sub(rf"(localhost|127\.0\.0\.1):{server.readme_port}\b", rf"\1:{server.port}", line)
            done = subprocess.run(
                ["bash", "-e", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT
            )
            prefix = _listed(command, EXPECTED)
            expected = EXPECTED[prefix] if prefix else Expected(0, "an example that works")
            said = done.stdout + done.stderr
            assert done.returncode == expected.code, (
                f"{page}: example {command!r} exited {done.returncode}, expected {expected.code} ({expected.why}):\n"
                f"{said[-3000:]}"
            )
            if expected.output is not None:
                assert re.search(expected.output, said), f"{command!r} did not say {expected.output!r}:\n{said[-3000:]}"
    finally:
        if server is not None:
            server.stop()
    assert ran, f"no example of {page} ran"


@pytest.mark.parametrize(
    ("page", "command"), [(p, c) for p, commands in PAGES.items() for c in commands if _listed(c, NOT_RUN)]
)
def test_example_not_run(page: str, command: str) -> None:
    """One skipped test per command not run, with its reason: the decision shows in every test report."""
    prefix = _listed(command, NOT_RUN)
    assert prefix is not None
    pytest.skip(NOT_RUN[prefix])
