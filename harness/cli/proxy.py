"""`a2a-lab proxy --upstream URL`: stand between a real client and a real server, judge both from the wire.

Serves until Ctrl-C (SIGINT or SIGTERM) or `--duration` seconds, then prints the verdict of both sides, writes the
reports asked for and, with `--out`, what the server did as a scenario file, whatever the stop met (a port that did
not close within its deadline is said, not raised). Its bounds (limits.py) are said at start. Exit codes are the
harness's: 0 no FAIL, 1 a FAIL on either side, 2 unusable input, 3 internal error.
"""

from __future__ import annotations

import argparse
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from a2a_lab.contract.handshake import ENV_CARD_URL
from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.cli.help_text import REPORT_PATHS
from a2a_lab.harness.cli.options import add_report_files, add_verbose, report_files
from a2a_lab.harness.cli.outputs import output_file
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import crashed, refuse, say
from a2a_lab.harness.proxy.limits import ENTRIES

if TYPE_CHECKING:
    from a2a_lab.harness.proxy.app import ProxyState

#: How long the upstream may stay silent (a stream's events may be minutes apart; a client that leaves stops it).
TIMEOUT = 300.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--upstream",
        required=True,
        metavar="URL",
        help="the A2A server to stand in front of (http or https); its card's gRPC interfaces pass through ports of "
        "the proxy's own, named in the card it serves",
    )
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: loopback only)")
    p.add_argument("--port", type=int, default=0, help="the port to listen on (default: a free one, printed)")
    p.add_argument("--duration", type=float, metavar="SECONDS", help="stop by itself after this long (default: Ctrl-C)")
    p.add_argument(
        "--journal-entries",
        type=int,
        default=ENTRIES,
        metavar="N",
        help=f"keep at most N exchanges (default {ENTRIES})",
    )
    p.add_argument(
        "--out", type=output_file, metavar="FILE.yaml", help="write what the server did as a replayable scenario"
    )
    p.add_argument("--force", action="store_true", help="overwrite --out's file if it exists")
    add_report_files(p, report_dir=False)
    p.add_argument(
        "--timeout",
        type=float,
        default=TIMEOUT,
        help=f"seconds to wait for the upstream to connect, and between two chunks of its answer (default {TIMEOUT:g})",
    )
    p.add_argument(
        "--ca-file",
        metavar="PEM",
        help="an https upstream (and a TLS gRPC interface): trust only the CA certificates in this file (default: "
        "the system's trust store)",
    )
    p.add_argument(
        "--grpc-tls",
        action="store_true",
        help="dial the upstream's gRPC interfaces whose url is a bare host:port over TLS (default: plaintext; a "
        "grpcs:// or https:// url is always TLS, a grpc:// or http:// one never)",
    )
    add_verbose(p)


def problem(args: argparse.Namespace) -> str | None:
    """Why the arguments are unusable, as a sentence with the fix; None when they are fine."""
    parts = urlsplit(args.upstream)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"--upstream {args.upstream!r} is not an http(s) URL (e.g. --upstream http://127.0.0.1:9999)"
    if args.out is not None and args.out.exists() and not args.force:
        return f"{args.out} exists; give --force to overwrite it"
    if args.timeout <= 0 or (args.duration is not None and args.duration <= 0):
        return "--timeout and --duration must be positive"
    if args.journal_entries < 1:
        return "--journal-entries must be at least 1"
    if args.ca_file is not None and not Path(args.ca_file).is_file():
        return f"--ca-file {args.ca_file!r} is not a file (a PEM file of the CA certificates to trust)"
    return None


