"""`a2a-lab` loads only what the command it runs needs: building the parser, parsing any command's arguments, its
`--help`, `a2a-lab --help`, `--version` and a usage error load no server, no HTTP or serving library, and none of
the judging rooms' machinery (each command imports what it runs inside its function). The test suite starts well
over a thousand `a2a-lab` processes, and every user's start-up pays the same."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from a2a_lab.harness.cli.entry import commands

#: What no parse, help or usage error may load: the server, the HTTP and serving libraries, and what runs a command
#: (the client runner, the ACTS runner, its document reader and its clients, the reference client's webhook, the
#: proxy's session, the probe, the UI, the report writers).
HEAVY = (
    "a2a_lab.server",
    "a2a_lab.harness.client_judging.runner",
    "a2a_lab.harness.client_judging.checks",
    "a2a_lab.harness.acts.runner",
    "a2a_lab.harness.acts.clients",
    "a2a_lab.harness.acts.exchange",
    "a2a_lab.harness.acts.document",
    "a2a_lab.harness.proxy.session",
    "a2a_lab.harness.server_judging.probe",
    "a2a_lab.harness.server_judging.record",
    "a2a_lab.harness.ui",
    "a2a_lab.harness.reports.html",
    "a2a_lab.harness.clients.refclient.client",
    "a2a_lab.harness.clients.refclient.webhook",
    "httpx",
    "starlette",
    "sse_starlette",
    "uvicorn",
    "grpc",
    "cryptography",
    "hypothesis",
)

#: What each probe starts with, in a fresh interpreter: a way to run what exits or prints, quietly.
_PREAMBLE = """
import contextlib, io, json, shlex, sys
from a2a_lab.harness.cli.entry import build_parser, commands, main

def quietly(call):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return call()
        except SystemExit as exc:
            return exc.code
"""
#: What each probe ends with: the modules of the list given (argv[1]) that were loaded, with what it saw (`seen`).
_REPORT = """
listed = json.loads(sys.argv[1])
seen["heavy"] = sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in listed))
print(json.dumps(seen))
"""
#: Every command's examples parsed (up to a shell redirection), every `--help`, the top level's, `--version`, and
#: usage errors through main(): a client that is no program, an ACTS run with nothing to run, a bad declaration.
_EVERY_PARSE = """
parser = build_parser()
seen = {"parsed": 0, "codes": {}}
for command in commands():
    for example in command.examples:
        argv = shlex.split(example.split("  #")[0])
        shell = [i for i, word in enumerate(argv) if word in (">", ">>", "|", "&&", ";")]
        argv = argv[: shell[0]] if shell else argv
        if argv[0] == "a2a-lab":
            parser.parse_args(argv[1:])
            seen["parsed"] += 1
    seen["codes"][command.name] = quietly(lambda: parser.parse_args([command.name, "--help"]))
seen["codes"]["--help"] = quietly(lambda: build_parser().parse_args(["--help"]))
seen["codes"]["--version"] = quietly(lambda: build_parser().parse_args(["--version"]))
seen["codes"]["usage"] = [
    quietly(lambda: main(argv))
    for argv in (
        ["run", "--client", "no-such-program-here", "--scenario", "no/such"],
        ["acts", "run", "suite.acts.yaml"],
        ["score", "--server", "http://127.0.0.1:9", "--run", "r", "--client-supports", "smoke-signals"],
    )
]
"""


def _probe(script: str, heavy: Sequence[str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _PREAMBLE + script + _REPORT, json.dumps(list(heavy))],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    seen: dict[str, Any] = json.loads(done.stdout)
    return seen


def test_parsing_help_and_usage_errors_load_no_server_http_library_or_room_machinery() -> None:
    seen = _probe(_EVERY_PARSE, HEAVY)
    # What was exercised: the examples of every command parsed, each --help shown, and each usage error refused.
    assert seen["parsed"] >= len(commands())
    assert seen["codes"] == {**{c.name: 0 for c in commands()}, "--help": 0, "--version": 0, "usage": [2, 2, 2]}
    assert seen["heavy"] == []


def test_a_scenario_that_is_not_there_is_refused_without_the_runner_or_the_server() -> None:
    """`a2a-lab run --scenario no/such` (the built-in client, in its loop): the catalogue is loaded to say so, and
    nothing that runs a scenario. The catalogue's signed cards import their keys (cryptography): that one is allowed."""
    script = 'seen = {"code": quietly(lambda: main(["run", "--scenario", "no/such"]))}\n'
    assert _probe(script, [h for h in HEAVY if h != "cryptography"]) == {"code": 2, "heavy": []}


def test_the_probe_sees_a_heavy_module_when_one_is_loaded() -> None:
    """The checks above can fail: the same probe, with what `a2a-lab serve` runs imported first."""
    seen = _probe("import a2a_lab.server.app\n" + _EVERY_PARSE, HEAVY)
    assert "a2a_lab.server.app" in seen["heavy"] and "starlette" in seen["heavy"]
