"""The reference client: a careful, narrow A2A client built on httpx (and grpcio, with the `grpc` extra).

    from a2a_lab.harness.clients.refclient import ClientOptions, run
    result = run("http://127.0.0.1:8000", "hello", ClientOptions(follow=3))
    result.kind, result.state, result.text, result.exit_code
    run(url, "weather?", ClientOptions(follow_up="Paris", webhook=True, token="s3cret"))

It reads the card (bounded), picks the first interface it speaks (JSON-RPC or HTTP+JSON, A2A 1.0 or 0.3; gRPC
in A2A 1.0 when grpcio is installed), sends one message with the right method, shape and A2A-Version header
(metadata over gRPC), follows a running task up with GetTask a bounded number of times, falls back to the next
interface only when this one does not speak the method or version, and reports everything as a Result (never a
traceback).

What a scenario asks beyond one message (A2A_LAB_ACTION) maps to ClientOptions fields (actions.py):
answer the task once more (`follow_up`), send an unrelated new message (`new_message`), cancel the task
(`cancel`, cancel.py), stream, register a webhook of its own (webhook.py), present a bearer token, fetch the
extended card, resubscribe after a dropped stream, verify the card's signature.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from a2a_lab.harness.clients.refclient.actions import action_options, read_action
    from a2a_lab.harness.clients.refclient.client import run, user_message
    from a2a_lab.harness.clients.refclient.discovery import Discovered, card_urls, discover
    from a2a_lab.harness.clients.refclient.failures import ClientFailure, UsageFailure, invites_fallback
    from a2a_lab.harness.clients.refclient.http import make_client, user_agent
    from a2a_lab.harness.clients.refclient.options import (
        DEFAULT_TEXT,
        ENV_ACTION,
        ENV_CARD_URL,
        ENV_MESSAGE,
        ENV_RESULT,
        ClientOptions,
    )
    from a2a_lab.harness.clients.refclient.result import Result, render_text, report_to_env, write_result
    from a2a_lab.harness.clients.refclient.selection import SUPPORTED, Selection, select_interfaces
    from a2a_lab.harness.clients.refclient.signature import load_jwks, verify_card
    from a2a_lab.harness.clients.refclient.webhook import Notification, WebhookReceiver
    from a2a_lab.harness.common.exit_codes import ClientExit

#: Where each name of the package lives: imported on first use (PEP 562), so that `a2a-lab --help` and any command
#: that only reads an option's default from here (options.py) does not load httpx and the whole client.
_HOMES = {
    "action_options": "a2a_lab.harness.clients.refclient.actions",
    "read_action": "a2a_lab.harness.clients.refclient.actions",
    "run": "a2a_lab.harness.clients.refclient.client",
    "user_message": "a2a_lab.harness.clients.refclient.client",
    "Discovered": "a2a_lab.harness.clients.refclient.discovery",
    "card_urls": "a2a_lab.harness.clients.refclient.discovery",
    "discover": "a2a_lab.harness.clients.refclient.discovery",
    "ClientFailure": "a2a_lab.harness.clients.refclient.failures",
    "UsageFailure": "a2a_lab.harness.clients.refclient.failures",
    "invites_fallback": "a2a_lab.harness.clients.refclient.failures",
    "make_client": "a2a_lab.harness.clients.refclient.http",
    "user_agent": "a2a_lab.harness.clients.refclient.http",
    "DEFAULT_TEXT": "a2a_lab.harness.clients.refclient.options",
    "ENV_ACTION": "a2a_lab.harness.clients.refclient.options",
    "ENV_CARD_URL": "a2a_lab.harness.clients.refclient.options",
    "ENV_MESSAGE": "a2a_lab.harness.clients.refclient.options",
    "ENV_RESULT": "a2a_lab.harness.clients.refclient.options",
    "ClientOptions": "a2a_lab.harness.clients.refclient.options",
    "Result": "a2a_lab.harness.clients.refclient.result",
    "render_text": "a2a_lab.harness.clients.refclient.result",
    "report_to_env": "a2a_lab.harness.clients.refclient.result",
    "write_result": "a2a_lab.harness.clients.refclient.result",
    "SUPPORTED": "a2a_lab.harness.clients.refclient.selection",
    "Selection": "a2a_lab.harness.clients.refclient.selection",
    "select_interfaces": "a2a_lab.harness.clients.refclient.selection",
    "load_jwks": "a2a_lab.harness.clients.refclient.signature",
    "verify_card": "a2a_lab.harness.clients.refclient.signature",
    "Notification": "a2a_lab.harness.clients.refclient.webhook",
    "WebhookReceiver": "a2a_lab.harness.clients.refclient.webhook",
    "ClientExit": "a2a_lab.harness.common.exit_codes",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_TEXT",
    "ENV_ACTION",
    "ENV_CARD_URL",
    "ENV_MESSAGE",
    "ENV_RESULT",
    "SUPPORTED",
    "ClientExit",
    "ClientFailure",
    "ClientOptions",
    "Discovered",
    "Notification",
    "Result",
    "Selection",
    "UsageFailure",
    "WebhookReceiver",
    "action_options",
    "card_urls",
    "discover",
    "invites_fallback",
    "load_jwks",
    "make_client",
    "read_action",
    "render_text",
    "report_to_env",
    "run",
    "select_interfaces",
    "user_agent",
    "user_message",
    "verify_card",
    "write_result",
]
