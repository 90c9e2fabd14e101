"""`a2a-lab acts run PATH... [--server URL] [--client CMD]`: run ACTS 0.1.0 server tests against a live server, per
binding, and client tests against a client command.

Exit codes are the harness's: 0 the gate passed (every MUST test that ran passed), 1 a test failed, 2 unusable input
(a broken ACTS file, no card, a bad option), 3 a runner error.
"""

from __future__ import annotations

import argparse
import fnmatch
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from a2a_lab.harness.acts.defaults import LEVELS, RUN_DEADLINE_S, STANDARD_BEHAVIORS, TEST_DEADLINE_S
from a2a_lab.harness.cli import presets
from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.cli.help_text import REPORT_PATHS
from a2a_lab.harness.cli.options import add_answer_timeout, add_verbose, baseline_of
from a2a_lab.harness.cli.outputs import output_file, output_folder, output_path
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import crashed, refuse, say

if TYPE_CHECKING:
    from a2a_lab.harness.acts import document
    from a2a_lab.harness.acts.runner import BindingRun
    from a2a_lab.harness.acts.webhook import Receiver
    from a2a_lab.harness.client_judging.baseline import Baseline

TRANSPORTS = ("jsonrpc", "rest", "grpc")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["run"], help="what to do with the ACTS files")
    p.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="ACTS files (YAML or JSON); a suite file's include is followed",
    )
    p.add_argument(
        "--server",
        metavar="URL",
        help="the server's base URL (its card is at URL/.well-known/agent-card.json): run the server tests",
    )
    p.add_argument(
        "--client",
        metavar="CMD",
        help="a client command (or builtin, a2a-sdk), as `a2a-lab run` takes it: run the client tests",
    )
    p.add_argument(
        "--binding",
        action="append",
        choices=TRANSPORTS,
        help="only this binding (repeatable; default: every one the card declares)",
    )
    p.add_argument("--suite", action="append", metavar="ID", help="only the tests of this suite (repeatable)")
    p.add_argument("--test", action="append", metavar="ID|GLOB", help="only these tests (repeatable), e.g. 'CORE-*'")
    p.add_argument("--tag", action="append", metavar="TAG", help="only tests with this tag (repeatable: any of them)")
    p.add_argument("--level", choices=LEVELS, help="only tests of this level and stricter (must < should < may)")
    p.add_argument(
        "--behaviors",
        type=Path,
        metavar="FILE",
        help="the SUT behaviours the server serves (an ACTS sut-behaviors file, §11.1); "
        "default: the standard prefixes of §11.2",
    )
    p.add_argument("--token", help="a bearer token sent with every abstract operation")
    p.add_argument(
        "--credentials",
        metavar="KEY=VALUE,...",
        help="a second user's credentials, for the tests that need another user ({{otherUserTaskId}}, "
        "{{insufficientAuthToken}}): token=T (its bearer token) or client_id=ID,client_secret=S (the card's OAuth 2.0 "
        "clientCredentials flow), and optionally insufficient_token=T",
    )
    p.add_argument(
        "--webhook-host",
        metavar="HOST",
        help="the host name or address at which the server under test reaches this machine: the runner's webhook "
        "({{webhookUrl}}, runner requirement webhook_endpoint) listens where HOST resolves and is named by it "
        "(default: loopback)",
    )
    p.add_argument(
        "--sdk", default="sut", metavar="NAME", help="the name the ACTS report gives the implementation (sdk.name)"
    )
    p.add_argument("--sdk-version", default="unknown", metavar="V", help="its version (sdk.version)")
    p.add_argument("--sdk-language", default="unknown", metavar="LANG", help="its language (sdk.language)")
    p.add_argument(
        "--json",
        type=output_path,
        metavar="FILE|DIR",
        help="write the ACTS JSON report (§13): FILE for one binding (FILE-<binding>.json for several), "
        "or a folder for §13.5's names",
    )
    p.add_argument("--report-json", type=output_file, metavar="FILE", help="write a2a-lab's JSON report")
    p.add_argument("--junit", type=output_file, metavar="FILE", help="write JUnit XML")
    p.add_argument(
        "--html", type=output_folder, metavar="DIR", help="write a self-contained HTML report to DIR/index.html"
    )
    p.add_argument(
        "--baseline", type=Path, help="expected failures: {acts/<binding>/<TEST-ID>: {TEST-ID or '*': reason}}"
    )
    p.add_argument("--strict", action="store_true", help="also fail the gate on a SHOULD test that failed")
    _add_deadlines(p)
    add_answer_timeout(p)
    add_verbose(p)


