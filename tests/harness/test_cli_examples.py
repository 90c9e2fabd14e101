"""Every example of every `a2a-lab COMMAND --help`, taken from the help as printed: each is parsed by the real parser,
and run for real, in the order its help shows them, in a folder of its own holding the files the examples name (a
client of yours: here the reference client behind the name; your scenario files: copies of catalogue ones).

An example runs unless it is listed in NOT_RUN with the reason, so a new example runs by default. What is rewritten
to run here, and why, is a table too:

* Servers: the addresses an example names stand for a server this test starts on a free loopback port (a scenario
  for `client`, `probe`, `card`, `record`, `proxy`: SINGLE; the whole catalogue with its admin token for `drive`
  and `score`: SHARED); the port an example serves on (8000, 8780) becomes a free one, `--host 0.0.0.0` loopback (a
  test listens on no other interface).
* NARROWED: an example over the whole catalogue, or for minutes, runs on a few scenarios, or cases, by options appended
  to it (the example's own words are kept).
* Commands that serve until Ctrl-C (`serve`, `proxy`: BACKGROUND) get SIGINT once they serve, and must exit 0 (their
  help says so); meanwhile the help's other lines run (the client its help points at the proxy, as written).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path

import pytest

from a2a_lab.contract import handshake
from a2a_lab.contract.catalogue import builtin_root
from a2a_lab.harness.cli import build_parser
from tests.harness.lab_serve import ADMIN_TOKEN_ENV, Served, lab_server

TIMEOUT = 180


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def examples_in(help_text: str) -> list[str]:
    """The lines under `examples:` of a help text, as shown (without their indent)."""
    found = re.search(r"^examples:\n((?:  .*\n?)+)", help_text, re.M)
    return [line.strip() for line in found.group(1).splitlines()] if found else []


#: {command: its examples as `a2a-lab COMMAND --help` prints them}.
EXAMPLES = {name: examples_in(sub.format_help()) for name, sub in _subparsers().items()}
ALL = [(name, line) for name, lines in EXAMPLES.items() for line in lines if line.startswith("a2a-lab ")]


def command_of(example: str) -> str:
    """The example without its `# comment` (after two spaces, as the helps write it)."""
    return example.split("  #", 1)[0].rstrip()


#: {example, without its comment: why the test only parses it}.
NOT_RUN: dict[str, str] = {
    "a2a-lab card check https://agent.example/.well-known/agent-card.json --json --jwks jwks.json": "needs a signed "
    "card and the key set that signed it (tests/harness/test_cardcheck.py verifies signatures with --jwks)",
    "a2a-lab drive --server http://server:8000 --webhook-host example-client --run-file /reports/run.json": "the "
    "docker-compose form: the hosts server and example-client and the /reports volume are compose's "
    "(tests/test_compose.py runs the services' command lines)",
    "a2a-lab record --from-har session.har --out ci/vendor-x.yaml": "needs a HAR capture of a client's session "
    "(tests/harness/test_proxy.py writes one and records it)",
    **dict.fromkeys(
        [
            "a2a-lab acts run A2A/tests/acts/suite.acts.yaml --server http://127.0.0.1:8000 --json reports/",
            "a2a-lab acts run core-operations.acts.yaml --server http://127.0.0.1:8000 --binding jsonrpc --level must",
            "a2a-lab acts run suite.acts.yaml --server http://127.0.0.1:8000 --test 'CORE-*' --tag streaming "
            "--junit acts.xml",
            "a2a-lab acts run client-parsing.acts.yaml --client 'python3 my_client.py {card_url}' --json acts.json",
        ],
        "needs the ACTS files of the a2aproject/A2A repository, which a2a-lab does not ship "
        "(tests/harness/acts/test_acts.py runs `acts run` on files of its own, server and client tests)",
    ),
}

#: {example, without its comment: the options appended to run it here}.
NARROWED: dict[str, list[str]] = {
    "a2a-lab run": ["--scenario", "spec/conformant", "--scenario", "spec/tck-sut"],
    "a2a-lab run --client 'node my-client.js' -j 2": ["--scenario", "spec/conformant"],
    "a2a-lab run --client 'my-client --card {card_url}' --scenario 'quirks/*' --junit reports/junit.xml": [
        "--shard",
        "1/38",
    ],
    "a2a-lab run --client ./bin/client --baseline a2a-baseline.yaml --json - > report.json": [
        "--scenario",
        "spec/conformant",
    ],
    "a2a-lab drive --server http://lab:8000 --client './bin/client' --run-file run.json": [
        "--scenario",
        "spec/conformant",
    ],
    "a2a-lab fuzz --client 'python3 my_client.py {card_url}' --budget 120s --seed 7": ["--budget", "1"],
    "a2a-lab fuzz --client builtin --budget 300 --scenario streaming/v1-stream -j 2 --json fuzz.json": [
        "--budget",
        "1",
    ],
}

#: {command: what runs before its examples, in its folder: what the examples read that no example of its writes}.
SETUP: dict[str, list[str]] = {
    "card": ["curl -sf http://127.0.0.1:8000/.well-known/agent-card.json > agent-card.json"],
    "score": ["a2a-lab drive --server {shared} --client builtin --scenario spec/conformant --run-file run.json"],
    "report": [
        "a2a-lab run --scenario spec/conformant --json shard-1/report.json",
        "a2a-lab run --scenario spec/tck-sut --json shard-2/report.json",
    ],
}

#: The addresses examples name, and the server each stands for: a single scenario, or the shared catalogue.
SINGLE = ("http://127.0.0.1:8000", "https://agent.example", "http://127.0.0.1:9999")
SHARED = ("http://lab:8000", "http://server:8000")
SERVED_SCENARIO = "spec/conformant"


def _python_client(path: Path, argv: str = "sys.argv[1:]") -> None:
    """A client of the user's, as the examples name it: here the reference client behind that name."""
    path.write_text(
        f"#!{sys.executable}\nimport os, sys\n"
        f"os.execv(sys.executable, [sys.executable, '-m', 'a2a_lab.harness.clients.refclient', *{argv}])\n",
        encoding="utf-8",
    )
    path.chmod(0o755)


