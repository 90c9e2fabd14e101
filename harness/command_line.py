"""What the `a2a-lab` commands share on the command line: their messages, the refusal of unusable input (exit 2),
and the options several commands take. Light on purpose: the reference client imports it and starts fast."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from a2a_lab.protocol.cards import WELL_KNOWN_PATH

from .exit_codes import Exit
from .reports import escape

if TYPE_CHECKING:
    from a2a_lab.contract.catalogue import Catalogue

PROG = "a2a-lab"
ADMIN_TOKEN_ENV = "A2A_LAB_ADMIN_TOKEN"
RUN_TOKEN_ENV = "A2A_LAB_RUN_TOKEN"


def say(text: str) -> None:
    """One line for people, on stderr, in the program's name (errors and progress alike), escaped for a terminal."""
    print(escape.console(f"{PROG}: {text}"), file=sys.stderr, flush=True)


def refuse(text: str) -> Exit:
    """Unusable input: say why, and exit with the usage code."""
    say(text)
    return Exit.USAGE


def crashed(what: str, exc: BaseException) -> Exit:
    """An unexpected exception in the harness itself: say what it was, and exit with the harness code."""
    say(f"{what}: {type(exc).__name__}: {exc}")
    return Exit.HARNESS


def load_catalogue(skipping: bool = True) -> Catalogue:
    """The scenario catalogue, each broken scenario file reported (`skipping`: the command goes on without it)."""
    from a2a_lab.contract.catalogue import Catalogue

    cat = Catalogue.load()
    for sid, exc in sorted(cat.broken.items()):
        say(f"scenario {sid} is broken{' and was skipped' if skipping else ''}:\n  {exc}")
    return cat


def add_json_or_markdown(p: argparse.ArgumentParser, json_help: str) -> None:
    """`--json` or `--markdown` (a listing command's formats; the default is a table for people)."""
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help=json_help)
    fmt.add_argument("--markdown", action="store_true", help="the catalogue as a Markdown table")


def add_report_files(p: argparse.ArgumentParser, report_dir: bool = True) -> None:
    """The report files a scoring command writes (read back with reports.files.ReportFiles.from_args)."""
    p.add_argument("--json", type=Path, metavar="FILE", help="write the JSON report")
    p.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    add_junit_skipped(p)
    if report_dir:
        p.add_argument(
            "--report-dir",
            type=Path,
            metavar="DIR",
            help="write every format (JSON, JUnit, HTML) plus each scenario's journal as JSONL",
        )
    p.add_argument("--html", type=Path, metavar="DIR", help="write a self-contained HTML report to DIR/index.html")
    add_compare(p)


def add_compare(p: argparse.ArgumentParser) -> None:
    def previous(text: str) -> list[dict[str, Any]]:
        from .reports.compare import load_previous

        try:
            return load_previous(Path(text))
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    p.add_argument(
        "--compare",
        type=previous,
        metavar="FILE",
        help="an earlier JSON report: the HTML report shows what got worse and what got better since",
    )


def add_junit_skipped(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--junit-skipped",
        action="store_true",
        help="list SKIPPED checks (the situation never arose) in the JUnit XML too; left out by default",
    )


def add_verbose(p: argparse.ArgumentParser) -> None:
    p.add_argument("-v", "--verbose", action="store_true", help="show every miss in the scorecard")


def add_selection(p: argparse.ArgumentParser, files: bool = True) -> None:
    """Which scenarios: `--scenario ID|GLOB` (with `files`, also FILE.yaml|FOLDER) and `--exclude GLOB`."""
    p.add_argument(
        "--scenario",
        action="append",
        metavar="ID|GLOB|FILE|DIR" if files else "ID|GLOB",
        help="only these scenarios (repeatable): an id or a glob of ids, e.g. 'quirks/*'"
        + (", or a scenario file (.yaml/.yml) or a folder of them, of your own" if files else ""),
    )
    p.add_argument("--exclude", action="append", metavar="GLOB", help="skip scenarios whose id matches (repeatable)")