def _add_deadlines(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--test-deadline",
        type=_seconds,
        default=TEST_DEADLINE_S,
        metavar="S",
        help=f"seconds one test may take, every wait and answer included (default {TEST_DEADLINE_S:g}): "
        "past it the test fails, saying so",
    )
    p.add_argument(
        "--run-deadline",
        type=_seconds,
        default=RUN_DEADLINE_S,
        metavar="S",
        help=f"seconds the whole run may take (default {RUN_DEADLINE_S:g}): tests not started by then end in error",
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 7 * 24 * 3600:
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds, more than 0 and at most a week (604800)")
    return value


def select(doc: document.Document, args: argparse.Namespace) -> list[document.Test]:
    """The tests the options choose, in file order (ValueError naming an unknown suite or a selection of none)."""
    tests = doc.tests
    if args.suite:
        known = {s.id for s in doc.suites}
        for name in args.suite:
            if name not in known:
                from a2a_lab.contract.suggest import one_of

                raise ValueError(f"--suite {name}: no such suite ({one_of(name, sorted(known))})")
        tests = [t for t in tests if t.suite in args.suite]
    if args.test:
        tests = [t for t in tests if any(fnmatch.fnmatchcase(t.id, p) for p in args.test)]
    if args.tag:
        tests = [t for t in tests if set(args.tag) & set(t.tags)]
    if args.level:
        allowed = LEVELS[: LEVELS.index(args.level) + 1]
        tests = [t for t in tests if t.level in allowed]
    if not tests:
        raise ValueError("the selection holds no test: check --suite, --test, --tag and --level")
    return tests


def load(paths: list[Path]) -> document.Document:
    from a2a_lab.harness.acts import document

    docs = [document.load(p) for p in paths]
    if len(docs) == 1:
        return docs[0]
    suites = tuple(s for d in docs for s in d.suites)
    document.check_unique([t for s in suites for t in s.tests])
    return document.Document(
        docs[0].acts_version, docs[0].spec_version, suites, tuple(f for d in docs for f in d.files)
    )


def write_acts(args: argparse.Namespace, runs: list[BindingRun], spec_version: str, when: datetime) -> None:
    from a2a_lab.harness.acts import report
    from a2a_lab.harness.reports.json_report import write as write_json

    sdk = {"name": args.sdk, "version": args.sdk_version, "language": args.sdk_language}
    target: Path = args.json
    for run in runs:
        if target.is_dir():
            path = target / report.report_name(args.sdk, run.name, when)
        elif len(runs) > 1:
            path = target.with_name(f"{target.stem}-{run.name}{target.suffix or '.json'}")
        else:
            path = target
        write_json(path, report.acts_report(run, spec_version, when, sdk))


def cmd_acts(args: argparse.Namespace) -> int:
    from a2a_lab.harness.acts import regex_guard

    try:
        return _acts(args)
    finally:
        regex_guard.close()


def _acts(args: argparse.Namespace) -> int:
    if not args.server and not args.client:
        return refuse("give --server URL (server tests), --client CMD (client tests), or both")
    from a2a_lab.harness.acts import document

    try:  # every refusal here is a ValueError (ActsError, userfile.Refused, BaselineError too)
        doc = load(args.paths)
        tests = select(doc, args)
        behaviors = document.load_behaviors(args.behaviors) if args.behaviors else STANDARD_BEHAVIORS
        args.second_user = _second_user(args.credentials)
        baseline = baseline_of(args)
        command = presets.resolve(args.client) if args.client else None
        if command is not None:
            presets.check_client(command)
    except ValueError as exc:
        return refuse(str(exc))
    when = datetime.now(UTC)
    args.run_ends = time.monotonic() + args.run_deadline
    runs: list[BindingRun] = []
    if args.server:
        served = _server_runs(args, doc, [t for t in tests if not (command and t.is_client)], behaviors)
        if isinstance(served, int):
            return served
        runs += served
    if command is not None and not any(t.is_client for t in tests):
        say("no client test (client_response) in the selection: --client has nothing to run")
    elif command is not None:
        from a2a_lab.harness.acts.clients import ClientOptions as ClientTestOptions
        from a2a_lab.harness.acts.clients import run_clients

        try:
            runs.append(run_clients(tests, ClientTestOptions(command, args.timeout * 3, args.run_ends)))
        except Exception as exc:
            return crashed("ACTS client runner error", exc)
    return _finish(args, runs, doc, baseline, when)


def _second_user(credentials: str | None) -> dict[str, str]:
    """--credentials read (ValueError saying what is wrong); none given: no second user."""
    if not credentials:
        return {}
    from a2a_lab.harness.acts import identity

    return identity.parse(credentials)


def _server_runs(
    args: argparse.Namespace, doc: document.Document, tests: list[document.Test], behaviors: tuple[str, ...]
) -> list[BindingRun] | int:
    """The server tests over each binding chosen, or the exit code of a refusal."""
    import httpx

    from a2a_lab.harness.acts.runner import interfaces
    from a2a_lab.harness.acts.webhook import Receiver
    from a2a_lab.harness.client_judging.environment import ClientEnvError, check_webhook_host
    from a2a_lab.harness.clients.refclient.discovery import discover
    from a2a_lab.harness.clients.refclient.failures import ClientFailure
    from a2a_lab.harness.clients.refclient.http import make_client
    from a2a_lab.harness.clients.refclient.options import ClientOptions

    try:
        with make_client(ClientOptions(read_timeout=args.timeout)) as http:
            found = discover(http, args.server, ClientOptions(read_timeout=args.timeout))
    except (ClientFailure, httpx.HTTPError, httpx.InvalidURL) as exc:
        return refuse(f"no card at {args.server!r}: {getattr(exc, 'message', exc)}")
    declared = interfaces(found.card)
    chosen = [t for t in TRANSPORTS if t in declared and (not args.binding or t in args.binding)]
    if not chosen:
        return refuse(
            f"the card declares no A2A 1.0 interface of {', '.join(args.binding or TRANSPORTS)} "
            f"(it has: {', '.join(declared) or 'none'})"
        )
    try:
        receiver = Receiver(check_webhook_host(args.webhook_host) if args.webhook_host else None)
    except (ClientEnvError, OSError) as exc:
        return refuse(f"cannot listen for the runner's webhook (--webhook-host {args.webhook_host}): {exc}")
    with receiver:
        return _run_bindings(args, doc, tests, behaviors, found, declared, chosen, receiver)


def _run_bindings(
    args: argparse.Namespace,
    doc: document.Document,
    tests: list[document.Test],
    behaviors: tuple[str, ...],
    found: Any,
    declared: dict[str, str],
    chosen: list[str],
    receiver: Receiver,
) -> list[BindingRun] | int:
    from a2a_lab.harness.acts.runner import RunOptions, run_binding

    options = RunOptions(
        args.server,
        tuple(chosen),
        behaviors,
        args.token,
        args.timeout,
        client=bool(args.client),
        test_deadline=args.test_deadline,
        run_ends=args.run_ends,
        webhook=receiver,
        credentials=args.second_user,
    )
    try:
        return [run_binding(tests, t, declared[t], found.card, found.url, doc.spec_version, options) for t in chosen]
    except Exception as exc:
        return crashed("ACTS runner error", exc)


def _finish(
    args: argparse.Namespace, runs: list[BindingRun], doc: document.Document, baseline: Baseline | None, when: datetime
) -> int:
    from a2a_lab.harness.acts import document, report
    from a2a_lab.harness.cli.gate import conclude
    from a2a_lab.harness.common.model import Outcome
    from a2a_lab.harness.reports.files import ReportFiles

    for run in [] if args.quiet else runs:
        said = "; ".join(report.summary_lines(run.results))
        say(f"ACTS {document.ACTS_SPEC} over {run.name} ({run.url}): {said}")
        say(f"  {report.skip_line(run.results)}")
        say(f"  {'A2A conformant' if report.conformant(run.results) else 'not conformant'} on {run.name} (§12.7)")
    if args.json:
        try:
            write_acts(args, runs, doc.spec_version, when)
        except OSError as exc:
            return refuse(f"cannot write the ACTS report: {exc.strerror or exc}")
    results = report.scenario_results(runs)
    if baseline is not None:
        for result in results:
            baseline.apply_checks(result, args.strict)
            if all(c.baseline is not None for c in result.checks if c.outcome in (Outcome.FAIL, Outcome.NON_STRICT)):
                result.outcome = (
                    Outcome.PASS if result.outcome in (Outcome.FAIL, Outcome.NON_STRICT) else result.outcome
                )
    meta: dict[str, Any] = {
        "client": f"a2a-lab acts run --server {args.server}",
        "acts": {"version": document.ACTS_SPEC, "files": list(doc.files), "bindings": [r.transport for r in runs]},
        "seed": 0,
        "started": when.isoformat(timespec="seconds"),
    }
    files = ReportFiles(json=args.report_json, junit=args.junit, html=args.html)
    checks = {t.id: report.check_of(t) for t in doc.tests}.values()
    return conclude(results, set(), meta, files, args.strict, args.verbose, checks, baseline, args.quiet)


COMMAND = Command(
    "acts",
    "run ACTS 0.1.0 (the A2A Conformance Test Specification): server tests per binding, client tests on a client",
    add_arguments,
    cmd_acts,
    about="""ACTS 0.1.0: the A2A Conformance Test Specification (draft), docs/acts-specification.md and tests/acts in
the a2aproject/A2A repository. Server tests (--server) run over each binding the card declares (JSON-RPC,
HTTP+JSON, gRPC); client tests (client_response, --client) serve their payloads to
the client (a SendMessage or GetTask answer, a stream, the card, the extended card behind an auth challenge) and judge
what its A2A_LAB_RESULT says it parsed (`parsed`, `parsed_answers`) against expect_parsed, and what it did on the
wire.""",
    examples=(
        "a2a-lab acts run A2A/tests/acts/suite.acts.yaml --server http://127.0.0.1:8000 --json reports/",
        "a2a-lab acts run core-operations.acts.yaml --server http://127.0.0.1:8000 --binding jsonrpc --level must",
        "a2a-lab acts run suite.acts.yaml --server http://127.0.0.1:8000 --test 'CORE-*' --tag streaming "
        "--junit acts.xml",
        "a2a-lab acts run client-parsing.acts.yaml --client 'python3 my_client.py {card_url}' --json acts.json",
    ),
    exit_codes=(
        (Exit.OK, "the gate passed: every MUST test that ran passed (with --strict every SHOULD test too)"),
        (Exit.FAILED, "a test failed"),
        (
            Exit.USAGE,
            f"usage error: a broken ACTS file (file, path, field, hint), no card, a bad option, {REPORT_PATHS}",
        ),
        (Exit.HARNESS, "runner error (a test ended in error)"),
    ),
)