def workspace(folder: Path, command: str) -> Path:
    """The files the examples name, in `folder`; the folder of programs to put first on PATH."""
    conformant = (builtin_root() / "spec" / "conformant.yaml").read_text(encoding="utf-8")
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    _python_client(bin_dir / "client")
    on_path = folder / "on-path"
    on_path.mkdir()
    _python_client(on_path / "my-client", "[a for a in sys.argv[1:] if a != '--card']")
    _python_client(folder / "my_client.py")
    _python_client(folder / "my-client")  # with no argument, the card URL is A2A_LAB_CARD_URL's
    (folder / "my-client.js").write_text(
        "const r = require('child_process').spawnSync("
        f"{sys.executable!r}, ['-m', 'a2a_lab.harness.clients.refclient', ...process.argv.slice(2)], "
        "{stdio: 'inherit'});\n"
        "process.exit(r.status === null ? 1 : r.status);\n",
        encoding="utf-8",
    )
    files = {
        "recorded.yaml": conformant,
        "my-scenarios/mine.yaml": conformant,
        "ci/more/other.yaml": conformant,
        "fuzz-findings/client-survives-1.yaml": conformant,  # a finding, as `fuzz` writes it
        "a2a-baseline.yaml": 'spec/conformant:\n  "*": a known failure of yours\n',
    }
    if command != "record":  # record's first example writes it
        files["ci/vendor-x.yaml"] = conformant
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return on_path


class Servers:
    """The servers the examples' addresses stand for, started when first named."""

    def __init__(self, stack: ExitStack) -> None:
        self.stack = stack
        self.single: Served | None = None
        self.shared: Served | None = None
        #: The port a serving example listens on (for the lines that reach it, e.g. the client of the proxy).
        self.port = _free_port()

    def rewrite(self, line: str) -> str:
        if any(a in line for a in SINGLE):
            if self.single is None:
                self.single = self.stack.enter_context(lab_server(SERVED_SCENARIO))
            for address in SINGLE:
                line = line.replace(address, self.single.url)
        if any(a in line for a in SHARED) or "{shared}" in line:
            if self.shared is None:
                self.shared = self.stack.enter_context(lab_server())
            for address in (*SHARED, "{shared}"):
                line = line.replace(address, self.shared.url)
        line = re.sub(r"(--port |127\.0\.0\.1:)(8000|8780)\b", rf"\g<1>{self.port}", line)
        return line.replace("--host 0.0.0.0", "--host 127.0.0.1")

    def env(self) -> dict[str, str]:
        return {ADMIN_TOKEN_ENV: self.shared.admin_token} if self.shared is not None else {}


