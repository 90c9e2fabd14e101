"""`a2a-lab serve`: serve one scenario at the origin root, or several (all, a family) under /<scenario-id>/."""

from __future__ import annotations

import argparse
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2a_lab.harness.cli.command import Command
from a2a_lab.harness.cli.scenarios import unresolved
from a2a_lab.harness.cli.tokens import ADMIN_TOKEN_ENV, PUSH_ALLOW_ENV, admin_token_of, push_hosts
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import load_catalogue, refuse, say

DEFAULT_HOST = "127.0.0.1"


def port(text: str) -> int:
    """A TCP port number (0: any free one), for argparse."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port number (0 to 65535; 0 picks a free one)")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "scenario",
        nargs="?",
        help="scenario id or path to a scenario YAML file (a family file: all its members under /<scenario-id>/, or "
        "one at the root with FILE#member; default: the whole catalogue)",
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


@dataclass
class Banner:
    """What `serve` says once it listens (on_ready): where, on which names, over what, and the admin token."""

    where: str
    hosts: list[str]
    other: str | None
    push_allow: tuple[str, ...]
    grpc_ids: list[str]
    no_grpc: str | None
    context: Any
    given: str | None = field(repr=False)
    token: str = field(repr=False)

    def __call__(self, url: str) -> None:
        say(f"serving {self.where} on {url} (Ctrl-C to stop)")
        port = url.rpartition(":")[2]
        for more in self.hosts[1:]:
            say(f"also listening on {f'[{more}]' if ':' in more else more}:{port}")
        if self.other:
            say(f"cards that put an interface on another origin name {self.other} (--other-origin)")
        if self.push_allow:
            say(f"push notifications may also go to {', '.join(self.push_allow)} (--push-allow)")
        grpc_ids = self.grpc_ids
        if grpc_ids and self.no_grpc is None:
            say("gRPC interfaces start on their own loopback ports with the first request (the cards name them)")
        elif self.no_grpc:
            say(
                f"not serving the gRPC interfaces of {len(grpc_ids)} scenario(s) "
                f"({', '.join(grpc_ids[:3])}{', ...' if len(grpc_ids) > 3 else ''}): {self.no_grpc}"
            )
        if self.context is not None:
            from a2a_lab.server import tls

            made = tls.pki()
            say(
                f"over TLS ({self.context.handshakes.certificate.value} certificate); clients trust the throwaway lab "
                f"CA with SSL_CERT_FILE={made.ca_file} (client certificate for mutual TLS: {made.client_cert_file}, "
                f"key {made.client_key_file}); removed when this process ends"
            )
        if self.given:
            say("the admin API at /_lab/ requires the admin token you gave (Authorization: Bearer TOKEN)")
        else:
            say(
                f"the admin API at /_lab/ requires this generated token (choose one with --admin-token or "
                f"{ADMIN_TOKEN_ENV}): Authorization: Bearer {self.token}"
            )


def cmd_serve(args: argparse.Namespace) -> int:
    from a2a_lab.contract.catalogue import SelectionError, resolve_all, uncited
    from a2a_lab.contract.loader import ScenarioError
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
        served = resolve_all(args.scenario, cat) if args.scenario else list(cat.scenarios.values())
    except SelectionError as exc:
        return refuse(str(exc))
    except (KeyError, ScenarioError) as exc:
        return unresolved(exc)
    for warning in uncited(served if args.scenario else []):
        say(warning)
    scenario = served[0] if args.scenario and len(served) == 1 else None
    if scenario is not None:
        app: object = ScenarioApp(scenario, guard, **hosting)
        where = f"scenario {scenario.id} at the origin root"
    else:
        app = CatalogueApp(served, guard, **hosting)
        whose = f"the family {args.scenario}: " if args.scenario else ""
        where = f"{whose}{len(served)} scenarios under /<scenario-id>/ (isolated runs: POST /_lab/runs)"
    context = _tls_context(args, app, scenario)
    grpc_ids = [s.id for s in served if s.serves_grpc]
    no_grpc = grpcwire.missing() if grpc_ids else None
    ready = Banner(where, hosts, other, push_allow, grpc_ids, no_grpc, context, given, guard.token)
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


COMMAND = Command(
    "serve",
    "serve one scenario at the origin root, or several (all, a family) under /<scenario-id>/",
    add_arguments,
    cmd_serve,
    guarded=True,
    examples=(
        "a2a-lab serve quirks/advertised-method-not-found --port 8000",
        "a2a-lab serve recorded.yaml --port 0                 # a scenario file; port 0 picks a free port",
        "a2a-lab serve families/direct-message --port 0       # a family: each member under /<scenario-id>/",
        "a2a-lab serve --host 0.0.0.0 --allowed-host lab      # the whole catalogue, for other containers",
        "a2a-lab serve --host 0.0.0.0 --other-origin lab-alias --push-allow my-client   # client on another host",
    ),
    exit_codes=(
        (Exit.OK, "stopped (Ctrl-C)"),
        (Exit.USAGE, "usage error: an unknown scenario, a broken file, a port in use or out of range"),
    ),
)
