# mypy: ignore-errors
# (this script runs in the a2a-sdk 0.3.26 venv; the environment mypy checks in has a2a-sdk 1.3.0, another API)
"""A client written the way a2a-sdk 0.3.26 users write one (the genuine A2A 0.3 line), driven by a2a-lab's handshake.

    CACHE/sdk03/bin/python a2a_sdk_03.py CARD_URL        (tests/peers/install.sh makes that venv)
    CACHE/sdk03/bin/python a2a_sdk_03.py --loop          (a2a-lab run --client-mode loop: many scenarios)

It fetches the card with A2ACardResolver, builds the client with `ClientFactory(ClientConfig(...)).create(card)`
(the SDK's defaults: streaming when the card says so, the card's preferred transport, JSON-RPC only), sends
A2A_LAB_MESSAGE, and when the answer is a task still running, polls `get_task` (tasks/get) a bounded number of
times, as the 0.3 samples do. Of A2A_LAB_ACTION it acts on `token` (an `Authorization: Bearer` header on its
httpx client) and `follow_up` (a second message on the task's taskId and contextId). It writes no
A2A_LAB_RESULT: its verdict comes from the wire.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from typing import Any

import httpx
import loop_driver
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.types import Message, Part, Role, Task, TaskQueryParams, TaskState, TextPart

POLLS, POLL_GAP_S = 20, 0.25
STOPPING = {
    TaskState.completed,
    TaskState.failed,
    TaskState.canceled,
    TaskState.rejected,
    TaskState.input_required,
    TaskState.auth_required,
}


def texts(parts: list[Part] | None) -> list[str]:
    return [p.root.text for p in parts or [] if isinstance(p.root, TextPart)]


def describe(task: Task) -> dict[str, Any]:
    said = [t for a in task.artifacts or [] for t in texts(a.parts)]
    if task.status.message is not None:
        said += texts(task.status.message.parts)
    return {"kind": "task", "task_id": task.id, "state": task.status.state.value, "text": " ".join(said)}


async def send(client: Client, message: Message) -> dict[str, Any] | Task | None:
    """One message/send or message/stream (as the SDK decides): a direct message's summary, or the task."""
    task: Task | None = None
    async for event in client.send_message(message):
        if isinstance(event, Message):
            return {"kind": "message", "text": " ".join(texts(event.parts))}
        task, _update = event  # the SDK folds every stream update into the task it returns
    if task is None:
        return None
    for _ in range(POLLS):
        if task.status.state in STOPPING:
            break
        await asyncio.sleep(POLL_GAP_S)
        task = await client.get_task(TaskQueryParams(id=task.id))
    return task


async def converse(card_url: str, text: str, action: dict[str, Any]) -> list[dict[str, Any]]:
    base, _, path = card_url.partition("/.well-known/")
    headers = {"Authorization": f"Bearer {action['token']}"} if action.get("token") else {}
    async with httpx.AsyncClient(headers=headers) as http:  # httpx's default timeouts, as users get them
        card = await A2ACardResolver(http, base, "/.well-known/" + path).get_agent_card()
        client = ClientFactory(ClientConfig(httpx_client=http)).create(card)
        said: list[dict[str, Any]] = []
        message = Message(role=Role.user, parts=[Part(root=TextPart(text=text))], message_id=str(uuid.uuid4()))
        answer = await send(client, message)
        if answer is None:
            return [{"kind": "nothing"}]
        said.append(answer if isinstance(answer, dict) else describe(answer))
        if action.get("follow_up") and isinstance(answer, Task):
            again = Message(
                role=Role.user,
                parts=[Part(root=TextPart(text=action["follow_up"]))],
                message_id=str(uuid.uuid4()),
                task_id=answer.id,
                context_id=answer.context_id,
            )
            second = await send(client, again)
            if second is not None:
                said.append(second if isinstance(second, dict) else describe(second))
        await client.close()
        return said


def main() -> int:
    return loop_driver.main(converse, "a2a_sdk_03.py")


if __name__ == "__main__":
    sys.exit(main())