def add_jobs_and_timeout(p: argparse.ArgumentParser) -> None:
    p.add_argument("-j", "--jobs", type=int, default=1, help="scenarios run in parallel (default 1)")
    p.add_argument("--timeout", type=float, help="seconds per scenario (default: each scenario's own)")


def add_live_target(p: argparse.ArgumentParser) -> None:
    """The live server a command talks to (`probe`, `record`)."""
    p.add_argument(
        "target",
        metavar="BASE_URL",
        help=f"the server's origin (its card is at BASE_URL{WELL_KNOWN_PATH}) or its card URL",
    )


def add_answer_timeout(p: argparse.ArgumentParser) -> None:
    """How long a command talking to a live server waits for any one answer."""
    from .refclient.options import READ_TIMEOUT_S

    p.add_argument(
        "--timeout",
        type=float,
        default=READ_TIMEOUT_S,
        help=f"seconds to wait for any one answer (default {READ_TIMEOUT_S:g})",
    )


def add_admin_token(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--admin-token",
        help=f"the shared server's admin token (better: {ADMIN_TOKEN_ENV} or --admin-token-file; on the command line "
        "it is visible to every local process until a2a-lab has started). The client under test never gets it",
    )
    p.add_argument(
        "--admin-token-file",
        type=Path,
        metavar="FILE",
        help="read the shared server's admin token from FILE (its first line)",
    )


#: The most a token file may hold (a token is a line of some dozens of characters).
TOKEN_FILE_LIMIT = 4096


def admin_token_of(args: argparse.Namespace) -> str | None:
    """The admin token: --admin-token, else --admin-token-file's first line, else the environment's, else none.
    ValueError saying what is wrong with the file."""
    given = getattr(args, "admin_token", None)
    path: Path | None = getattr(args, "admin_token_file", None)
    if given and path is not None:
        raise ValueError("--admin-token and --admin-token-file: give one of them")
    if path is not None:
        try:
            with path.open("rb") as fh:
                raw = fh.read(TOKEN_FILE_LIMIT + 1)
        except OSError as exc:
            raise ValueError(f"--admin-token-file {path}: cannot read it: {exc.strerror or exc}") from None
        line = raw[:TOKEN_FILE_LIMIT].decode("utf-8", "replace").splitlines()[0].strip() if raw.strip() else ""
        if not line or len(raw) > TOKEN_FILE_LIMIT:
            raise ValueError(
                f"--admin-token-file {path}: expected the token on its first line "
                f"(a file of at most {TOKEN_FILE_LIMIT} bytes), e.g. made with: openssl rand -hex 32 > {path}"
            )
        return line
    return admin_token(given)


def admin_token(given: str | None) -> str | None:
    """The admin token: the one given on the command line, else the environment's, else none."""
    import os

    return given or os.environ.get(ADMIN_TOKEN_ENV) or None


#: `a2a-lab serve`: more hosts push notifications may go to (comma-separated), as --push-allow.
PUSH_ALLOW_ENV = "A2A_LAB_PUSH_ALLOW"


def push_hosts(given: list[str] | None) -> tuple[str, ...]:
    """The hosts of --push-allow and A2A_LAB_PUSH_ALLOW, lowercased; ValueError for one that is not a host name."""
    import os

    names = [*(given or []), *os.environ.get(PUSH_ALLOW_ENV, "").replace(",", " ").split()]
    out: list[str] = []
    for name in names:
        host = name.strip().lower().rstrip(".")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        if not host or any(c in host for c in "/@?#[] \t") or (":" in host and host.count(":") < 2):
            raise ValueError(
                f"--push-allow {name!r}: give a host name or address only (no scheme, port or path), "
                "e.g. --push-allow my-client"
            )
        if host not in out:
            out.append(host)
    return tuple(out)
