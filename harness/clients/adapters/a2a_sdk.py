"""Drive the official a2a-sdk Python client through the a2a-lab handshake.

Usage: python -m a2a_lab.harness.clients.adapters.a2a_sdk CARD_URL
It does what an SDK user writes by default: resolve the card, `create_client` with a default ClientConfig
(streaming on when the card allows it), send A2A_LAB_MESSAGE, read the answer, and poll GetTask a
bounded number of times if the task is still running. The result goes to A2A_LAB_RESULT.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from typing import Any

from a2a_lab.contract.handshake import ENV_MESSAGE, ENV_RESULT
from a2a_lab.harness.common.exit_codes import ClientExit
from a2a_lab.harness.common.messages import say
from a2a_lab.protocol import states
from a2a_lab.protocol.cards import WELL_KNOWN_PATH, WELL_KNOWN_PREFIX

POLLS, POLL_GAP_S = 10, 0.3


def _texts(parts: Any) -> list[str]:
    return [p.text for p in parts if p.HasField("text")] if parts is not None else []


async def run(card_url: str, text: str) -> dict[str, Any]:
    import httpx
    from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
    from a2a.types import GetTaskRequest, Message, Part, Role, SendMessageRequest, TaskState

    base, prefix, name = card_url.partition(WELL_KNOWN_PREFIX)
    # The SDK's enum uses the 1.0 ProtoJSON names, as a2a-lab's does: poll until a state where a blocking send returns.
    stopping = {TaskState.Value(state.value) for state in states.TaskState if state.stops}
    async with httpx.AsyncClient(trust_env=False) as http:  # httpx's default timeouts, as an SDK user gets them
        card = await A2ACardResolver(http, base, prefix + name if name else WELL_KNOWN_PATH).get_agent_card()
        client = ClientFactory(ClientConfig(httpx_client=http)).create(card)
        message = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)])
        result: dict[str, Any] = {"kind": "error", "state": None, "text": ""}
        task = None
        task_id = None
        texts: list[str] = []
        async for response in client.send_message(SendMessageRequest(message=message)):
            kind = response.WhichOneof("payload")
            if kind == "message":
                return {"kind": "message", "state": None, "text": " ".join(_texts(response.message.parts))}
            if kind == "task":
                task = response.task
            elif kind == "status_update":
                task_id = response.status_update.task_id
                if task is not None:
                    task.status.CopyFrom(response.status_update.status)
            elif kind == "artifact_update":
                task_id = response.artifact_update.task_id
                texts += _texts(response.artifact_update.artifact.parts)
        if task is None and task_id:  # a stream that never sent the task itself: ask for it
            task = await client.get_task(GetTaskRequest(id=task_id))
        if task is None:
            return result
        polls = 0
        while task.status.state not in stopping and polls < POLLS:
            polls += 1
            await asyncio.sleep(POLL_GAP_S)
            task = await client.get_task(GetTaskRequest(id=task.id))
        for artifact in task.artifacts:
            texts += [t for t in _texts(artifact.parts) if t not in texts]
        if task.status.HasField("message"):
            texts += _texts(task.status.message.parts)
        return {"kind": "task", "state": TaskState.Name(task.status.state), "text": " ".join(texts), "task_id": task.id}


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: python -m a2a_lab.harness.clients.adapters.a2a_sdk CARD_URL", file=sys.stderr)
        return ClientExit.USAGE
    try:
        import a2a.client  # noqa: F401
    except ImportError:
        say("the a2a-sdk adapter needs the official SDK: pip install 'a2a-sdk[http-server]>=1.3'")
        return ClientExit.USAGE
    text = os.environ.get(ENV_MESSAGE, "Hello from a2a-lab")
    try:
        result = asyncio.run(run(sys.argv[1], text))
        code = ClientExit.ANSWER if result["kind"] != "error" else ClientExit.NO_ANSWER
    except Exception as exc:
        result = {"kind": "error", "state": None, "text": "", "error": f"{type(exc).__name__}: {exc}"}
        code = ClientExit.NO_ANSWER
    print(json.dumps(result))
    if os.environ.get(ENV_RESULT):
        with open(os.environ[ENV_RESULT], "w", encoding="utf-8") as fh:
            json.dump(result, fh)
    return code


if __name__ == "__main__":
    sys.exit(main())
