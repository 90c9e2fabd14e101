"""The real clients' scorecard: run each real A2A client over the whole catalogue and write docs/reference/clients.md.

    python tests/peers/scorecard.py [--peers DIR] [--out docs/reference/clients.md] [--reports DIR] [--label TEXT]
                                    [--client NAME ...] [--scenario GLOB ...] [-j 2] [--rerender] [--pin]
                                    [--zygote]

Each client is one of the drivers in tests/peers/clients/, run by `a2a-lab run --client ... --json FILE -j 2`.
The a2a-sdk 1.3.0 client comes from the test environment (the `test` extra); the others from the cache dir that
tests/peers/install.sh fills (DIR, default ${A2A_LAB_PEERS:-~/.cache/a2a-lab-peers}). A client whose tool is
not installed is skipped with a note in the document. Per client the document gives the outcome counts and every
scenario the client did not PASS, with the checks that missed and their messages (from the JSON report), and
one line of explanation per scenario from tests/peers/clients/explanations.yaml. With --rerender it runs nothing
and writes the document again from the JSON reports kept in --reports (after editing the explanations).

With --pin it also writes each client's verdicts to tests/peers/verdicts/CLIENT.json: per scenario the outcome and
the sorted ids of the checks that missed, which tests/peers/test_scorecard_pins.py compares a fresh run with. A pin
entry may carry `unstable: {reason, allowed}` (written by hand, for a verdict that flips run to run); --pin keeps
that entry, adding the verdict it sees to `allowed`, and lists it so that a stale one gets pruned.
So `python tests/peers/scorecard.py --pin` regenerates docs/reference/clients.md and every pin.

With --zygote, a2a-handler's CLI (called several times per scenario by its driver) is served by a fork server started
for the run, tests/peers/clients/handler_zygote.py: each call forks a process that has imported a2a_handler already,
with the call's own argv, environment, cwd and stdio. tests/peers/test_scorecard_pins.py runs it so and compares it
with the pin, which --pin writes from the CLI run per process (the two cannot be combined).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from a2a_lab.contract.journal_record import EntryKind
from a2a_lab.harness.common.model import REACHED, REFUSED, REFUSED_CARD

HERE = Path(__file__).resolve().parent
CLIENTS_DIR = HERE / "clients"
if str(CLIENTS_DIR) not in sys.path:  # handler_zygote lives beside the drivers (mypy finds it on its mypy_path)
    sys.path.append(str(CLIENTS_DIR))

import handler_zygote  # noqa: E402

REPO = HERE.parent.parent
EXPLANATIONS = CLIENTS_DIR / "explanations.yaml"
#: Scenario outcomes in the order the document lists them.
OUTCOMES = ["PASS", "NON_STRICT", "FAIL", "UNIMPLEMENTED", "TIMEOUT", "NO_CONTACT", "ERROR"]
#: Check outcomes that make a scenario miss.
MISSES = ("FAIL", "NON_STRICT", "ERROR")
RUN_TIMEOUT_S = 3600
#: Scenarios run in parallel per client (`a2a-lab run -j`): the scorecard's and the pins' measuring condition.
JOBS = 2
#: Where each client's pinned verdicts live (CLIENT.json).
PINS_DIR = HERE / "verdicts"
#: The one command that regenerates docs/reference/clients.md and every pin.
REGENERATE = "python tests/peers/scorecard.py --pin"
LOOPBACK = re.compile(r"http://127\.0\.0\.1:\d+")


@dataclass(frozen=True)
class Peer:
    """One real client: how to run its driver, and why it cannot run here (None when it can)."""

    name: str
    library: str
    how: str
    command: Callable[[Path], list[str]]
    missing: Callable[[Path], str | None]
    env: Callable[[Path], dict[str, str]] = field(default=lambda _peers: {})
    #: The scenarios (globs) this client is scored over; empty: the whole catalogue. A mode that differs from another
    #: only where a binding is used (gRPC) is scored where that binding is offered.
    scenarios: tuple[str, ...] = ()
    #: Its tool comes from the cache dir tests/peers/install.sh fills (which the tests run when it is missing).
    cached: bool = False
    #: Its driver speaks the loop handshake (`command` ends with `--loop`): run with `--client-mode loop`, started
    #: once per worker instead of once per scenario (0.7 s of imports each time for a2a-sdk 1.3.0).
    loop: bool = False
    #: A CLI its driver runs several times per scenario (the driver takes its path from `A2A_LAB_HANDLER`), which
    #: tests/peers/clients/handler_zygote.py can serve from one process that imported it (`--zygote`): the cache
    #: dir -> (its python, its console script's entry point `MODULE:FUNC`, the console script's path).
    zygote: Callable[[Path], tuple[str, str, str]] | None = None


def _installed(dist: str, version: str) -> str | None:
    try:
        have = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return f"{dist} is not installed in this environment (pip install -e '.[test]')"
    return None if have == version else f"{dist} {have} is installed here, the scorecard pins {version}"


def _venv_has(peers: Path, venv: str, dist: str, version: str) -> str | None:
    python = peers / venv / "bin" / "python"
    if not python.exists():
        return f"{python} does not exist: run tests/peers/install.sh {shlex.quote(str(peers))}"
    code = f"import importlib.metadata as m; print(m.version({dist!r}))"
    have = subprocess.run([str(python), "-c", code], capture_output=True, text=True).stdout.strip()
    return None if have == version else f"{venv} venv has {dist} {have or 'missing'}, expected {version}"


def _venv_python(peers: Path, venv: str) -> str:
    """The python of a venv of the cache dir (its tool is the library installed there)."""
    return str(peers / venv / "bin" / "python")


def _js_missing(peers: Path) -> str | None:
    if shutil.which("node") is None:
        return "node is not on PATH (the @a2a-js/sdk client needs Node.js >= 20)"
    package = peers / "js" / "node_modules" / "@a2a-js" / "sdk" / "package.json"
    if not package.exists() or not (peers / "js" / "js_client.mjs").exists():
        return f"@a2a-js/sdk is not installed in {peers / 'js'}: run tests/peers/install.sh {shlex.quote(str(peers))}"
    have = json.loads(package.read_text(encoding="utf-8")).get("version")
    return None if have == "1.3.0" else f"@a2a-js/sdk {have} is installed, expected 1.3.0"


#: Where a gRPC-enabled client is scored: every scenario whose card offers gRPC.
GRPC_SCENARIOS = ("grpc/*", "spec/conformant")


def _grpc_missing() -> str | None:
    from a2a_lab.protocol import grpcwire

    return grpcwire.missing()


def _sdk13(mode: str) -> Peer:
    how = {
        "default": "`ClientConfig()`: streams when the card allows, follows an open task with GetTask",
        "streaming": "`ClientConfig()`, follows an open task with SubscribeToTask (GetTask where refused)",
        "polling": "`ClientConfig(polling=True, streaming=False)`: returnImmediately, then GetTask",
        "grpc": "`ClientConfig(supported_protocol_bindings=[GRPC, JSONRPC, HTTP+JSON], grpc_channel_factory=...)`, "
        "scored over the scenarios that offer gRPC",
    }[mode]
    return Peer(
        name=f"a2a-sdk-1.3.0-{mode}",
        library="a2a-sdk 1.3.0 (Python)" + (" with a2a-sdk[grpc]" if mode == "grpc" else ""),
        how=how,
        command=lambda _peers: (
            [sys.executable, str(CLIENTS_DIR / "a2a_sdk_13.py"), "--mode", mode]
            + ([] if mode == "grpc" else ["--loop"])
        ),
        missing=lambda _peers: _installed("a2a-sdk", "1.3.0") or (_grpc_missing() if mode == "grpc" else None),
        scenarios=GRPC_SCENARIOS if mode == "grpc" else (),
        # gRPC: a process per scenario (grpc.aio under a new event loop per scenario in one process is not what its
        # users do; and it is scored over 10 scenarios only)
        loop=mode != "grpc",
    )


PEERS = [
    _sdk13("default"),
    _sdk13("streaming"),
    _sdk13("polling"),
    _sdk13("grpc"),
    Peer(
        name="a2a-sdk-0.3.26",
        library="a2a-sdk 0.3.26 (Python, genuine A2A 0.3)",
        how="`ClientFactory(ClientConfig())`: streams when the card allows, follows an open task with tasks/get",
        command=lambda peers: [str(peers / "sdk03" / "bin" / "python"), str(CLIENTS_DIR / "a2a_sdk_03.py"), "--loop"],
        missing=lambda peers: _venv_has(peers, "sdk03", "a2a-sdk", "0.3.26"),
        cached=True,
        loop=True,
    ),
    Peer(
        name="a2a-js-sdk-1.3.0",
        library="@a2a-js/sdk 1.3.0 (Node.js)",
        how="`ClientFactory` with `legacyCompat: {enabled: true}`, blocking `sendMessage`, then `getTask`",
        command=lambda peers: ["node", "--preserve-symlinks-main", str(peers / "js" / "js_client.mjs"), "--loop"],
        missing=_js_missing,
        cached=True,
        loop=True,
    ),
    Peer(
        name="a2a-handler-0.4.0",
        library="a2a-handler 0.4.0 (CLI on a2a-sdk 1.3)",
        how="`handler --output json message send`, then `handler task get` while the task runs",
        command=lambda _peers: ["sh", str(CLIENTS_DIR / "a2a_handler.sh")],
        missing=lambda peers: _venv_has(peers, "handler", "a2a-handler", "0.4.0"),
        cached=True,
        env=lambda peers: {
            "A2A_LAB_HANDLER": str(peers / "handler" / "bin" / "handler"),
            "PATH": f"{peers / 'handler' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        },
        zygote=lambda peers: (
            _venv_python(peers, "handler"),
            "a2a_handler.cli:main",
            str(peers / "handler" / "bin" / "handler"),
        ),
    ),
    # The A2A clients of agent frameworks (no model or key on this path), each on a2a-sdk 0.3.26.
    Peer(
        name="strands-agents-1.62.0",
        library="strands-agents[a2a] 1.62.0 (Python, on a2a-sdk 0.3.26)",
        how="`A2AAgent(endpoint=BASE).stream_async(text)`: always streams where the card allows, never tasks/get",
        command=lambda peers: [
            _venv_python(peers, "frameworks"),
            str(CLIENTS_DIR / "strands_client.py"),
            "--loop",
        ],
        missing=lambda peers: _venv_has(peers, "frameworks", "strands-agents", "1.62.0"),
        cached=True,
        loop=True,
    ),
    Peer(
        name="beeai-framework-0.1.85",
        library="beeai-framework[a2a] 0.1.85 (Python, on a2a-sdk 0.3.26)",
        how="`A2AAgent(url=BASE, agent_card_path=PATH, memory=UnconstrainedMemory()).run(text)`: streams where "
        "the card allows, never tasks/get; a follow-up on the same agent with the task's ids",
        command=lambda peers: [_venv_python(peers, "frameworks"), str(CLIENTS_DIR / "beeai_client.py"), "--loop"],
        missing=lambda peers: _venv_has(peers, "frameworks", "beeai-framework", "0.1.85"),
        cached=True,
        loop=True,
    ),
    Peer(
        name="nvidia-nat-a2a-1.9.0",
        library="nvidia-nat-a2a 1.9.0 (NeMo Agent Toolkit, on a2a-sdk 0.3.26)",
        how="the `a2a_client` function group as `nat a2a client call` builds it, `a2a_client__send_message`: "
        "blocking message/send, never tasks/get",
        command=lambda peers: [_venv_python(peers, "nat"), str(CLIENTS_DIR / "nat_client.py"), "--loop"],
        missing=lambda peers: _venv_has(peers, "nat", "nvidia-nat-a2a", "1.9.0"),
        cached=True,
        loop=True,
    ),
]


def default_peers() -> Path:
    """The cache dir of tests/peers/install.sh: ${A2A_LAB_PEERS:-~/.cache/a2a-lab-peers}."""
    return Path(os.environ.get("A2A_LAB_PEERS") or Path.home() / ".cache" / "a2a-lab-peers").expanduser().resolve()


def a2a_lab() -> list[str]:
    beside = Path(sys.executable).with_name("a2a-lab")
    return [str(beside)] if beside.exists() else ["a2a-lab"]


def run_peer(
    peer: Peer, peers: Path, report: Path, jobs: int, scenarios: list[str], zygote: bool = False
) -> dict[str, Any]:
    """Run one client over the catalogue (or the scenarios matching `scenarios`) and return its JSON report; with
    `zygote`, a client with a `zygote` has its CLI served by a zygote started for the run (its calls forked from
    one process that imported the CLI, see tests/peers/clients/handler_zygote.py)."""
    if not (zygote and peer.zygote):
        return _run_peer(peer, peers, report, jobs, scenarios, {})
    python, entry, prog = peer.zygote(peers)
    with handler_zygote.start(python, entry, prog) as served:
        return _run_peer(peer, peers, report, jobs, scenarios, {"A2A_LAB_HANDLER": served.launcher, **served.env()})


def _run_peer(
    peer: Peer, peers: Path, report: Path, jobs: int, scenarios: list[str], instead: dict[str, str]
) -> dict[str, Any]:
    argv = [*a2a_lab(), "run", "--client", shlex.join(peer.command(peers)), "--json", str(report), "-j", str(jobs)]
    if peer.loop:
        argv += ["--client-mode", "loop"]
    for pattern in scenarios or peer.scenarios:
        argv += ["--scenario", pattern]
    extra = {**peer.env(peers), **instead}
    for name in sorted(extra):  # the client gets PATH anyway; anything else only when passed on explicitly
        if name != "PATH":
            argv += ["--client-env", name]
    env = {**os.environ, **extra}
    print(f"scorecard: {peer.name}: {shlex.join(argv)}", flush=True)
    done = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    if not report.exists():
        raise RuntimeError(f"{peer.name}: a2a-lab run wrote no report (exit {done.returncode}):\n{done.stderr}")
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return data


def verdict(scenario: dict[str, Any]) -> dict[str, Any]:
    """What a pin holds for one scenario of a report: its outcome and the sorted ids of the checks that missed."""
    missed = sorted({c["id"] for c in scenario["checks"] if c["outcome"] in MISSES})
    return {"outcome": scenario["outcome"], "missed": missed}


def shown_verdict(given: dict[str, Any]) -> str:
    """A verdict in one line: `FAIL: CHECK-A, CHECK-B`."""
    return given["outcome"] + (": " + ", ".join(given["missed"]) if given["missed"] else "")


def pin_path(name: str) -> Path:
    return PINS_DIR / f"{name}.json"


def load_pin(name: str) -> dict[str, Any]:
    """A client's pin file; a clear error when it is missing or not a pin."""
    path = pin_path(name)
    try:
        pin: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path} does not exist: pin every client with `{REGENERATE}`") from None
    except ValueError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc}); regenerate it with `{REGENERATE}`") from None
    if pin.get("client") != name or not isinstance(pin.get("scenarios"), dict):
        raise ValueError(f"{path}: not the pin of {name} (expected client and scenarios); regenerate it")
    return pin


