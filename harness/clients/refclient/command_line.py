"""`a2a-lab client` (and `python -m a2a_lab.harness.clients.refclient`): the reference client's command line, its
options and its loop.

What the scenario asks beyond one message comes from A2A_LAB_ACTION (see docs/reference/handshake.md); every
action also has a flag, and a flag given on the command line wins over the action.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from typing import Any

from a2a_lab.contract import handshake
from a2a_lab.contract.handshake import ENV_CA_FILE, ENV_CLIENT_CERT_FILE, ENV_CLIENT_KEY_FILE, ENV_WEBHOOK_HOST
from a2a_lab.harness.clients.refclient import options as client_options
from a2a_lab.harness.clients.refclient.failures import UsageFailure
from a2a_lab.harness.clients.refclient.options import (
    AUTH_SCHEMES,
    DEFAULT_TEXT,
    ENV_ACTION,
    ENV_CARD_URL,
    ENV_MESSAGE,
    ClientOptions,
)
from a2a_lab.harness.common import escape
from a2a_lab.harness.common.messages import refuse, say
from a2a_lab.protocol.bindings import SHORT_NAMES


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("card_url", nargs="?", help=f"the agent's card URL or base URL (default: ${ENV_CARD_URL})")
    p.add_argument("text", nargs="?", help=f"the message text (default: ${ENV_MESSAGE} or {DEFAULT_TEXT!r})")
    p.add_argument(
        "--follow",
        type=int,
        default=client_options.DEFAULT_FOLLOW,
        metavar="N",
        help=f"at most N GetTask follow-ups for a running task, per message (default {client_options.DEFAULT_FOLLOW})",
    )
    p.add_argument(
        "--binding",
        choices=list(SHORT_NAMES),
        help="use only this binding",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--loop",
        action="store_true",
        help="speak the loop handshake (`a2a-lab run --client-mode loop`): run one scenario per line of stdin (its "
        "handshake variables as JSON) and answer each with one line, until stdin ends",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=client_options.READ_TIMEOUT_S,
        metavar="S",
        help=f"read timeout per request in seconds (default {client_options.READ_TIMEOUT_S:g})",
    )
    acts = _add_actions(p)
    _add_tls(p)  # between the actions and --verify-signature, where `usage:` has always listed them
    acts.add_argument(
        "--verify-signature",
        metavar="JWKS_FILE",
        help="verify the card's signature with the key set in JWKS_FILE before "
        "calling the agent; refuse the agent when none verifies",
    )


def _add_actions(p: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """What a scenario may ask beyond one message, as flags (the group, for more)."""
    acts = p.add_argument_group(
        "actions", f"what a scenario may ask beyond one message; also read from ${ENV_ACTION} (a flag wins)"
    )
    acts.add_argument(
        "--stream", action="store_true", help="stream the answer when the card declares capabilities.streaming"
    )
    acts.add_argument(
        "--follow-up",
        metavar="TEXT",
        help="when the task stops (INPUT_REQUIRED, AUTH_REQUIRED, or finished), send TEXT once to the same task",
    )
    acts.add_argument(
        "--new-message",
        metavar="TEXT",
        help="when the first answer stops, send TEXT once as an unrelated new message (no taskId: a new task)",
    )
    acts.add_argument(
        "--cancel",
        action="store_true",
        help="cancel the task (CancelTask) while it has not stopped, and report the state it ends in",
    )
    acts.add_argument(
        "--webhook",
        action="store_true",
        help="register a webhook of the client's own (loopback) when the card declares "
        "capabilities.pushNotifications, and wait for its notifications",
    )
    acts.add_argument(
        "--webhook-auth",
        choices=AUTH_SCHEMES,
        help="how the webhook's config authenticates the agent's calls (default Bearer; token: the config's token "
        "alone, sent as X-A2A-Notification-Token)",
    )
    acts.add_argument(
        "--webhook-host",
        metavar="HOST",
        help=f"the host name or address the webhook's URL names, where the agent reaches this machine (default: "
        f"${ENV_WEBHOOK_HOST}, else loopback); the webhook listens where HOST resolves (a compose service name: the "
        "container's address)",
    )
    acts.add_argument(
        "--webhook-bind",
        metavar="ADDR",
        help="the address the webhook listens on (default: where --webhook-host resolves, else 127.0.0.1; "
        "0.0.0.0 for every address)",
    )
    acts.add_argument(
        "--push-configs",
        action="store_true",
        help="register the webhook with CreateTaskPushNotificationConfig, list and get it, delete it once the task "
        "stopped (with --webhook)",
    )
    acts.add_argument("--token", metavar="TOKEN", help="send Authorization: Bearer TOKEN on every A2A call")
    acts.add_argument(
        "--extended-card",
        action="store_true",
        help="fetch the extended card (authenticated) when the card offers one, and use its interfaces",
    )
    acts.add_argument(
        "--resubscribe",
        action="store_true",
        help="when a stream breaks before the task stops, SubscribeToTask (then GetTask) instead of GetTask alone",
    )
    return acts


def _add_tls(p: argparse.ArgumentParser) -> None:
    tls = p.add_argument_group("TLS (defaults: $A2A_LAB_CA_FILE, $A2A_LAB_CLIENT_CERT_FILE, $A2A_LAB_CLIENT_KEY_FILE)")
    tls.add_argument("--ca-file", metavar="PEM", help="trust this CA file for https (default: the system's trust)")
    tls.add_argument("--client-cert", metavar="PEM", help="present this client certificate (mutual TLS)")
    tls.add_argument("--client-key", metavar="PEM", help="the client certificate's key (default: in --client-cert)")


def _tls_options(args: argparse.Namespace, environ: Mapping[str, str]) -> dict[str, Any]:
    """Whom to trust and what certificate to present: the flags, else the handshake's environment."""
    out: dict[str, Any] = {}
    ca_file = args.ca_file or environ.get(ENV_CA_FILE)
    if ca_file:
        out["ca_file"] = ca_file
    cert = args.client_cert or environ.get(ENV_CLIENT_CERT_FILE)
    key = args.client_key or environ.get(ENV_CLIENT_KEY_FILE) or cert
    if cert:
        out["client_cert"] = (cert, key)
    return out


