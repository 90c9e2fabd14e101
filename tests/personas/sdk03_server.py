# mypy: ignore-errors
# (Run by the sdk03 venv's Python against a2a-sdk 0.3.26; the type checker here sees a2a-sdk 1.3.0.)
"""The genuine a2a-sdk 0.3.26 server around the simple echo agent: run by the sdk03 venv's Python (not importable
here: 0.3 and 1.3 cannot share an environment). Binds loopback port 0, prints `PORT <n>` once it listens, serves
until killed. Its default app (A2AStarletteApplication): the card at both well-known paths, JSON-RPC 0.3 at `/`."""

from __future__ import annotations

import socket
from datetime import UTC, datetime

import uvicorn
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentSkill, Part, Task, TaskState, TaskStatus, TextPart


class EchoExecutor(AgentExecutor):
    """SUBMITTED -> WORKING -> one `echo: <text>` artifact -> COMPLETED (as the 1.3 echo agent does)."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id and context.context_id and context.message
        task = Task(
            id=context.task_id,
            context_id=context.context_id,
            # optional field; the 1.3 echo agent (and a2a-lab) sets it, written as TaskUpdater writes its own
            status=TaskStatus(state=TaskState.submitted, timestamp=datetime.now(UTC).isoformat()),
            history=[context.message],
        )
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.update_status(TaskState.working)
        await updater.add_artifact(
            [Part(root=TextPart(text=f"echo: {context.get_user_input()}"))],
            artifact_id="result",
            name="result",
            last_chunk=True,
        )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError("the echo executor finishes before anyone could cancel it")


def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    card = AgentCard(
        name="a2a-sdk echo",
        description="a2a-sdk 0.3.26 reference echo agent",
        url=f"http://127.0.0.1:{port}/",
        version="0.0.1",
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="echo", description="echoes text", tags=["echo"])],
    )
    handler = DefaultRequestHandler(agent_executor=EchoExecutor(), task_store=InMemoryTaskStore())
    app = A2AStarletteApplication(agent_card=card, http_handler=handler).build()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    # The socket listens before the port is printed: a client that connects at once waits in the kernel's backlog
    # until uvicorn accepts, so the parent needs no other sign of readiness.
    sock.listen(128)
    print(f"PORT {port}", flush=True)
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
