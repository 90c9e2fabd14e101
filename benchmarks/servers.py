"""The servers the benchmark compares, each started in its own process: `python servers.py KIND` prints its URL.

KIND: lab (a2a-lab, the benchmark scenario, served as `a2a-lab serve` serves it), sdk (the official a2a-sdk 1.3.0
server doing the same work), bare (a bare Starlette endpoint returning the same JSON: the stack's ceiling). All under
the same uvicorn (h11).
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import uvicorn

HERE = Path(__file__).resolve().parent
SSE_EVENTS = 20


def listen() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    return sock


def lab_app() -> Any:
    from a2a_lab.contract.loader import load_file
    from a2a_lab.server.app import ScenarioApp

    return ScenarioApp(load_file(HERE / "bench-scenario.yaml", "bench"))


def sdk_app() -> Any:
    from a2a.helpers.proto_helpers import new_task
    from a2a.server.agent_execution import AgentExecutor, RequestContext
    from a2a.server.events import EventQueue
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.types.a2a_pb2 import (
        AgentCapabilities,
        AgentCard,
        AgentInterface,
        AgentSkill,
        Message,
        Part,
        Role,
        TaskState,
    )
    from starlette.applications import Starlette

    class Echo(AgentExecutor):
        """The same work as the a2a-lab scenario: a direct message, or a completed task with one artifact."""

        async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
            text, message = context.get_user_input(), context.message
            task_id, context_id = context.task_id, context.context_id
            assert message is not None and task_id is not None and context_id is not None
            if message.message_id.startswith("direct-"):
                await event_queue.enqueue_event(
                    Message(
                        message_id=str(uuid.uuid4()),
                        context_id=context_id,
                        role=Role.ROLE_AGENT,
                        parts=[Part(text=f"echo: {text}")],
                    )
                )
                return
            await event_queue.enqueue_event(
                new_task(task_id, context_id, TaskState.TASK_STATE_SUBMITTED, history=[message])
            )
            updater = TaskUpdater(event_queue, task_id, context_id)
            if message.message_id.startswith("stream-"):
                for _ in range(SSE_EVENTS - 3):
                    await updater.update_status(TaskState.TASK_STATE_WORKING)
            await updater.add_artifact([Part(text=f"echo: {text}")], artifact_id="result", name="result")
            await updater.complete()

        async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
            raise NotImplementedError

    card = AgentCard(
        name="bench",
        description="benchmark agent",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url="http://127.0.0.1/", protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="echo", description="echoes", tags=["echo"])],
    )
    handler = DefaultRequestHandler(Echo(), InMemoryTaskStore(), card)
    return Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, rpc_url="/")])


def bare_app() -> Any:
    from sse_starlette import EventSourceResponse
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    task = {
        "id": "8a3c1f2e-0000-4000-8000-000000000001",
        "contextId": "8a3c1f2e-0000-4000-8000-000000000002",
        "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2026-11-30T00:00:00.000Z"},
        "artifacts": [{"artifactId": "result", "name": "result", "parts": [{"text": "echo: hello"}]}],
    }
    message = {
        "messageId": "8a3c1f2e-0000-4000-8000-000000000003",
        "contextId": "c",
        "role": "ROLE_AGENT",
        "parts": [{"text": "echo: hello"}],
    }

    async def rpc(request: Request) -> Response:
        body = await request.json()
        if body["method"] == "SendStreamingMessage":

            async def events() -> AsyncIterator[str]:
                for _ in range(SSE_EVENTS):
                    yield json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": {"task": task}})

            return EventSourceResponse(events())
        if body["method"] == "GetTask":
            result = task
        elif body["params"]["message"]["messageId"].startswith("direct-"):
            result = {"message": message}
        else:
            result = {"task": task}
        return Response(
            json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}), media_type="application/json"
        )

    return Starlette(routes=[Route("/", rpc, methods=["POST"])])


def main() -> None:
    kind = sys.argv[1]
    app = {"lab": lab_app, "sdk": sdk_app, "bare": bare_app}[kind]()
    if kind == "lab":  # as `a2a-lab serve` runs it: a2a-lab's uvicorn protocol and collector settings
        from a2a_lab.server.hosting import serve_forever

        serve_forever(app, "127.0.0.1", 0, "error", on_ready=lambda url: print(url, flush=True))
        return
    sock = listen()
    print(f"http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="error", access_log=False, lifespan="on")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
