"""The real clients' verdicts, pinned: a harness change that flips one client's verdict in one scenario is seen.

Each real client of tests/peers/scorecard.py (its `PEERS`) runs over the whole catalogue exactly as the scorecard
runs it (`scorecard.run_peer`: `a2a-lab run --client ... --json FILE -j 2`), and each scenario's outcome and set of
missed checks (FAIL, NON_STRICT, ERROR) is compared with the client's pin, tests/peers/verdicts/CLIENT.json, which
`python tests/peers/scorecard.py --pin` writes together with docs/reference/clients.md. A client whose tool is
missing (no node, or tests/peers/install.sh failed) is skipped with the reason; a client whose tool is not installed
yet is installed first (tests/peers/cache.py runs install.sh, as `.ci/run` does before the tests).

Time. One client at a time (`-j 2`, 2 shared cores, 76 scenarios when measured; at 114 the seven clients take
7 minutes in a row), wall / CPU seconds: a2a-sdk 1.3.0 default
50-63 / 64, streaming 56-85 / 58, polling 68-74 / 54, a2a-sdk 0.3.26 37-68 / 45, @a2a-js/sdk 46-64 / 30,
a2a-handler 94-117 / 105: 6-7.5 minutes in a row, which with the rest of the suite would break CI's 15-minute
budget. The runs are mostly CPU (each scenario starts the client's process; a2a-handler starts one per CLI call),
but each leaves part of the two cores idle (js and handler wait 30 s for `faults/never-answers` to time out, the
pollers sleep between polls), so clients run side by side: a2a-handler with one other client at most (`ALONE`: its
CPU-bound scenarios are the closest to their timeout, see below), the others two at a time (`CONCURRENT_CLIENTS`),
slowest first: 3.7-4.8 minutes for all six over the whole catalogue, nothing left out. A subset (say, the three
a2a-sdk 1.3.0 modes only where their `ClientConfig` acts) would save about 15% more, not worth the coverage.
Since 2026-12-06 a2a-handler's CLI is served by a zygote (`scorecard.run_peer(..., zygote=True)`, below): at 181
scenarios, one client at a time (other helpers at work, load 2-7), its run took 63 s wall / 72 CPU s through the
zygote against 219 s / 284 s per process (`scorecard.py --client a2a-handler-0.4.0 [--zygote]` under
/usr/bin/time), and its pin test alone 50 s; the sum of its scenarios' times fell from 555 to 337 s, of which
`faults/never-answers` is 40 s either way.

Loop. Since 2026-12-04 the Python drivers (a2a-sdk 1.3.0 default, streaming and polling; a2a-sdk 0.3.26) speak the
loop handshake (`--loop`, tests/peers/clients/loop_driver.py) and run with `--client-mode loop`: started once per
worker instead of paying a2a-sdk's imports (0.7 s) in every scenario. Their verdicts are the pins' in every scenario
(the same pins, written per process); both pin files took 204 s on 2 workers alone, where in a full-suite run
beside other work they had taken 588 s and 505 s (one worker each). Since 2026-12-06 the @a2a-js/sdk driver does too
(`js_client.mjs --loop`: node and the SDK started once per worker; a `tls/` scenario, whose CA node reads only when
it starts, in a node process of its own as before): its run took 17 CPU seconds instead of 61, the same verdicts in
every scenario (its pin, run alone and beside the other clients of this file). gRPC stays a process per scenario
(grpc.aio under a new event loop for each scenario is not how its users run it). a2a-handler is a shell user's CLI:
its driver still calls `handler` several times per scenario, each call its own process with its own argv,
environment, cwd and stdio, but forked from a zygote that imported a2a_handler once
(tests/peers/clients/handler_zygote.py, tested in test_handler_zygote.py) instead of paying 0.9 CPU s of imports
per call; its pin stays written per process (`scorecard.py --pin`), as its users run it.

Stability. Six runs of every client (three one at a time, two at 2 clients at a time, one at 3 at a time with other
work loading the machine) gave the same verdict in every scenario; no pin needs an `unstable` entry. What would
flip first is a2a-handler's CPU-bound scenarios against their timeout: `spec/task/submitted-needs-get-task` took
3-6 s of its 20 s alone, 4-9 s at 2 clients at a time, 17 s at 3 under load, hence 2 and not 3 (per process; through
the zygote 6 s at load 6, its polls no longer CPU-bound). The zygote's run gave the per-process pin's verdict in
each of the 181 scenarios, as did the per-process run measured beside it. Faster calls mean more polls within the
driver's 10 s follow window: in `responses/working-for-a-long-time` 10 GetTask calls instead of 4, well inside
POLL-BOUNDED's 30, so the same verdict. A verdict that does flip is written into its pin as
`"unstable": {"reason": ..., "allowed": [...]}`, never ignored.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.contract.catalogue import Catalogue
from tests.peers import cache, scorecard

#: a2a-sdk 1.3.0's three modes are pinned in test_scorecard_pins_sdk13.py, the other clients here: under
#: pytest-xdist (the suite's default, `-n 3 --dist loadfile`, these two files first) each worker runs one file, so
#: the two files' clients run side by side; the halves take about as long (scenario seconds at 149 scenarios: 669 for
#: the three modes, 647 for the rest).
SDK13_MODES = ("a2a-sdk-1.3.0-default", "a2a-sdk-1.3.0-streaming", "a2a-sdk-1.3.0-polling")
#: The clients that run beside no other client of this file (started first, then the others): a2a-handler, whose
#: CPU-bound scenarios come closest to their timeout (3-6 s of 20 alone, 4-9 at 2 clients at a time, 17 at 3 under
#: load). Under xdist it meets one client at most, the other file's.
ALONE = ("a2a-handler-0.4.0",)
#: Clients run at the same time by one file's fixture (each with `-j 2`), once those ALONE have run: under xdist the
#: a2a-sdk 1.3.0 modes one at a time (the other worker may be running a2a-handler, which meets no more than one
#: client), this file's others two at a time (2 + 1 clients at once: six runs, one at 3 at a time under load, gave the
#: same verdicts); in one process two at a time.
CONCURRENT_CLIENTS = 2
#: The slowest clients first, so that the last one to finish is a short one (the rest keep PEERS' order).
SLOWEST_FIRST = ["a2a-handler-0.4.0", "a2a-sdk-1.3.0-default", "a2a-sdk-1.3.0-polling"]
#: Client name -> (where its report goes, the future of its JSON report).
Runs = dict[str, tuple[Path, Future[dict[str, Any]]]]


def difference_report(name: str, differences: list[tuple[str, str, str]], report: Path) -> str:
    """The failure message: one row per scenario (scenario, pinned, now), then how to re-pin."""
    rows = [("scenario", "pinned", "now"), *differences]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    table = [f"  {a:<{widths[0]}}  {b:<{widths[1]}}  {c}" for a, b, c in rows]
    return "\n".join(
        [
            f"{name}: {len(differences)} scenario verdict(s) differ from {scorecard.pin_path(name)}",
            *table,
            f"This run's report: {report}",
            "If the change is meant, regenerate docs/reference/clients.md and every pin",
            "(tests/peers/install.sh first),",
            "review both diffs and commit them:",
            f"  {scorecard.REGENERATE}",
            "or, once every client's test has run, pin what this test run saw:",
            f"  {scorecard.REGENERATE} --rerender --reports {report.parent}",
            "A verdict that flips from run to run is marked by hand in the pin: "
            '"unstable": {"reason": "...", "allowed": [verdicts]} (see scorecard.py).',
        ]
    )


def selected_peers(request: pytest.FixtureRequest) -> list[scorecard.Peer]:
    """The clients whose pin test this file runs in this session (all of its own, or those `-k` kept)."""
    items = [item for item in request.session.items if isinstance(item, pytest.Function) and item.path == request.path]
    chosen = [item.callspec.params["peer"] for item in items if item.originalname == "test_verdicts_match_the_pin"]
    return [peer for peer in chosen if isinstance(peer, scorecard.Peer)]


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    """Each selected client's run, started at once: those ALONE first, one after the other, then the others
    `CONCURRENT_CLIENTS` at a time (the a2a-sdk 1.3.0 modes one at a time under xdist): client name -> (report path,
    the future of its JSON report); a client whose tool is missing is not run."""
    peers = scorecard.default_peers()
    # One folder for both files' reports (under xdist each worker has its own basetemp below the run's), so that
    # `scorecard.py --rerender --reports DIR` finds every client of the run there.
    basetemp = tmp_path_factory.getbasetemp()
    reports = (basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp) / "scorecard-reports"
    reports.mkdir(exist_ok=True)
    (reports / "revision.txt").write_text(scorecard.revision(), encoding="utf-8")  # for scorecard.py --rerender
    chosen = [p for p in selected_peers(request) if missing(p, peers) is None]
    chosen.sort(key=lambda p: SLOWEST_FIRST.index(p.name) if p.name in SLOWEST_FIRST else len(SLOWEST_FIRST))
    under_xdist = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1
    at_once = 1 if under_xdist and all(p.name in SDK13_MODES for p in chosen) else CONCURRENT_CLIENTS
    started: Runs = {}
    with ThreadPoolExecutor(at_once, thread_name_prefix="scorecard") as pool:
        alone: list[Future[dict[str, Any]]] = []  # the ALONE clients' runs, which the others start after
        for peer in chosen:
            report = reports / f"{peer.name}.json"
            future = pool.submit(run_after, list(alone), peer, peers, report)
            if peer.name in ALONE:
                alone.append(future)
            started[peer.name] = (report, future)
        yield started
        for _report, future in started.values():
            future.cancel()


def run_after(waits: list[Future[Any]], peer: scorecard.Peer, peers: Path, report: Path) -> dict[str, Any]:
    """`peer`'s run, once the runs in `waits` have ended (whether they passed or not); a CLI a zygote can serve
    (a2a-handler's) served by one, compared with the pin written per process."""
    wait(waits)
    return scorecard.run_peer(peer, peers, report, scorecard.JOBS, [], zygote=True)


@pytest.mark.parametrize("peer", [p for p in scorecard.PEERS if p.name not in SDK13_MODES], ids=lambda peer: peer.name)
def test_verdicts_match_the_pin(peer: scorecard.Peer, catalogue: Catalogue, runs: Runs) -> None:
    verify_pin(peer, runs)


def missing(peer: scorecard.Peer, peers: Path) -> str | None:
    """Why the client cannot run (None: it can), once install.sh has run into `peers` for a client it installs."""
    if peer.cached:
        return cache.ensure(lambda: peer.missing(peers), peers)
    return peer.missing(peers)


def verify_pin(peer: scorecard.Peer, runs: Runs) -> None:
    """The client's run against its pin: skipped when its tool is missing, failed with a table on a difference."""
    why = missing(peer, scorecard.default_peers())
    if why is not None:
        pytest.skip(f"{peer.name}: {why}")
    pin = scorecard.load_pin(peer.name)
    report, future = runs[peer.name]
    differences = scorecard.pin_differences(pin, future.result())
    if differences:
        pytest.fail(difference_report(peer.name, differences, report), pytrace=False)


# --------------------------------------------------------------------------- the pins themselves (no client run)


@pytest.mark.parametrize("peer", scorecard.PEERS, ids=lambda peer: peer.name)
def test_pin_is_well_formed(peer: scorecard.Peer, catalogue: Catalogue) -> None:
    """Every pin covers the catalogue, holds known outcomes and sorted check ids, and is in the canonical form
    `--pin` writes (so a hand edit, e.g. an `unstable` entry, is kept as written by the next regeneration)."""
    path = scorecard.pin_path(peer.name)
    pin = scorecard.load_pin(peer.name)
    assert path.read_text(encoding="utf-8") == scorecard.pin_text(pin), f"{path}: not in canonical form"
    covered = {s.id for s in catalogue.select(list(peer.scenarios) or None)}
    assert set(pin["scenarios"]) == covered, f"{path}: regenerate: {scorecard.REGENERATE}"
    for sid, entry in pin["scenarios"].items():
        for given in scorecard.allowed(entry):
            assert given["outcome"] in scorecard.OUTCOMES, f"{path}: {sid}: unknown outcome {given['outcome']}"
            assert given["missed"] == sorted(set(given["missed"])), f"{path}: {sid}: missed not sorted and unique"
        if "unstable" in entry:
            assert str(entry["unstable"].get("reason", "")).strip(), f"{path}: {sid}: an unstable entry needs a reason"


def report_of(pin: dict[str, Any], flip: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A report whose verdicts are the pin's, except those in `flip` (scenario -> verdict)."""
    scenarios = []
    for sid, entry in pin["scenarios"].items():
        given = flip.get(sid, entry)
        checks = [{"id": check, "outcome": "FAIL"} for check in given["missed"]]
        scenarios.append({"id": sid, "outcome": given["outcome"], "checks": [*checks, {"id": "X", "outcome": "PASS"}]})
    return {"scenarios": scenarios, "supports": pin["supports"]}


def pinned(pin: dict[str, Any], sid: str) -> dict[str, Any]:
    return {"outcome": pin["scenarios"][sid]["outcome"], "missed": pin["scenarios"][sid]["missed"]}


def test_a_flipped_verdict_is_reported_with_the_command_to_re_pin(tmp_path: Path) -> None:
    pin = scorecard.load_pin("a2a-sdk-1.3.0-default")
    assert scorecard.pin_differences(pin, report_of(pin, {})) == []
    sid = "spec/conformant"
    was = scorecard.shown_verdict(pin["scenarios"][sid])
    flipped = report_of(pin, {sid: {"outcome": "ERROR", "missed": ["TASK-FOLLOWED"]}})
    differences = scorecard.pin_differences(pin, flipped)
    assert differences == [(sid, was, "ERROR: TASK-FOLLOWED")]
    message = difference_report("a2a-sdk-1.3.0-default", differences, tmp_path / "r.json")
    assert sid in message and was in message and scorecard.REGENERATE in message
    # the same outcome with one more missed check is a difference too
    more = pinned(pin, sid)
    more["missed"] = sorted([*more["missed"], "ZZ-ANOTHER-CHECK"])
    assert scorecard.pin_differences(pin, report_of(pin, {sid: more})) == [(sid, was, scorecard.shown_verdict(more))]


def test_a_scenario_or_support_not_as_pinned_is_reported() -> None:
    pin = scorecard.load_pin("a2a-sdk-1.3.0-default")
    data = report_of(pin, {})
    data["scenarios"] = [s for s in data["scenarios"] if s["id"] != "spec/conformant"]
    was = scorecard.shown_verdict(pin["scenarios"]["spec/conformant"])
    assert scorecard.pin_differences(pin, data) == [("spec/conformant", was, "not in the catalogue")]
    data = report_of(pin, {})
    data["scenarios"].append({"id": "spec/new", "outcome": "PASS", "checks": []})
    data["supports"] = ["JSONRPC@1.0"]
    assert scorecard.pin_differences(pin, data) == [
        ("(supports)", ", ".join(pin["supports"]), "JSONRPC@1.0"),
        ("spec/new", "not pinned", "PASS"),
    ]


def test_an_unstable_entry_accepts_its_listed_verdicts_and_survives_re_pinning() -> None:
    pin = scorecard.load_pin("a2a-sdk-1.3.0-default")
    sid = "faults/latency"
    was = pinned(pin, sid)
    late = {"outcome": "TIMEOUT", "missed": ["ZZ-LATE"]}
    pin["scenarios"][sid]["unstable"] = {"reason": "timing", "allowed": [late]}
    assert scorecard.pin_differences(pin, report_of(pin, {sid: late})) == []
    other = {"outcome": "ERROR", "missed": ["ZZ-LATE"]}
    assert [d[0] for d in scorecard.pin_differences(pin, report_of(pin, {sid: other}))] == [sid]
    # re-pinning from a run that saw the other verdict keeps the reason and both verdicts, and says so
    repinned, notes = scorecard.make_pin("a2a-sdk-1.3.0-default", report_of(pin, {sid: late}), pin)
    entry = repinned["scenarios"][sid]
    assert pinned(repinned, sid) == late and entry["unstable"]["reason"] == "timing"
    assert sorted(map(scorecard.shown_verdict, entry["unstable"]["allowed"])) == sorted(
        map(scorecard.shown_verdict, [was, late])
    )
    assert len(notes) == 1 and sid in notes[0] and "timing" in notes[0]
    # and a pin without unstable entries is re-pinned as it is
    plain = scorecard.load_pin("a2a-sdk-1.3.0-default")
    assert scorecard.make_pin("a2a-sdk-1.3.0-default", report_of(plain, {}), plain) == (plain, [])