def options_from(args: argparse.Namespace, environ: Mapping[str, str]) -> tuple[ClientOptions, list[str]]:
    """ClientOptions from the flags and the scenario's action (flags win); warnings about the action.
    Raises UsageFailure for a bad action or key-set file."""
    from a2a_lab.harness.clients.refclient.actions import action_options, read_action
    from a2a_lab.harness.clients.refclient.signature import load_jwks

    from_action, warnings = action_options(read_action(environ))
    flags: dict[str, Any] = {}
    if args.stream:
        flags["stream"] = True
    if args.follow_up is not None:
        flags["follow_up"] = args.follow_up
    if args.new_message is not None:
        flags["new_message"] = args.new_message
    if args.cancel:
        flags["cancel"] = True
    if args.webhook:
        flags["webhook"] = True
    if args.webhook_auth is not None:
        flags["webhook_auth"] = args.webhook_auth
    if args.push_configs:
        flags["push_configs"] = True
    if args.token is not None:
        flags["token"] = args.token
    if args.extended_card:
        flags["extended_card"] = True
    if args.resubscribe:
        flags["resubscribe"] = True
    if args.verify_signature is not None:
        flags["jwks"] = load_jwks(args.verify_signature)
    host = args.webhook_host or environ.get(ENV_WEBHOOK_HOST)
    if host:
        flags["webhook_host"] = host
    if args.webhook_bind:
        flags["webhook_bind"] = args.webhook_bind
    flags.update(_tls_options(args, environ))
    chosen = {**from_action, **flags}
    options = ClientOptions(
        follow=args.follow,
        binding=SHORT_NAMES[args.binding] if args.binding else None,
        read_timeout=args.timeout,
        **chosen,
    )
    return options, warnings


def cmd_client(args: argparse.Namespace) -> int:
    """The reference client: discover the card, send one message, follow up, print what was understood."""
    if args.loop:
        return serve_loop(args)
    return one_scenario(args, os.environ)


def one_scenario(args: argparse.Namespace, environ: Mapping[str, str], loop: bool = False) -> int:
    """One message to one agent, told by the flags and `environ` (the handshake's variables); the exit code."""
    from a2a_lab.harness.clients.refclient.client import run
    from a2a_lab.harness.clients.refclient.result import render_text, report_to_env

    target = args.card_url or environ.get(ENV_CARD_URL)
    if not target:
        return refuse(f"usage: a2a-lab client CARD_URL [TEXT] (or set {ENV_CARD_URL})")
    if args.follow < 0 or args.timeout <= 0:
        return refuse("--follow must be >= 0 and --timeout > 0")
    try:
        options, warnings = options_from(args, environ)
    except UsageFailure as failure:
        return refuse(failure.message)
    text = args.text if args.text is not None else environ.get(ENV_MESSAGE, DEFAULT_TEXT)
    try:
        result = run(target, text, options)
    except UsageFailure as failure:  # the TLS files, checked as the client is made
        return refuse(failure.message)
    result.warnings[:0] = warnings
    for notice in result.notices:
        say(notice)
    try:
        report_to_env(result, environ)
    except OSError as exc:
        say(f"cannot write the result file: {exc}")
    shown = (
        json.dumps(result.to_json(), indent=2, ensure_ascii=False) if args.json else escape.console(render_text(result))
    )
    print(unlike_an_answer(shown) if loop else shown, flush=True)
    return result.exit_code


def unlike_an_answer(text: str) -> str:
    """A loop client's output, with a line that would read as an answer (an agent's text may say anything)
    indented."""
    prefix = handshake.LOOP_ANSWER
    return "\n".join(" " + line if line.startswith(prefix) else line for line in text.split("\n"))


def serve_loop(args: argparse.Namespace) -> int:
    """--loop: a scenario per line of stdin (a JSON object of the handshake's variables), one answer line each
    (`a2a-lab: done N`, N the exit code one scenario's process would have ended with), until stdin ends."""
    if args.card_url or args.text:
        return refuse("--loop takes each scenario's card URL and text from its line: give neither on the command line")
    for line in sys.stdin:
        try:
            fields = json.loads(line)
        except ValueError as exc:
            return refuse(f"--loop: a line of stdin is not JSON ({exc}): the harness writes one object per scenario")
        if not isinstance(fields, dict) or not all(isinstance(v, str) for v in fields.values()):
            return refuse("--loop: each line must be a JSON object of the handshake's variables (text values)")
        code = one_scenario(args, {**os.environ, **fields}, loop=True)
        print(f"{handshake.LOOP_ANSWER}{handshake.LOOP_DONE} {code}", flush=True)
    return 0
