"""`a2a-lab ui`: the four pages in a browser (check a card, talk to an agent, test a client live, open a report),
served on loopback with a per-launch token in the URL it prints."""

from __future__ import annotations

import argparse
import ipaddress
from pathlib import Path

from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.cli.serve import port
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import refuse, say

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8040


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--host",
        default=DEFAULT_HOST,
        metavar="ADDR",
        help=f"the address to listen on (default {DEFAULT_HOST}: this machine only); the scenarios and proxies the "
        "pages start listen there too",
    )
    p.add_argument("--port", type=port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument(
        "--allowed-host",
        action="append",
        metavar="NAME",
        help="a host name the browser may use to reach the UI (repeatable; IP addresses and localhost always work)",
    )
    p.add_argument(
        "--report-dir",
        type=Path,
        metavar="DIR",
        help="where a live run writes its report folder (DIR/run-N; default: a new temporary folder)",
    )


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def cmd_ui(args: argparse.Namespace) -> int:
    from a2a_lab.harness.ui.app import build
    from a2a_lab.harness.ui.guard import UiGuard
    from a2a_lab.harness.ui.lab import Lab
    from a2a_lab.harness.ui.state import UiState
    from a2a_lab.server.guard import host_name
    from a2a_lab.server.hosting import serve_forever

    if args.report_dir is not None and args.report_dir.exists() and not args.report_dir.is_dir():
        return refuse(f"--report-dir {args.report_dir}: not a folder")
    guard = UiGuard.of([*(args.allowed_host or []), host_name(args.host)])
    ui = UiState(guard, Lab(args.host, tuple(args.allowed_host or ())), args.report_dir)

    def ready(origin: str) -> None:
        shown = origin.replace("://0.0.0.0:", "://127.0.0.1:").replace("://[::]:", "://[::1]:")
        if not _loopback(args.host):
            say(f"listening on {args.host}, beyond this machine: only a browser with the token gets in")
        say(f"open {guard.url(shown)} (Ctrl-C to stop)")

    try:
        serve_forever(build(ui), [args.host], args.port, "warning", on_ready=ready)
    except OSError as exc:  # PortInUse among them
        return refuse(f"{exc} (--port 0 picks a free one)")
    except KeyboardInterrupt:
        pass
    finally:
        ui.close()
    return Exit.OK


COMMAND = Command(
    "ui",
    "open a2a-lab in a browser: check a card, talk to an agent, test a client live, open a report",
    add_arguments,
    cmd_ui,
    about="""A local web app on this machine (loopback unless --host says otherwise). The URL it prints carries a
token drawn at each start: every request needs it (the first sets it as a cookie). The pages run no command: a
client under test is started by you, pointed at the card URL a page shows.""",
    examples=(
        "a2a-lab ui",
        "a2a-lab ui --report-dir ui-reports              # keep the reports of live runs there",
    ),
    exit_codes=(
        (Exit.OK, "stopped (Ctrl-C)"),
        (Exit.USAGE, "usage error: a port in use or out of range, a report folder that is a file"),
    ),
)