def allowed(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The verdicts a pin entry accepts: the pinned one, and for an unstable scenario every one it lists."""
    plain = {"outcome": entry["outcome"], "missed": entry["missed"]}
    return [plain, *[v for v in (entry.get("unstable") or {}).get("allowed", []) if v != plain]]


def make_pin(name: str, data: dict[str, Any], old: dict[str, Any] | None) -> tuple[dict[str, Any], list[str]]:
    """The pin of one client's report, keeping the `unstable` entries of the old pin (with notes listing them): such an
    entry allows what it allowed before and the verdict seen now."""
    kept = (old or {}).get("scenarios", {})
    scenarios: dict[str, Any] = {}
    notes = []
    for s in data["scenarios"]:
        entry = verdict(s)
        before = kept.get(s["id"]) or {}
        unstable = before.get("unstable")
        if unstable:
            seen = [v for v in allowed(before) if v != entry]
            entry["unstable"] = {
                "reason": unstable["reason"],
                "allowed": sorted([*seen, verdict(s)], key=shown_verdict),
            }
            choices = ", ".join(shown_verdict(v) for v in entry["unstable"]["allowed"])
            notes.append(
                f"{name}: {s['id']}: kept as unstable ({unstable['reason']}), allowing {choices}: "
                "remove by hand a verdict that no longer occurs"
            )
        scenarios[s["id"]] = entry
    for sid, entry in sorted(kept.items()):
        if entry.get("unstable") and sid not in scenarios:
            notes.append(f"{name}: {sid}: dropped its unstable entry ({entry['unstable']['reason']}): not in the run")
    pin = {
        "client": name,
        "regenerate": REGENERATE,
        "supports": sorted(data.get("supports") or []),
        "scenarios": dict(sorted(scenarios.items())),
    }
    return pin, notes


def pin_text(pin: dict[str, Any]) -> str:
    """A pin as JSON with sorted keys and one line per scenario, so that a changed verdict is a one-line diff."""

    def one(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)

    head = [f" {one(key)}: {one(value)}," for key, value in sorted(pin.items()) if key != "scenarios"]
    rows = [f"  {one(sid)}: {one(entry)}" for sid, entry in sorted(pin["scenarios"].items())]
    return "\n".join(["{", *head, ' "scenarios": {', ",\n".join(rows), " }", "}"]) + "\n"


def write_pin(pin: dict[str, Any]) -> Path:
    path = pin_path(pin["client"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(pin_text(pin), encoding="utf-8")
    return path


def pin_differences(pin: dict[str, Any], data: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(scenario, pinned, now) for every scenario of a whole-catalogue report whose verdict the pin does not accept,
    that the pin does not hold, or that the pin holds and the report does not; and `(supports)` when the harness
    inferred other bindings and versions for the client than it did when pinned."""
    ran = {s["id"] for s in data["scenarios"]}
    out = [(sid, shown_verdict(pin["scenarios"][sid]), "not in the catalogue") for sid in set(pin["scenarios"]) - ran]
    supports = sorted(data.get("supports") or [])
    if supports != pin["supports"]:
        out.append(("(supports)", ", ".join(pin["supports"]) or "-", ", ".join(supports) or "-"))
    for s in sorted(data["scenarios"], key=lambda s: s["id"]):
        entry = pin["scenarios"].get(s["id"])
        now = verdict(s)
        if entry is None:
            out.append((s["id"], "not pinned", shown_verdict(now)))
        elif now not in allowed(entry):
            out.append((s["id"], " or ".join(shown_verdict(v) for v in allowed(entry)), shown_verdict(now)))
    return sorted(out)


def cell(text: str) -> str:
    """Text fit for one Markdown table cell; the server's origin (a new port each run) reads BASE."""
    return LOOPBACK.sub("BASE", " ".join(str(text).split())).replace("|", "\\|")


def misses(scenario: dict[str, Any]) -> list[str]:
    out = []
    for check in scenario["checks"]:
        if check["outcome"] in MISSES:
            said = check["message"]
            if check.get("expected") or check.get("actual"):
                said += f" (expected: {check.get('expected') or '-'}; actual: {check.get('actual') or '-'})"
            out.append(f"`{check['id']}` {check['outcome']} [{check['level']}]: {said}")
    client = scenario.get("client") or {}
    if scenario["outcome"] in ("TIMEOUT", "NO_CONTACT", "ERROR") or not out:
        said = (client.get("stderr_tail") or "").strip().splitlines()
        errors = [line for line in said if line.startswith("error:")]
        tail = (errors or said or [""])[-1]
        exit_code = "none (killed)" if client.get("timed_out") else client.get("exit_code")
        out.append(f"client exit {exit_code}" + (f", stderr: {tail[:300]}" if tail else ""))
    if scenario.get("error"):
        out.append(f"harness error: {scenario['error']}")
    return out


def explanation(explanations: dict[str, dict[str, str]], scenario: str, peer: str) -> str | None:
    """The line for this client in this scenario: under its name, a prefix of it (the library), or `*`; keyed by
    the scenario's id, or by its family's (`families/direct-message` for each of its members)."""
    family = scenario.rsplit("/", 1)[0]
    given = explanations.get(scenario) or (explanations.get(family, {}) if family.startswith("families/") else {})
    for key in sorted(given, key=len, reverse=True):
        if key == peer or peer.startswith(key + "-") or key == "*":
            return given[key]
    return None


#: The journal kinds of an A2A call (a request no route matched is not one).
_A2A_CALLS = frozenset(kind.value for kind in EntryKind if kind.is_call and kind is not EntryKind.UNMATCHED)


def contacted(scenario: dict[str, Any]) -> bool:
    """Whether the client made any A2A call (anything but fetching the card) in this scenario."""
    return any(entry.get("kind") in _A2A_CALLS for entry in scenario.get("journal", []))


def shown(peer: Peer, peers: Path) -> str:
    """The client command as a reader can type it: $PEERS for the cache dir, paths relative to the repo."""
    path = os.environ.get("PATH", "")
    env = [f"{k}={v.replace(path, '$PATH') if path else v}" for k, v in peer.env(peers).items()]
    text = shlex.join([*env, *peer.command(peers)])
    return text.replace(sys.executable, "python").replace(str(peers), "$PEERS").replace(f"{REPO}/", "")


def revision() -> str:
    """The a2a-lab commit measured, marked when the work tree differs from it."""
    if shutil.which("git") is None:
        return "unknown (no git)"
    git = ["git", "-C", str(REPO)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True)
    return f"{head or 'unknown'}{' (with uncommitted changes)' if dirty.stdout.strip() else ''}"


def render(
    results: dict[str, dict[str, Any] | str],
    label: str,
    notes: dict[str, Any],
    when: str,
    peers: Path,
    measured_on: str = "",
) -> str:
    misses_notes: dict[str, dict[str, str]] = notes.get("misses") or {}
    passes_notes: dict[str, dict[str, str]] = notes.get("passes") or {}
    title = f"# Real clients over the catalogue: measured {when}" + (f", {label}" if label else "")
    lines = [
        title,
        "",
        "Generated by `python tests/peers/scorecard.py` (install the clients first with `tests/peers/install.sh`).",
        "Each client is a small driver in `tests/peers/clients/`, written the way that library's users write a",
        "client, run over the whole catalogue with `a2a-lab run --client ... --json FILE -j 2`. None of them writes",
        "`A2A_LAB_RESULT`, so every verdict comes from what the client did on the wire. Each scenario a client did",
        "not PASS is listed with the checks that missed, and one line saying whether the miss is the client's",
        "`real deviation` (with the requirement it breaks) or `harness wrong` (why the verdict is not the",
        "client's fault); PASS verdicts known to be wrong in the client's favour are listed after. The lines",
        "live in `tests/peers/clients/explanations.yaml`.",
        *(["", f"Measured on a2a-lab at commit {measured_on}."] if measured_on else []),
        "",
        "## Clients",
        "",
        "`$PEERS` is the cache dir of `tests/peers/install.sh`; each command is what `a2a-lab run --client` gets.",
        "A command ending in `--loop` speaks the loop handshake and runs with `--client-mode loop` (started once per",
        "worker, not once per scenario: the same verdicts, scenario for scenario, as a process per scenario).",
        "",
        "| client | library | driven as | command |",
        "|---|---|---|---|",
    ]
    by_name = {p.name: p for p in PEERS}
    for name in results:
        peer = by_name[name]
        lines.append(f"| `{name}` | {peer.library} | {peer.how} | `{cell(shown(peer, peers))}` |")
    lines += [
        "",
        "## Outcome counts",
        "",
        "*PASS, no call*: of the PASS scenarios, those where the client made no A2A call at all (it only read the",
        "card, or not even that); they say little about the client. *Judged on subject*: scenarios where the client",
        "reached the agent, or refused where the scenario asks it to. *Refused the card*: correct refusals of a card",
        "that offers the client's generation or bindings nothing it speaks; right, but the scenario's subject was not",
        "judged.",
        "",
        "| client | " + " | ".join(OUTCOMES) + " | scenarios | PASS, no call | judged on subject | refused the card |",
        "|---|" + "---|" * (len(OUTCOMES) + 4),
    ]
    for name, data in results.items():
        if isinstance(data, str):
            lines.append(f"| `{name}` | skipped: {cell(data)} |" + " |" * (len(OUTCOMES) + 3))
            continue
        counts = Counter(s["outcome"] for s in data["scenarios"])
        silent = sum(1 for s in data["scenarios"] if s["outcome"] == "PASS" and not contacted(s))
        subjects = Counter(s.get("subject") for s in data["scenarios"])
        judged, refused = subjects[REACHED] + subjects[REFUSED], subjects[REFUSED_CARD]
        row = [str(counts.get(o, 0)) for o in OUTCOMES]
        lines.append(
            f"| `{name}` | " + " | ".join(row) + f" | {len(data['scenarios'])} | {silent} | {judged} | {refused} |"
        )
    if notes.get("notes"):
        lines += ["", "## Notes", ""]
        lines += [f"- {' '.join(str(note).split())}" for note in notes["notes"]]
    for name, data in results.items():
        lines += ["", f"## `{name}`", ""]
        if isinstance(data, str):
            lines.append(f"Skipped: {data}")
            continue
        missed = [s for s in data["scenarios"] if s["outcome"] != "PASS"]
        lines.append(f"{len(data['scenarios']) - len(missed)} of {len(data['scenarios'])} scenarios PASS.")
        if missed:
            lines += ["", "| scenario | outcome | what missed | classification |", "|---|---|---|---|"]
        for s in sorted(missed, key=lambda s: (OUTCOMES.index(s["outcome"]), s["id"])):
            said = "<br>".join(cell(m) for m in misses(s))
            why = explanation(misses_notes, s["id"], name) or "**unclassified**"
            lines.append(f"| `{s['id']}` | {s['outcome']} | {said} | {cell(why)} |")
        passed = [s["id"] for s in data["scenarios"] if s["outcome"] == "PASS"]
        wrong = [(sid, note) for sid in passed if (note := explanation(passes_notes, sid, name)) is not None]
        if wrong:
            lines += ["", "PASS verdicts known to be wrong in the client's favour:", ""]
            lines += [f"- `{sid}`: {why}" for sid, why in sorted(wrong)]
    lines += ["", "## Every scenario, every client", ""]
    ran = {n: d for n, d in results.items() if not isinstance(d, str)}
    lines.append("| scenario | " + " | ".join(f"`{n}`" for n in ran) + " |")
    lines.append("|---|" + "---|" * len(ran))
    outcome = {n: {s["id"]: s["outcome"] for s in d["scenarios"]} for n, d in ran.items()}
    for sid in sorted({sid for o in outcome.values() for sid in o}):
        lines.append(f"| `{sid}` | " + " | ".join(outcome[n].get(sid, "-") for n in ran) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers", default=str(default_peers()), help="the cache dir of tests/peers/install.sh")
    parser.add_argument("--out", default=str(REPO / "docs" / "reference" / "clients.md"))
    parser.add_argument("--reports", help="keep each client's JSON report in this directory")
    parser.add_argument("--label", default="", help="appended to the title, e.g. 'before issue 12'")
    parser.add_argument("--client", action="append", choices=[p.name for p in PEERS], help="only these (repeatable)")
    parser.add_argument("--scenario", action="append", default=[], help="only scenarios matching GLOB (repeatable)")
    parser.add_argument("-j", "--jobs", type=int, default=JOBS)
    parser.add_argument("--rerender", action="store_true", help="run nothing: render the reports in --reports")
    parser.add_argument("--pin", action="store_true", help=f"also write each client's verdicts to {PINS_DIR}/")
    parser.add_argument(
        "--zygote",
        action="store_true",
        help="serve a2a-handler's CLI from one process that imported it, forking it per call "
        "(tests/peers/clients/handler_zygote.py; what the pin test does); the pins are written per process",
    )
    args = parser.parse_args()
    if args.rerender and not args.reports:
        parser.error("--rerender needs --reports DIR (where an earlier run kept its reports)")
    if args.pin and args.scenario:
        parser.error("--pin pins the whole catalogue: it cannot be combined with --scenario")
    if args.pin and args.zygote:
        parser.error("--pin writes the pins from the CLI run per process, as its users run it: drop --zygote")
    peers = Path(args.peers).expanduser().resolve()
    notes = yaml.safe_load(EXPLANATIONS.read_text(encoding="utf-8")) or {}
    reports = Path(args.reports or tempfile.mkdtemp(prefix="a2a-lab-scorecard-"))
    reports.mkdir(parents=True, exist_ok=True)
    meta = reports / "revision.txt"  # which a2a-lab the reports measured, kept for --rerender
    if not args.rerender:
        meta.write_text(revision(), encoding="utf-8")
    measured_on = meta.read_text(encoding="utf-8").strip() if meta.exists() else ""
    results: dict[str, dict[str, Any] | str] = {}
    for peer in PEERS:
        if args.client and peer.name not in args.client:
            continue
        kept = reports / f"{peer.name}.json"
        why = peer.missing(peers) if not args.rerender else None if kept.exists() else f"no report in {reports}"
        if why is not None:
            print(
                f"scorecard: {peer.name}: SKIPPED: {why}" + (" (its pin is left as it was)" if args.pin else ""),
                flush=True,
            )
            results[peer.name] = why
            continue
        if args.rerender:
            data = json.loads(kept.read_text(encoding="utf-8"))
        else:
            data = run_peer(peer, peers, kept, args.jobs, args.scenario, zygote=args.zygote)
        results[peer.name] = data
        counts = Counter(s["outcome"] for s in data["scenarios"])
        print(f"scorecard: {peer.name}: " + ", ".join(f"{o} {counts[o]}" for o in OUTCOMES if counts[o]), flush=True)
        if args.pin:
            old = load_pin(peer.name) if pin_path(peer.name).exists() else None
            pin, pin_notes = make_pin(peer.name, data, old)
            for note in pin_notes:
                print(f"scorecard: {note}", flush=True)
            print(f"scorecard: {peer.name}: pinned in {write_pin(pin)}", flush=True)
    for kind in ("misses", "passes"):
        for sid, given in (notes.get(kind) or {}).items():
            for key in given:
                if key != "*" and not any(p.name == key or p.name.startswith(key + "-") for p in PEERS):
                    print(f"scorecard: warning: explanations.yaml {kind} names no client: {key!r} ({sid})")
    started = [d["started"] for d in results.values() if isinstance(d, dict) and d.get("started")]
    when = min(started)[:10] if started else datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    Path(args.out).write_text(render(results, args.label, notes, when, peers, measured_on), encoding="utf-8")
    print(f"scorecard: wrote {args.out} (reports in {reports})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
