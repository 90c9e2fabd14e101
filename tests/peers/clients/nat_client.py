# mypy: ignore-errors
# (this script runs in the nat venv of tests/peers/install.sh, on a2a-sdk 0.3.26: not the API mypy checks)
"""A client written the way NVIDIA NeMo Agent Toolkit (nvidia-nat-a2a 1.9.0) reaches a remote A2A agent without a
model, driven by a2a-lab's handshake.

    CACHE/nat/bin/python nat_client.py CARD_URL    (tests/peers/install.sh makes that venv)
    CACHE/nat/bin/python nat_client.py --loop      (a2a-lab run --client-mode loop: many scenarios)

It builds the `a2a_client` function group as `nat a2a client call` does: the toolkit's plugins registered, a
`WorkflowBuilder`, the CLI's user id in the context, `A2AClientConfig(url=BASE, agent_card_path=PATH,
task_timeout=timedelta(seconds=30))` (the CLI's default `--timeout`; the card path from the card URL, as a workflow's
config names it), and for a token the CLI's `--bearer-token` provider (`APIKeyAuthProviderConfig(auth_scheme=BEARER)`,
which a2a-sdk's AuthInterceptor sends only where the card's security schemes ask for it). The group fetches the card
on creation; the driver then calls its low-level `a2a_client__send_message` (the raw A2A events, so that a task's id
can be followed), with the config's default `streaming=False`: a blocking message/send, never a stream, and never
tasks/get afterwards. Of A2A_LAB_ACTION it acts on `token`, `follow_up` (a second send_message with the task's
`task_id` and `context_id`), `new_message` (a second send_message with neither) and `stream` (`streaming=True` in the
config). The toolkit logs handled errors with their stack traces (logger.error(..., exc_info=True)), and its plugin
discovery logs each plugin it cannot import (those that need LangChain) with one: the driver logs every record on one
line, naming the exception instead of tracing it, and ends a failed scenario's output with one `error:` line.
Telemetry stays off (NAT_TELEMETRY_ENABLED=false). It writes no A2A_LAB_RESULT: its verdict comes from the wire.
"""

from __future__ import annotations

import os

os.environ.setdefault("NAT_TELEMETRY_ENABLED", "false")  # before nat is imported: no usage events sent anywhere

import logging
import sys
from datetime import timedelta
from typing import Any

import loop_driver
from a2a.types import Message
from nat.authentication.api_key.api_key_auth_provider_config import APIKeyAuthProviderConfig
from nat.builder.context import ContextState
from nat.builder.workflow_builder import WorkflowBuilder
from nat.data_models.authentication import HeaderAuthScheme
from nat.plugins.a2a.client.client_config import A2AClientConfig
from nat.runtime.loader import PluginTypes, discover_and_register_plugins
from pydantic import SecretStr

#: `nat a2a client call --timeout` (seconds), the CLI's default.
TIMEOUT_S = 30
#: The user id `nat a2a client call` sets when given none (the group is per user).
USER_ID = "nat_a2a_cli_user_id"


class OneLine(logging.Formatter):
    """A log record on one line: an exception it carries is named, not traced (the toolkit logs handled errors with
    exc_info=True; a trace in the output would read as a crash)."""

    def format(self, record: logging.LogRecord) -> str:
        exc = record.exc_info[1] if record.exc_info else None
        plain = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None, "stack_info": None})
        named = f" [{type(exc).__name__}: {' '.join(str(exc).split())[:200]}]" if exc is not None else ""
        return " ".join(super().format(plain).split()) + named


def quiet_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)


def understood(events: list[Any]) -> dict[str, Any]:
    """What the caller learns from send_message's events: the last one's kind, its task's id and state, its text."""
    if not events:
        return {"kind": "nothing"}
    last = events[-1]
    if isinstance(last, Message):
        return {"kind": "message", "text": " ".join(p.root.text for p in last.parts if hasattr(p.root, "text"))}
    task = last[0]
    said = [p.root.text for a in task.artifacts or [] for p in a.parts if hasattr(p.root, "text")]
    if task.status.message is not None:
        said += [p.root.text for p in task.status.message.parts if hasattr(p.root, "text")]
    return {"kind": "task", "task_id": task.id, "state": task.status.state.value, "text": " ".join(said)}


async def converse(card_url: str, text: str, action: dict[str, Any]) -> list[dict[str, Any]]:
    base, _, path = card_url.partition("/.well-known/")
    async with WorkflowBuilder() as builder:
        ContextState().user_id.set(USER_ID)
        auth = None
        if action.get("token"):
            auth = "bearer_token_cli"
            bearer = APIKeyAuthProviderConfig(raw_key=SecretStr(action["token"]), auth_scheme=HeaderAuthScheme.BEARER)
            await builder.add_auth_provider(auth, bearer)
        config = A2AClientConfig(
            url=base,
            agent_card_path="/.well-known/" + path,
            task_timeout=timedelta(seconds=TIMEOUT_S),
            auth_provider=auth,
            streaming=bool(action.get("stream")),
        )
        group = await builder.add_function_group("a2a_client", config)
        send = (await group.get_accessible_functions())["a2a_client__send_message"]
        events = await send.acall_invoke(query=text, task_id=None, context_id=None)
        said = [understood(events)]
        last = events[-1] if events else None
        if action.get("follow_up") and isinstance(last, tuple):
            task = last[0]
            again = await send.acall_invoke(query=action["follow_up"], task_id=task.id, context_id=task.context_id)
            said.append(understood(again))
        if action.get("new_message"):
            said.append(understood(await send.acall_invoke(query=action["new_message"], task_id=None, context_id=None)))
        return said


def main() -> int:
    quiet_logging()
    discover_and_register_plugins(PluginTypes.CONFIG_OBJECT)  # as `nat a2a client` does first: the a2a_client group
    return loop_driver.main(converse, "nat_client.py", causes=True)


if __name__ == "__main__":
    sys.exit(main())
