"""The measured ACTS table of docs/reference/conformance.md, regenerated from runs (issue 46 item 4).

    python benchmarks/acts_table.py DRAFT [--commit SHA] [--server LABEL=URL]... [--client LABEL=CMD]... [--doc FILE]

DRAFT is a local copy of the ACTS draft's `tests/acts` folder (a2aproject/A2A, branch conformance-spec: it holds
`suite.acts.yaml` and `client-parsing.acts.yaml`); this script never fetches it. It serves a2a-lab's SUT
(`spec/acts-sut`, in process on loopback) and runs every server test over each binding its card declares, runs the
client tests on the reference client (`builtin`), then serves the authenticated variant (`spec/acts-sut-auth`) and runs
every server test on it as its first user (`--token`) with its second user (`--credentials`) and a behaviours file of
§11.2's prefixes and tck-auth-required, each taken from the scenario, then serves the variant whose card declares no
streaming and no push notifications (`spec/acts-sut-no-capabilities`: the only one the capability-absent tests run on)
and runs every server test on it; and, for each `--server` and `--client` given, on that server (its origin) or client
command too. The table, with the ACTS commit (`--commit`, or the folder's git HEAD),
replaces what stands between the markers `<!-- acts-table:begin -->` and `<!-- acts-table:end -->` of FILE (default
docs/reference/conformance.md), and is printed.

Exit codes: 0 written, 2 unusable input (no draft there, no commit, no markers), 3 a run that wrote no report (a
test that ended in `error` is in its report, counted as run and not passed, and named in "MUST failed").
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness.acts import document
from a2a_lab.harness.acts.defaults import STANDARD_BEHAVIORS
from a2a_lab.harness.cli import main as lab
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- acts-table:begin -->", "<!-- acts-table:end -->"
LEVELS = ("must", "should", "may")
BINDING_NAMES = {"jsonrpc": "JSON-RPC", "rest": "HTTP+JSON", "grpc": "gRPC"}
SUT, AUTH_SUT, NOCAP_SUT = "spec/acts-sut", "spec/acts-sut-auth", "spec/acts-sut-no-capabilities"
#: The behaviour the authenticated variant serves beyond §11.2's (no §11.2 prefix: given in a behaviours file).
AUTH_BEHAVIOR = "tck-auth-required"
#: The variants with a table of their own, in the page's order: (scenario, report file stem, what the heading says).
VARIANTS = (
    (
        AUTH_SUT,
        "auth",
        "(authentication required), as its first user with its second user given, its behaviours §11.2's and "
        f"{AUTH_BEHAVIOR}",
    ),
    (
        NOCAP_SUT,
        "nocap",
        "(no streaming, no push notifications declared: CORE-CAP-001, CORE-CAP-002 and PUSH-CFG-004 run only here)",
    ),
)


class Refused(Exception):
    """Unusable input: exit 2, saying what and how to fix it."""


@dataclass
class Column:
    """One run's results: its label and the ACTS report's tests (client tests left out of a server run)."""

    label: str
    tests: list[dict[str, Any]]


@dataclass
class Variant:
    """A variant SUT's own table: its scenario, what its heading says, and its columns (one per binding)."""

    scenario: str
    says: str
    columns: list[Column]


def pair(text: str, flag: str) -> tuple[str, str]:
    label, sep, value = text.partition("=")
    if not sep or not label or not value:
        raise argparse.ArgumentTypeError(f"{flag} {text!r}: give LABEL=VALUE, e.g. {flag} 'a2a-sdk 1.3.0=...'")
    return label, value


