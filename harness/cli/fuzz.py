"""`a2a-lab fuzz`: serve generated server behaviours to a client until the budget is spent; write each failure,
shrunk, as a scenario file that `a2a-lab run --scenario FILE` reproduces."""

from __future__ import annotations

import argparse
import importlib.util
import re
import shlex
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.cli.help_text import REPORT_PATHS
from a2a_lab.harness.cli.options import add_client_environment, add_report_files, report_files
from a2a_lab.harness.cli.outputs import output_folder
from a2a_lab.harness.client_judging.fuzz import SHRINK_RUNS
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import load_catalogue, refuse, say
from a2a_lab.harness.common.model import Outcome

if TYPE_CHECKING:
    from a2a_lab.harness.client_judging.fuzz.oracles import Failure

DEFAULT_BUDGET = "120s"
DEFAULT_OUT = Path("fuzz-findings")
#: How often the progress line is printed, in seconds (and at every finding).
PROGRESS_EVERY = 5.0


def budget(text: str) -> tuple[int | None, float | None]:
    """`120s`, `2m` (seconds) or `300` (cases), for argparse."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|m)?\s*", text)
    if not found or float(found.group(1)) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds (120s, 2m) or a number of cases (300)")
    value, unit = float(found.group(1)), found.group(2)
    if unit is None:
        if not value.is_integer():
            raise argparse.ArgumentTypeError(f"{text!r}: a number of cases is a whole number")
        return int(value), None
    return None, value * (60 if unit == "m" else 1)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--client", required=True, help="the client command, as for `a2a-lab run` (or a preset: builtin)")
    p.add_argument(
        "--budget",
        type=budget,
        default=budget(DEFAULT_BUDGET),
        metavar="120s|N",
        help=f"how long to search: seconds (120s, 2m) or a number of cases (default {DEFAULT_BUDGET})",
    )
    p.add_argument("--seed", type=int, default=0, help="the search's seed: the same seed draws the same cases")
    p.add_argument(
        "--scenario",
        metavar="ID|FILE",
        help="a base scenario: its card and client ask are kept, the answers are generated (default: cards too)",
    )
    p.add_argument(
        "--out",
        type=output_folder,
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"where each finding's scenario file is written (default {DEFAULT_OUT}/)",
    )
    p.add_argument(
        "--invalid",
        action="store_true",
        help="also serve malformed answers (a broken JSON-RPC body, a reset): a client reports them as errors",
    )
    p.add_argument(
        "--shrink-runs",
        type=int,
        default=SHRINK_RUNS,
        metavar="N",
        help=f"at most N case runs to shrink one failure (default {SHRINK_RUNS}; 0: write it as found)",
    )
    p.add_argument("-j", "--jobs", type=int, default=1, help="cases run in parallel (default 1)")
    add_client_environment(p, webhook=False)
    add_report_files(p, report_dir=False)


def missing_hypothesis() -> str | None:
    if importlib.util.find_spec("hypothesis") is None:
        return "a2a-lab fuzz needs hypothesis, which is not installed here: pip install 'a2a-lab[fuzz]'"
    return None


def base_data(ref: str) -> dict[str, Any]:
    """The base scenario's file data (a catalogue id or a YAML file). Raises ValueError."""
    from a2a_lab.contract import yamlfile
    from a2a_lab.contract.catalogue import builtin_root, resolve

    path = Path(ref)
    if not (path.exists() or path.is_symlink()):  # what is there, a FIFO too, is the loader's to refuse
        path = builtin_root() / f"{ref}.yaml"
    try:
        resolve(str(path), load_catalogue())  # the loader's own refusal of a broken file
        data = yamlfile.load(path)
    except KeyError as exc:
        raise ValueError(str(exc.args[0])) from None
    except Exception as exc:
        raise ValueError(f"--scenario {ref}: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"--scenario {ref}: not a scenario")
    return data


class Progress:
    """The progress line on stderr: every PROGRESS_EVERY seconds, and at each finding."""

    def __init__(self) -> None:
        self.runs = 0
        self.findings = 0
        self.began = time.monotonic()
        self.printed = self.began
        self._lock = threading.Lock()

    def line(self) -> str:
        spent = time.monotonic() - self.began
        rate = self.runs / spent if spent > 0 else 0.0
        return f"fuzz: {self.runs} cases, {self.findings} finding(s), {spent:.0f} s ({rate:.1f} cases/s)"

    def case(self) -> None:
        with self._lock:
            self.runs += 1
            if time.monotonic() - self.printed >= PROGRESS_EVERY:
                self.printed = time.monotonic()
                say(self.line())

    def finding(self, note: str) -> None:
        with self._lock:
            self.findings += 1
            say(f"{self.line()}: {note}")


def finding_file(
    data: dict[str, Any], failure: Failure, seed: int, round_seed: int, client: str, invalid: bool
) -> dict[str, Any]:
    """The shrunk case as a scenario file: cites where it was found instead of a spec section, names the check."""
    from a2a_lab.harness.client_judging.checks import REGISTRY

    out = {k: v for k, v in data.items() if k != "spec"}
    out["title"] = f"a2a-lab fuzz finding: {failure.signature}"
    out["description"] = (
        f"{data.get('description', '')} Shrunk by a2a-lab fuzz from a case that failed {failure.check}: "
        f"{failure.message}"
    ).strip()
    out["observed"] = {
        "where": "a2a-lab fuzz",
        "when": datetime.now(UTC).date().isoformat(),
        "seed": seed,
        "round": round_seed,
        "invalid": invalid,
        "client": client,
        "check": failure.check,
        "note": failure.message[:500],
    }
    if failure.check in REGISTRY:  # not a TIMEOUT, which is the scenario's outcome
        out["checks"] = [failure.check]
    order = ["title", "description", "observed", "timeout", "client", "card", "task", "behaviour", "checks", "expect"]
    return {k: out[k] for k in [*order, *(k for k in out if k not in order)] if k in out}


def write_finding(folder: Path, data: dict[str, Any], name: str, client: str) -> Path:
    import yaml

    class _Plain(yaml.SafeDumper):
        """Writes a value used twice (the same reply for SendMessage and its streaming twin) twice, not as an
        alias."""

        def ignore_aliases(self, data: Any) -> bool:
            return True

    folder.mkdir(parents=True, exist_ok=True)
    n = 1
    while (folder / f"{name}-{n}.yaml").exists():
        n += 1
    path = folder / f"{name}-{n}.yaml"
    head = f"# Reproduce: a2a-lab run --client {shlex.quote(client)} --scenario {shlex.quote(str(path))}\n"
    text = yaml.dump(data, Dumper=_Plain, allow_unicode=True, sort_keys=False, width=120)
    path.write_text(head + text, encoding="utf-8")
    return path


def cmd_fuzz(args: argparse.Namespace) -> int:
    why = missing_hypothesis()
    if why:
        return refuse(why)
    from a2a_lab.harness.cli import presets
    from a2a_lab.harness.cli.gate import conclude
    from a2a_lab.harness.cli.options import client_environment
    from a2a_lab.harness.cli.running import interruptible
    from a2a_lab.harness.client_judging import process, runner
    from a2a_lab.harness.client_judging.fuzz.search import Budget, Found, Search

    try:
        client = presets.resolve(args.client)
        presets.check_client(client)
        base = base_data(args.scenario) if args.scenario else None
        client_env, _ = client_environment(args)
    except (presets.PresetError, ValueError) as exc:
        return refuse(str(exc))
    if args.jobs < 1 or args.shrink_runs < 0:
        return refuse("--jobs must be at least 1 and --shrink-runs at least 0")
    files = report_files(args)
    cases, seconds = args.budget
    opts = runner.RunOptions(client, args.seed, jobs=args.jobs, env=client_env)
    progress = Progress()
    written: list[Path] = []

    def on_found(found: Found) -> None:
        data = finding_file(found.data, found.failure, args.seed, found.round_seed, args.client, args.invalid)
        path = write_finding(args.out, data, found.failure.check.lower(), args.client)
        written.append(path)
        progress.finding(f"{found.failure.signature} (shrunk in {found.shrink_runs} runs): {path}")

    limit = f"{cases} cases" if cases is not None else f"{seconds:g} s"
    invalid = ", malformed answers too" if args.invalid else ""
    say(f"fuzzing {client} for {limit}, seed {args.seed}, -j {args.jobs}{invalid}")
    stopper = process.Stopper()
    opts.stopper = stopper
    search = Search(opts, Budget(cases, seconds), base, args.invalid, args.shrink_runs, progress.case, on_found, say)
    with interruptible(stopper) as interruption:
        search.run(args.seed, args.jobs)
    say(progress.line())
    if interruption.signal:
        say(f"interrupted ({interruption.signal}): {len(written)} finding(s) written")
        return Exit.INTERRUPTED
    from a2a_lab.contract.loader import load_file

    # Each file run as `a2a-lab run --scenario FILE` runs it: the reports hold the findings as reproduced.
    raws = [runner.run_one(load_file(path), opts, runner.LocalServers(opts.seed)) for path in written]
    results, supported = runner.score_all(raws, opts)
    for path, result in zip(written, results, strict=True):
        if result.outcome is Outcome.PASS:
            say(f"{path} did not fail again when run on its own: a flaky finding (timing?), kept for a look")
    meta = {
        "client": client,
        "seed": args.seed,
        "jobs": args.jobs,
        "fuzz": {
            "cases": progress.runs,
            "generated": search.budget.tried,
            "seconds": round(time.monotonic() - progress.began, 3),
            "findings": [str(p) for p in written],
            "invalid": args.invalid,
        },
    }
    if results:
        return conclude(results, supported, meta, files, verbose=True)
    say("no finding: the client survived every case, understood every answer and hung on none")
    if files.json or files.junit or files.html:
        return conclude(results, supported, meta, files)
    return Exit.OK


COMMAND = Command(
    "fuzz",
    "serve generated server behaviours to a client; write each failure, shrunk, as a scenario file",
    add_arguments,
    cmd_fuzz,
    guarded=True,
    about="""Every case is a scenario drawn by hypothesis (card, answer, task script, status messages, artifacts, stream
pacing; malformed answers too with --invalid), served through the ordinary runner and judged by the ordinary checks
plus: the client does not crash (CLIENT-SURVIVES: no stack trace, no signal), does not hang past the case's
timeout (TIMEOUT), and reports no result contradicting what was served (RESULT-MATCHES). Each failure is shrunk
and written to --out as a scenario file that `a2a-lab run --scenario FILE` reproduces. The same --seed draws the
same cases (with -j 1). Needs hypothesis: pip install 'a2a-lab[fuzz]'.""",
    examples=(
        "a2a-lab fuzz --client 'python3 my_client.py {card_url}' --budget 120s --seed 7",
        "a2a-lab fuzz --client builtin --budget 300 --scenario streaming/v1-stream -j 2 --json fuzz.json",
        "a2a-lab run --client 'python3 my_client.py {card_url}' --scenario fuzz-findings/client-survives-1.yaml",
    ),
    exit_codes=(
        (Exit.OK, "no finding"),
        (Exit.FAILED, "findings: each written to --out, and reproduced"),
        (
            Exit.USAGE,
            "usage error: a bad option, a client that cannot be started, hypothesis missing, an --out folder or "
            f"{REPORT_PATHS}",
        ),
        (Exit.HARNESS, "harness error (a finding's reproduction ended in ERROR)"),
        (Exit.INTERRUPTED, "interrupted (Ctrl-C, SIGTERM): clients killed, the findings so far are written"),
    ),
)
