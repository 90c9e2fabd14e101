"""The `a2a-lab` command line."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from a2a_lab.contract.catalogue import SelectionError, resolve
from a2a_lab.contract.loader import ScenarioError

from . import catalogue_view
from .command_line import (
    ADMIN_TOKEN_ENV,
    PUSH_ALLOW_ENV,
    RUN_TOKEN_ENV,
    add_json_or_markdown,
    add_selection,
    admin_token_of,
    load_catalogue,
    push_hosts,
    refuse,
    say,
)
from .exit_codes import Exit
from .help_text import EPILOGS
from .reports import escape

DEFAULT_HOST = "127.0.0.1"


def _unresolved(exc: KeyError | ScenarioError) -> Exit:
    """An unknown scenario id or a missing file (a KeyError, whose str() is quoted) or a broken scenario file."""
    return refuse(str(exc.args[0]) if isinstance(exc, KeyError) else str(exc))


def cmd_scenarios(args: argparse.Namespace) -> int:
    cat = load_catalogue()
    if args.action == "show":
        if not args.id:
            return refuse("usage: a2a-lab scenarios show ID")
        try:
            scenario = resolve(args.id, cat)
        except (KeyError, ScenarioError) as exc:
            return _unresolved(exc)
        if args.json:
            print(json.dumps(catalogue_view.as_json([scenario])["scenarios"][0], indent=2))
        else:
            print(escape.console(catalogue_view.explain(scenario)))
        return Exit.OK
    try:
        scenarios = cat.choose(args.scenario, args.exclude)
    except SelectionError as exc:
        return refuse(str(exc))
    if args.json:
        print(json.dumps(catalogue_view.as_json(scenarios, cat.broken), indent=2))
    elif args.markdown:
        print(escape.console(catalogue_view.as_markdown(scenarios)), end="")
    else:
        print(escape.console(catalogue_view.as_table(scenarios)))
    return Exit.OK if not cat.broken else Exit.USAGE


def cmd_serve(args: argparse.Namespace) -> int:
    from a2a_lab.contract.placeholders import OriginError, other_origin
    from a2a_lab.protocol import grpcwire
    from a2a_lab.server.app import ScenarioApp
    from a2a_lab.server.guard import AdminGuard, host_name
    from a2a_lab.server.hosting import serve_forever
    from a2a_lab.server.shared import CatalogueApp

    hosts = args.host or [DEFAULT_HOST]
    try:
        given = admin_token_of(args)
        other = other_origin(args.other_origin) if args.other_origin else None
        push_allow = push_hosts(args.push_allow)
    except (ValueError, OriginError) as exc:
        return refuse(str(exc))
    # The names callers may use in Host for the admin API: IP addresses and localhost always, the bound names too.
    guard = AdminGuard.of(given, [*(args.allowed_host or []), *(host_name(h) for h in hosts)])
    cat = load_catalogue()
    hosting: dict[str, Any] = {"other_origin": other, "push_allow": push_allow}
    try:
        if args.scenario:
            scenario = resolve(args.scenario, cat)
            app: object = ScenarioApp(scenario, guard, **hosting)
            where = f"scenario {scenario.id} at the origin root"
        else:
            app = CatalogueApp(list(cat.scenarios.values()), guard, **hosting)
            where = f"{len(cat.scenarios)} scenarios under /<scenario-id>/ (isolated runs: POST /_lab/runs)"
    except (KeyError, ScenarioError) as exc:
        return _unresolved(exc)

    served = [scenario] if args.scenario else list(cat.scenarios.values())
    context = _tls_context(args, app, scenario if args.scenario else None)
    grpc_ids = [s.id for s in served if s.serves_grpc]
    no_grpc = grpcwire.missing() if grpc_ids else None

    def ready(url: str) -> None:
        say(f"serving {where} on {url} (Ctrl-C to stop)")
        port = url.rpartition(":")[2]
        for more in hosts[1:]:
            say(f"also listening on {f'[{more}]' if ':' in more else more}:{port}")
        if other:
            say(f"cards that put an interface on another origin name {other} (--other-origin)")
        if push_allow:
            say(f"push notifications may also go to {', '.join(push_allow)} (--push-allow)")
        if grpc_ids and no_grpc is None:
            say("gRPC interfaces start on their own loopback ports with the first request (the cards name them)")
        elif no_grpc:
            say(
                f"not serving the gRPC interfaces of {len(grpc_ids)} scenario(s) "
                f"({', '.join(grpc_ids[:3])}{', ...' if len(grpc_ids) > 3 else ''}): {no_grpc}"
            )
        if context is not None:
            from a2a_lab.server import tls

            made = tls.pki()
            say(
                f"over TLS ({context.handshakes.certificate.value} certificate); clients trust the throwaway lab CA "
                f"with SSL_CERT_FILE={made.ca_file} (client certificate for mutual TLS: {made.client_cert_file}, "
                f"key {made.client_key_file}); removed when this process ends"
            )
        if given:
            say("the admin API at /_lab/ requires the admin token you gave (Authorization: Bearer TOKEN)")
        else:
            say(
                f"the admin API at /_lab/ requires this generated token (choose one with --admin-token or "
                f"{ADMIN_TOKEN_ENV}): Authorization: Bearer {guard.token}"
            )

    if context is not None:
        # uvicorn re-raises a SIGTERM it caught once it has stopped: as SystemExit, so the lab CA's temp dir is removed
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        serve_forever(app, hosts, args.port, args.log_level, on_ready=ready, ssl_context=context)
    except OSError as exc:  # PortInUse among them
        return refuse(str(exc))
    except KeyboardInterrupt:
        pass
    return Exit.OK


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def _tls_context(args: argparse.Namespace, app: Any, scenario: Any) -> Any:
    """The server's TLS context: the scenario's `tls:`, or with --tls a valid lab certificate for any scenario (and
    for the whole catalogue, whose handshakes no single journal records)."""
    from a2a_lab.contract.scenario import Tls
    from a2a_lab.server import tls

    asked = scenario.tls if scenario is not None else None
    if asked is None and not args.tls:
        return None
    journal = (lambda: app.state.journal) if scenario is not None else None
    return tls.context_for(asked or Tls(), journal)


def cmd_client(args: argparse.Namespace) -> int:
    """The reference client: discover the card, send one message, follow up, print what was understood."""
    from . import client_command

    return client_command.cmd_client(args)


def port(text: str) -> int:
    """A TCP port number (0: any free one), for argparse."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port number (0 to 65535; 0 picks a free one)")
    return value


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"a2a-lab {version('a2a-lab')}"
    except PackageNotFoundError:
        return "a2a-lab (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="a2a-lab",
        description="A2A test server and client conformance harness.",
        epilog="`a2a-lab COMMAND --help` explains a command, with examples and its exit codes.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name,
            help=help_text,
            description=help_text[0].upper() + help_text[1:] + ".",
            epilog=EPILOGS[name],
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    p = add("scenarios", "list the scenario catalogue, or explain one scenario")
    p.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    p.add_argument("id", nargs="?", help="scenario id or scenario file (with `show`)")
    add_json_or_markdown(p, "machine-readable list")
    add_selection(p)
    p.set_defaults(func=cmd_scenarios)

    p = add("serve", "serve one scenario at the origin root, or all of them under /<scenario-id>/")
    p.add_argument(
        "scenario", nargs="?", help="scenario id or path to a scenario YAML file (default: the whole catalogue)"
    )
    p.add_argument(
        "--host",
        action="append",
        metavar="ADDR",
        help=f"address to listen on (default {DEFAULT_HOST}; repeatable: one port on each, e.g. a second name for "
        "--other-origin)",
    )
    p.add_argument("--port", type=port, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    p.add_argument(
        "--tls",
        action="store_true",
        help="serve over HTTPS with a valid certificate of a throwaway lab CA (printed); tls/ scenarios always are",
    )
    p.add_argument(
        "--admin-token",
        help=f"the token the admin API requires (also {ADMIN_TOKEN_ENV}, or --admin-token-file; default: a random "
        "one, printed). On the command line it is visible to every local process while the server starts: prefer "
        "the variable or the file",
    )
    p.add_argument(
        "--admin-token-file", type=Path, metavar="FILE", help="read the admin token from FILE (its first line)"
    )
    p.add_argument(
        "--other-origin",
        metavar="HOST[:PORT]",
        help="another name of this server that clients reach it by, for the scenarios whose card puts an interface "
        "on another origin ({alt_base_url}); needed where client and server are different hosts (compose: a network "
        "alias of the server; default: the loopback alias, 127.0.0.1 <-> localhost)",
    )
    p.add_argument(
        "--push-allow",
        action="append",
        metavar="HOST",
        help=f"a host push notifications may go to besides loopback (repeatable; also {PUSH_ALLOW_ENV}, comma-separated"
        "), e.g. the compose service name of a client whose webhook the server calls",
    )
    p.add_argument(
        "--allowed-host",
        action="append",
        metavar="NAME",
        help="a host name callers of the admin API may use (repeatable; IP addresses and localhost always work), "
        "e.g. a compose service name",
    )
    p.set_defaults(func=cmd_serve)

    from . import checks_view, client_command, merge_command, run_command
    from .cardcheck import command as card_command
    from .fuzz import command as fuzz_command
    from .probe import command as probe_command
    from .record import command as record_command

    commands: list[tuple[str, str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = [
        (
            "run",
            "run a client against every scenario and score it (default: the built-in client, whole catalogue)",
            run_command.add_arguments,
            run_command.cmd_run,
        ),
        (
            "client",
            "the reference client: send one message to an agent and print what it understood",
            client_command.add_arguments,
            cmd_client,
        ),
        (
            "checks",
            "list the check catalogue (ids, levels, spec sections)",
            checks_view.add_arguments,
            checks_view.cmd_checks,
        ),
        (
            "score",
            "score traffic a client produced by itself in a run of a shared server (Autobahn-style)",
            run_command.add_score_arguments,
            run_command.cmd_score,
        ),
        (
            "drive",
            "drive a client through every scenario of a shared server in a new run, without scoring",
            run_command.add_drive_arguments,
            run_command.cmd_drive,
        ),
        (
            "report",
            "merge JSON reports of several runs or shards into JSON, JUnit and HTML",
            merge_command.add_arguments,
            merge_command.cmd_report,
        ),
        (
            "card",
            "check an agent card offline: lint, derived requests, signatures",
            card_command.add_arguments,
            card_command.cmd_card,
        ),
        (
            "probe",
            "judge a live server against its own card: every interface a2a-lab speaks, with named checks",
            probe_command.add_arguments,
            probe_command.cmd_probe,
        ),
        (
            "fuzz",
            "serve generated server behaviours to a client; write each failure, shrunk, as a scenario file",
            fuzz_command.add_arguments,
            fuzz_command.cmd_fuzz,
        ),
        (
            "record",
            "capture a live server's card and answers into a scenario file that replays them",
            record_command.add_arguments,
            record_command.cmd_record,
        ),
    ]
    for name, help_text, add_arguments, func in commands:
        p = add(name, help_text)
        add_arguments(p)
        p.set_defaults(func=func)
    return parser


#: The commands that hold a2a-lab's credentials (the admin token, a run's token) while other programs run beside them.
GUARDED = frozenset({"serve", "run", "drive", "score", "fuzz"})


def _guard_credentials(args: argparse.Namespace) -> None:
    """In a2a-lab's own process (not when called as a function), before any client starts: the admin and run tokens
    out of what /proc shows of its command line and environment, and the process undumpable (secrecy.py)."""
    from . import secrecy

    secrecy.conceal(
        [
            getattr(args, "admin_token", None),
            getattr(args, "run_token", None),
            os.environ.get(ADMIN_TOKEN_ENV),
            os.environ.get(RUN_TOKEN_ENV),
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return Exit.USAGE
    if argv is None and args.command in GUARDED:
        _guard_credentials(args)
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # here, not at exit, where a closed pipe can only be reported as a traceback
        return code
    except BrokenPipeError:
        # The reader left (`a2a-lab checks | head -1`): no traceback, and nothing more to flush at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return Exit.BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