def _environment(on_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("A2A_LAB_")}
    env["PATH"] = os.pathsep.join([str(on_path), str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def _shell(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-e", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _in_background(line: str, ready: str, meanwhile: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """A command that serves until Ctrl-C: started; once it says `ready`, the `meanwhile` lines run (each must exit 0);
    then it gets SIGINT. Its exit code and what it said."""
    proc = subprocess.Popen(["bash", "-e", "-c", "exec " + line], cwd=cwd, env=env, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    said = []
    try:
        for said_line in proc.stderr:
            said.append(said_line)
            if ready in said_line:
                for other in meanwhile:
                    done = _shell(other, cwd, env)
                    assert done.returncode == 0, f"`{other}` beside `{line}`: {done.stdout}{done.stderr}"
                proc.send_signal(signal.SIGINT)
                break
        # The exit first, then the rest of what it said: a server that ignored the Ctrl-C fails here, in TIMEOUT,
        # instead of holding the read of its stderr open for ever.
        code = proc.wait(TIMEOUT)
        said.append(proc.stderr.read())
        return code, "".join(said)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


#: {how an example that serves until Ctrl-C begins: what it says once it serves}.
BACKGROUND = {
    "a2a-lab serve ": "the admin API at /_lab/ requires",
    "a2a-lab proxy ": "client card URL: ",
    "a2a-lab ui": "?token=",
}


def _run_example(example: str, others: list[str], servers: Servers, cwd: Path, env: dict[str, str]) -> None:
    """One example, rewritten and narrowed as the tables say; `others`: its help's lines that are no a2a-lab command
    (a client pointed at the proxy), run while an example that serves does."""
    line = servers.rewrite(command_of(example))
    extra = NARROWED.get(command_of(example), [])
    if extra:
        line = f"{line} {shlex.join(extra)}"
    run_env = {**env, **servers.env()}
    ready = next((said for begins, said in BACKGROUND.items() if example.startswith(begins)), None)
    if ready is not None:
        if "--port" not in line:
            line += f" --port {servers.port}"  # the default (8000, or a free one the test cannot know) may be taken
        code, said = _in_background(line, ready, [servers.rewrite(command_of(o)) for o in others], cwd, run_env)
    else:
        done = _shell(line, cwd, run_env)
        code, said = done.returncode, done.stdout + done.stderr
    assert code == 0, f"`{example}` (run as `{line}`) exited {code}:\n{said[-4000:]}"
    assert "Traceback" not in said, said


@pytest.mark.parametrize("command", sorted(EXAMPLES))
def test_the_examples_of_each_help_run_as_written(command: str, tmp_path: Path) -> None:
    runnable = [e for e in EXAMPLES[command] if e.startswith("a2a-lab ") and command_of(e) not in NOT_RUN]
    if not runnable:
        pytest.skip(f"every example of `{command} --help` is in NOT_RUN")
    if any("node " in e for e in runnable) and shutil.which("node") is None:
        pytest.skip("an example runs Node.js, which is not installed here")
    env = _environment(workspace(tmp_path, command))
    with ExitStack() as stack:
        servers = Servers(stack)
        for setup in SETUP.get(command, []):
            done = _shell(servers.rewrite(setup), tmp_path, {**env, **servers.env()})
            assert done.returncode == 0, f"setup `{setup}`: {done.stdout}{done.stderr}"
        others = [e for e in EXAMPLES[command] if not e.startswith("a2a-lab ")]
        for example in runnable:
            _run_example(example, others, servers, tmp_path, env)


def _argv(example: str) -> list[str]:
    """The arguments an example gives `a2a-lab` (its comment and any shell redirection left out)."""
    words = shlex.split(example, comments=True)
    return words[1 : words.index(">")] if ">" in words else words[1:]


@pytest.mark.parametrize("example", [line for _, line in ALL])
def test_every_example_parses(example: str) -> None:
    try:
        build_parser().parse_args(_argv(example))
    except SystemExit as exc:
        pytest.fail(f"`{example}` does not parse (exit {exc.code})")


@pytest.mark.parametrize("example", [line for _, line in ALL if command_of(line) in NOT_RUN])
def test_example_not_run(example: str) -> None:
    """One skipped test per example only parsed, with its reason: the decision shows in every test report."""
    pytest.skip(NOT_RUN[command_of(example)])


def test_every_command_has_examples_and_the_tables_name_real_ones() -> None:
    assert all(EXAMPLES.values()), [name for name, lines in EXAMPLES.items() if not lines]
    shown = {command_of(line) for _, line in ALL}
    for table in (NOT_RUN, NARROWED):
        stale = sorted(set(table) - shown)
        assert not stale, f"no example reads {stale}: update the table"
    assert not set(NOT_RUN) & set(NARROWED)


def test_variables_the_examples_set_are_the_handshakes() -> None:
    named = {v for lines in EXAMPLES.values() for line in lines for v in re.findall(r"\b(A2A_[A-Z_]+)=", line)}
    known = {getattr(handshake, n) for n in dir(handshake) if n.startswith("ENV_")}
    assert named and named <= known, named - known
