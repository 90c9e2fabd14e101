"""The real a2a-sdk 1.3.0 server around the simple echo agent, in this process (uvicorn on loopback port 0).

Its default app as a deployment builds it: the card at the well-known path, JSON-RPC at `/` and HTTP+JSON at `/rest`,
both with the SDK's 0.3 compatibility enabled (0.3 JSON-RPC methods on `/`, 0.3 REST under `/rest/v1`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from a2a.helpers.proto_helpers import new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part, TaskState
from starlette.applications import Starlette

from a2a_lab.server.hosting import BackgroundServer

from .fidelity import JSONRPC, REST, V03, V10, Peer

#: Where the app serves each binding (the 0.3 REST routes are the compat adapter's `/v1/...` under `/rest`).
BINDINGS = {(JSONRPC, V10): "/", (REST, V10): "/rest", (JSONRPC, V03): "/", (REST, V03): "/rest/v1"}


class EchoExecutor(AgentExecutor):
    """SUBMITTED -> WORKING -> one `echo: <text>` artifact -> COMPLETED, the way spec/conformant scripts it."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id and context.context_id and context.message
        task = new_task(context.task_id, context.context_id, TaskState.TASK_STATE_SUBMITTED, history=[context.message])
        task.status.timestamp.FromDatetime(datetime.now(UTC))  # optional field; a2a-lab sets it
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.update_status(TaskState.TASK_STATE_WORKING)
        # lastChunk is optional; a2a-lab's one-piece artifacts say lastChunk: true.
        await updater.add_artifact(
            [Part(text=f"echo: {context.get_user_input()}")], artifact_id="result", name="result", last_chunk=True
        )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError("the echo executor finishes before anyone could cancel it")


def echo_card(base_url: str, *, compat: bool) -> AgentCard:
    interfaces = [
        AgentInterface(url=f"{base_url}/", protocol_binding="JSONRPC", protocol_version="1.0"),
        AgentInterface(url=f"{base_url}/rest", protocol_binding="HTTP+JSON", protocol_version="1.0"),
    ]
    if compat:
        interfaces += [
            AgentInterface(url=f"{base_url}/", protocol_binding="JSONRPC", protocol_version="0.3"),
            AgentInterface(url=f"{base_url}/rest", protocol_binding="HTTP+JSON", protocol_version="0.3"),
        ]
    return AgentCard(
        name="a2a-sdk echo",
        description="a2a-sdk 1.3.0 reference echo agent",
        version="0.0.1",
        supported_interfaces=interfaces,
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="echo", description="echoes text", tags=["echo"])],
    )


@contextmanager
def sdk13_server(*, compat: bool = True) -> Iterator[Peer]:
    """The server running; a Peer naming its bindings (the 0.3 ones only with `compat`)."""
    app = Starlette()
    server = BackgroundServer(app)  # binds port 0 now, so the card can name the real URL
    card = echo_card(server.url, compat=compat)
    handler = DefaultRequestHandler(EchoExecutor(), InMemoryTaskStore(), card)
    app.router.routes.extend(
        [
            *create_agent_card_routes(card),
            *create_jsonrpc_routes(handler, rpc_url="/", enable_v0_3_compat=compat),
            *create_rest_routes(handler, path_prefix="/rest", enable_v0_3_compat=compat),
        ]
    )
    bindings = BINDINGS if compat else {k: v for k, v in BINDINGS.items() if k[1] == V10}
    with server:
        yield Peer("a2a-sdk 1.3.0", server.url, bindings)