def commit_of(draft: Path, given: str | None) -> str:
    if given:
        return given
    found = subprocess.run(
        ["git", "-C", str(draft), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    if not found:
        raise Refused(f"{draft} is not in a git work tree: give the ACTS commit the copy was taken from (--commit SHA)")
    return found


@contextmanager
def lab_sut(scenario: Scenario) -> Iterator[str]:
    """One of a2a-lab's ACTS SUTs on loopback, every binding its card declares; yields its origin."""
    server = BackgroundServer(ScenarioApp(scenario)).start()
    try:
        yield server.url
    finally:
        server.stop()


def auth_args(scenario: Scenario, tmp: Path) -> list[str]:
    """`acts run` options for the authenticated variant, from the scenario itself: its bearer token (the first
    user), its OAuth client (the second user), and a behaviours file of §11.2's prefixes and tck-auth-required."""
    auth = scenario.auth
    if auth is None or not auth.bearer or not {"client_id", "client_secret"} <= set(auth.credentials):
        raise Refused(
            f"{scenario.id}: no auth.bearer with auth.credentials client_id, client_secret to run it as two users"
        )
    behaviors = tmp / "auth-behaviors.yaml"
    prefixes = [*STANDARD_BEHAVIORS, AUTH_BEHAVIOR]
    listed = [{"prefix": p, "description": p} for p in prefixes]
    behaviors.write_text(json.dumps({"acts_version": "1.0", "behaviors": listed}), encoding="utf-8")
    second = f"client_id={auth.credentials['client_id']},client_secret={auth.credentials['client_secret']}"
    return ["--token", auth.bearer, "--credentials", second, "--behaviors", str(behaviors)]


def acts(args: list[str], out: Path) -> list[Path]:
    """`a2a-lab acts run ARGS --json OUT`; the ACTS reports it wrote."""
    code = lab(["acts", "run", *args, "--json", str(out), "-q"])
    order = [*BINDING_NAMES, "client"]  # JSON-RPC, HTTP+JSON, gRPC, then the client run
    found = sorted(out.parent.glob(f"{out.stem}*.json"))
    # exit 3 with reports written: some tests ended in `error` (not judged), which the reports count
    if code not in (0, 1) and not (code == 3 and found):
        raise RuntimeError(f"a2a-lab acts run {' '.join(args)} ended with exit {code}")
    return sorted(found, key=lambda p: order.index(p.stem[len(out.stem) + 1 :]) if p != out else 0)


def tests_of(report: Path, leave_out: frozenset[str]) -> tuple[str, list[dict[str, Any]]]:
    data = json.loads(report.read_text())
    tests = [t for s in data["suites"] for t in s["tests"] if t["id"] not in leave_out]
    return data["transport"] if "-client" not in report.stem else "client", tests


def cell(tests: list[dict[str, Any]], level: str) -> str:
    """`passed / run (+N skipped)`, and for a client the UNIMPLEMENTED apart (a skip without a category)."""
    mine = [t for t in tests if t["level"] == level]
    passed = sum(t["result"] == "pass" for t in mine)
    ran = sum(t["result"] != "skip" for t in mine)
    unimplemented = sum(t["result"] == "skip" and "skip_category" not in t for t in mine)
    skipped = sum(t["result"] == "skip" for t in mine) - unimplemented
    errors = sum(t["result"] == "error" for t in mine)
    extra = [f"{errors} of them not judged"] * bool(errors)
    extra += [f"+{skipped} skipped"] * bool(skipped) + [f"+{unimplemented} UNIMPLEMENTED"] * bool(unimplemented)
    return f"{passed} / {ran}" + (f" ({', '.join(extra)})" if extra else "")


def kinds(tests: list[dict[str, Any]], level: str) -> str:
    counts: dict[str, int] = {}
    for t in tests:
        if t["level"] == level and t.get("skip_category"):
            counts[t["skip_category"]] = counts.get(t["skip_category"], 0) + 1
    return ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "none"


def table(columns: list[Column], extra_rows: bool) -> list[str]:
    lines = ["| level | " + " | ".join(c.label for c in columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for level in LEVELS:
        lines.append(f"| {level.upper()} | " + " | ".join(cell(c.tests, level) for c in columns) + " |")
    if extra_rows:
        lines.append("| MUST skipped, by kind | " + " | ".join(kinds(c.tests, "must") for c in columns) + " |")
        failed = [
            ", ".join(t["id"] for t in c.tests if t["level"] == "must" and t["result"] in ("fail", "error")) or "none"
            for c in columns
        ]
        lines.append("| MUST failed | " + " | ".join(failed) + " |")
    return lines


def render(commit: str, servers: list[Column], variants: list[Variant], clients: list[Column], total: int) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    head = (
        f"Generated by `python benchmarks/acts_table.py` on {when} from ACTS commit `{commit}` ({total} tests), "
        "a2a-lab's SUTs served in process on loopback. Each cell: passed / run (of the run, those that ended in "
        "`error`, not judged), the skipped (and, for a client, the UNIMPLEMENTED: tests whose judgement its run could "
        "not show) after the `+`."
    )
    return "\n".join(
        [
            BEGIN,
            head,
            "",
            "Server tests, per binding:",
            "",
            *table(servers, True),
            "",
            *(
                line
                for v in variants
                for line in (
                    f"Server tests against `{v.scenario}` {v.says}, per binding:",
                    "",
                    *table(v.columns, True),
                    "",
                )
            ),
            "Client tests (`client-parsing.acts.yaml`), per client:",
            "",
            *table(clients, False),
            END,
        ]
    )


def write(doc: Path, block: str) -> None:
    text = doc.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise Refused(f"{doc}: no {BEGIN} ... {END} markers: add them where the table goes")
    doc.write_text(text[:start] + block + text[end + len(END) :], encoding="utf-8")


def variant(
    catalogue: Catalogue, suite: Path, tmp: Path, how: tuple[str, str, str], leave_out: frozenset[str]
) -> Variant:
    """Every server test against one variant SUT (the authenticated one as its two users), one column per binding."""
    sid, stem, says = how
    scenario = catalogue.get(sid)
    columns: list[Column] = []
    with lab_sut(scenario) as url:
        users = auth_args(scenario, tmp) if sid == AUTH_SUT else []
        for report in acts([str(suite), "--server", url, *users, "--sdk", "a2a-lab"], tmp / f"{stem}.json"):
            name, tests = tests_of(report, leave_out)
            columns.append(Column(f"a2a-lab `{sid}`, {BINDING_NAMES[name]}", tests))
    return Variant(sid, says, columns)


def measure(args: argparse.Namespace, tmp: Path) -> tuple[list[Column], list[Variant], list[Column]]:
    suite, parsing = args.draft / "suite.acts.yaml", args.draft / "client-parsing.acts.yaml"
    clients_ids = frozenset(t.id for t in document.load(suite).tests if t.is_client)
    servers: list[Column] = []
    clients: list[Column] = []
    catalogue = Catalogue.load()
    with lab_sut(catalogue.get(SUT)) as url:
        for report in acts([str(suite), "--server", url, "--client", "builtin", "--sdk", "a2a-lab"], tmp / "lab.json"):
            name, tests = tests_of(report, frozenset())
            if name == "client":
                clients.append(Column("reference client (`builtin`)", tests))
            else:
                servers.append(Column(f"a2a-lab `{SUT}`, {BINDING_NAMES[name]}", tests))
    variants = [variant(catalogue, suite, tmp, how, clients_ids) for how in VARIANTS]
    for i, (label, url) in enumerate(args.server or []):
        for report in acts([str(suite), "--server", url, "--sdk", label], tmp / f"server{i}.json"):
            name, tests = tests_of(report, clients_ids)
            servers.append(Column(f"{label}, {BINDING_NAMES[name]}", tests))
    for i, (label, command) in enumerate(args.client or []):
        for report in acts([str(parsing), "--client", command], tmp / f"client{i}.json"):
            clients.append(Column(label, tests_of(report, frozenset())[1]))
    return servers, variants, clients


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("draft", type=Path, help="a local copy of the draft's tests/acts folder")
    p.add_argument("--commit", help="the ACTS commit the copy was taken from (default: the folder's git HEAD)")
    p.add_argument("--server", action="append", type=lambda t: pair(t, "--server"), metavar="LABEL=URL")
    p.add_argument("--client", action="append", type=lambda t: pair(t, "--client"), metavar="LABEL=CMD")
    p.add_argument("--doc", type=Path, default=ROOT / "docs/reference/conformance.md", help="the page to write")
    args = p.parse_args(argv)
    try:
        for name in ("suite.acts.yaml", "client-parsing.acts.yaml"):
            if not (args.draft / name).is_file():
                raise Refused(f"{args.draft}: no {name}: give the draft's tests/acts folder (a local copy)")
        commit = commit_of(args.draft, args.commit)
        if BEGIN not in args.doc.read_text(encoding="utf-8"):
            raise Refused(f"{args.doc}: no {BEGIN} ... {END} markers: add them where the table goes")
        total = len(document.load(args.draft / "suite.acts.yaml").tests)
        with tempfile.TemporaryDirectory(prefix="acts-table-") as tmp:
            servers, variants, clients = measure(args, Path(tmp))
        block = render(commit, servers, variants, clients, total)
        write(args.doc, block)
    except (Refused, document.ActsError, OSError) as exc:
        print(f"acts_table: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"acts_table: {exc}", file=sys.stderr)
        return 3
    print(block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