@contextmanager
def stopping() -> Iterator[threading.Event]:
    """An event set by SIGINT or SIGTERM (Ctrl-C writes what was seen), the handlers restored after."""
    stop = threading.Event()
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, lambda _s, _f: stop.set())
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def serve(args: argparse.Namespace) -> tuple[ProxyState, float]:
    """Serve until stopped (Ctrl-C, or --duration); the session's state, and when serving began. Once serving, what
    goes wrong in stopping is noted on the state (the verdict is written all the same)."""
    from a2a_lab.harness.proxy import limits, session
    from a2a_lab.harness.proxy.routes import CARD_PATHS

    hosting = session.hosted(
        args.upstream, args.host, args.port, args.journal_entries, args.timeout, args.ca_file, args.grpc_tls
    )
    served: list[ProxyState] = []
    began = time.monotonic()
    try:
        with hosting as (state, url, said):
            served.append(state)
            say(said)
            say(f"proxy {url} -> {state.routes.upstream}; client card URL: {url}{CARD_PATHS[0]}")
            say(limits.said(args.timeout))
            for address, route in state.routes.grpc.items():
                if route.proxy is not None:
                    say(f"  gRPC {route.proxy} -> {address}{' (TLS)' if route.tls else ''}")
            for line in _not_proxied(state):
                say(f"  {line}")
            began = time.monotonic()
            with stopping() as stop:
                stop.wait(args.duration)
    except Exception as exc:
        if not served:
            raise  # it never served: nothing was seen
        served[0].notes.append(f"the proxy did not stop cleanly ({type(exc).__name__}: {exc})")
    for note in served[0].notes:
        say(note)
    return served[0], began


def _not_proxied(state: ProxyState) -> list[str]:
    more = state.routes.unlisted
    return [*state.routes.not_proxied, *([f"and {more} more interface(s) not proxied"] if more else [])]


def cmd_proxy(args: argparse.Namespace) -> int:
    from a2a_lab.harness.cli.gate import conclude
    from a2a_lab.harness.proxy import session
    from a2a_lab.harness.proxy.routes import origin_of
    from a2a_lab.harness.proxy.verdict import report_checks, verdict
    from a2a_lab.server.hosting import PortInUse

    why = problem(args)
    if why is not None:
        return refuse(why)
    upstream = origin_of(args.upstream)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    try:
        state, began = serve(args)
        seen = verdict(state, began)
    except (PortInUse, session.SelfUpstream) as exc:
        return refuse(str(exc))
    except Exception as exc:
        return crashed("proxy error", exc)
    if args.out is not None:
        _write_out(state, args)
    meta: dict[str, Any] = {"client": f"a2a-lab proxy {upstream}", "proxy": seen.meta, "started": started}
    files = report_files(args)
    return conclude(
        seen.results, seen.supports, meta, files, verbose=args.verbose, quiet=args.quiet, checks=report_checks()
    )


def _write_out(state: ProxyState, args: argparse.Namespace) -> None:
    from a2a_lab.harness.proxy import capture

    try:
        written = capture.write_scenario(state, args.out, args.force)
    except capture.CaptureError as exc:
        say(f"--out: nothing written: {exc}")
        return
    say(f"wrote {args.out} ({written} answer(s)); replay: a2a-lab serve {args.out}")


COMMAND = Command(
    "proxy",
    "stand between a real client and a real server: journal and judge both sides from the wire",
    add_arguments,
    cmd_proxy,
    examples=(
        "a2a-lab proxy --upstream https://agent.example --port 8780 --html proxy-report",
        f"{ENV_CARD_URL}=http://127.0.0.1:8780/.well-known/agent-card.json ./my-client   "
        "# the client talks to the proxy",
        "a2a-lab proxy --upstream http://127.0.0.1:9999 --out seen.yaml   # Ctrl-C: the verdict, and seen.yaml",
    ),
    exit_codes=(
        (Exit.OK, "no FAIL on either side"),
        (Exit.FAILED, "a FAIL: the client's (proxy/client) or the server's (proxy/server)"),
        (
            Exit.USAGE,
            "usage error: not an http(s) URL, a port in use, an upstream that is the proxy itself, an --out file that "
            "exists (without --force), " + REPORT_PATHS,
        ),
        (Exit.HARNESS, "internal error"),
    ),
)
