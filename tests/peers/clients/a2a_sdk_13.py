"""A client written the way a2a-sdk 1.3.0 users write one, driven by a2a-lab's handshake.

    python a2a_sdk_13.py [--mode default|streaming|polling|grpc] CARD_URL
    python a2a_sdk_13.py [--mode ...] --loop        # a2a-lab run --client-mode loop: one process, many scenarios

It resolves the card with A2ACardResolver, builds the client with ClientFactory, sends A2A_LAB_MESSAGE and
prints what it understood. Modes (one ClientConfig each, everything else the SDK's own defaults):

- default: `ClientConfig()`: streams when the card says `capabilities.streaming` (the SDK's default), and
  follows a task left open with GetTask, a bounded number of times.
- streaming: the same config, but a task left open, or whose stream broke (a network error), is followed by
  subscribing to it (`client.subscribe`, i.e. SubscribeToTask); where the SDK refuses that (the card does not
  offer streaming) it falls back to GetTask.
- polling: `ClientConfig(polling=True, streaming=False)`: `returnImmediately` on a unary SendMessage, then
  GetTask until the task stops.
- grpc: the default config with gRPC enabled as the SDK documents it (a2a-sdk[grpc]):
  `supported_protocol_bindings=["GRPC", "JSONRPC", "HTTP+JSON"]` and an insecure `grpc.aio` channel per url;
  the SDK still takes the first card interface it supports (the server's preference).

Of A2A_LAB_ACTION it acts on `token` (an `Authorization: Bearer` header on its httpx client) and `follow_up`
(a second message on the task's taskId and contextId). Like most real clients it writes no A2A_LAB_RESULT:
its verdict comes from the wire.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
from collections.abc import Mapping
from typing import Any

import httpx
import loop_driver
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientError
from a2a.types import (
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    SubscribeToTaskRequest,
    Task,
    TaskState,
)

POLLS, POLL_GAP_S = 20, 0.25
STOPPING = {
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
    TaskState.TASK_STATE_INPUT_REQUIRED,
    TaskState.TASK_STATE_AUTH_REQUIRED,
}


def texts(parts: Any) -> list[str]:
    return [p.text for p in parts if p.HasField("text")]


def describe(task: Task) -> dict[str, Any]:
    said = [t for a in task.artifacts for t in texts(a.parts)]
    if task.status.HasField("message"):
        said += texts(task.status.message.parts)
    return {"kind": "task", "task_id": task.id, "state": TaskState.Name(task.status.state), "text": " ".join(said)}


async def send(client: Client, message: Message, resume: bool = False) -> dict[str, Any] | Task | None:
    """One SendMessage (streamed or not, as the SDK decides): a direct message's summary, or the task.

    With `resume`, a stream that breaks (a network error) after the task is known leaves the task open for
    the caller to follow up, instead of failing the conversation.
    """
    task: Task | None = None
    task_id = ""
    try:
        async for response in client.send_message(SendMessageRequest(message=message)):
            kind = response.WhichOneof("payload")
            if kind == "message":
                return {"kind": "message", "text": " ".join(texts(response.message.parts))}
            if kind == "task":
                task = response.task
            elif kind == "status_update":
                task_id = response.status_update.task_id
                if task is not None:
                    task.status.CopyFrom(response.status_update.status)
            elif kind == "artifact_update":
                task_id = response.artifact_update.task_id
                if task is not None:
                    task.artifacts.append(response.artifact_update.artifact)
    except A2AClientError:
        if not resume or (task is None and not task_id):
            raise
        print("the stream broke; following the task up", file=sys.stderr)
    if task is None and task_id:  # a stream that never sent the task itself
        task = await client.get_task(GetTaskRequest(id=task_id))
    return task


async def poll(client: Client, task: Task) -> Task:
    for _ in range(POLLS):
        if task.status.state in STOPPING:
            break
        await asyncio.sleep(POLL_GAP_S)
        task = await client.get_task(GetTaskRequest(id=task.id))
    return task


async def subscribe(client: Client, task: Task) -> Task:
    if task.status.state in STOPPING:
        return task
    try:
        async for response in client.subscribe(SubscribeToTaskRequest(id=task.id)):
            kind = response.WhichOneof("payload")
            if kind == "task":
                task = response.task
            elif kind == "status_update":
                task.status.CopyFrom(response.status_update.status)
            elif kind == "artifact_update":
                task.artifacts.append(response.artifact_update.artifact)
    except NotImplementedError:  # the SDK's answer when the card does not offer streaming
        pass
    return await poll(client, task)


async def converse(card_url: str, mode: str, text: str, action: dict[str, Any]) -> list[dict[str, Any]]:
    base, _, path = card_url.partition("/.well-known/")
    headers = {"Authorization": f"Bearer {action['token']}"} if action.get("token") else {}
    follow = subscribe if mode == "streaming" else poll
    async with httpx.AsyncClient(headers=headers) as http:  # httpx's default timeouts, as users get them
        card = await A2ACardResolver(http, base, "/.well-known/" + path).get_agent_card()
        config = ClientConfig(httpx_client=http, polling=True, streaming=False) if mode == "polling" else None
        if mode == "grpc":
            import grpc  # a2a-sdk[grpc]

            config = ClientConfig(
                httpx_client=http,
                supported_protocol_bindings=["GRPC", "JSONRPC", "HTTP+JSON"],
                grpc_channel_factory=grpc.aio.insecure_channel,
            )
        client = ClientFactory(config or ClientConfig(httpx_client=http)).create(card)
        said: list[dict[str, Any]] = []
        message = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)])
        answer = await send(client, message, resume=mode == "streaming")
        if isinstance(answer, Task):
            answer = await follow(client, answer)
        if answer is None:
            return [{"kind": "nothing"}]
        said.append(answer if isinstance(answer, dict) else describe(answer))
        if action.get("follow_up") and isinstance(answer, Task):
            again = Message(
                message_id=str(uuid.uuid4()),
                role=Role.ROLE_USER,
                parts=[Part(text=action["follow_up"])],
                task_id=answer.id,
                context_id=answer.context_id,
            )
            second = await send(client, again, resume=mode == "streaming")
            if isinstance(second, Task):
                second = await follow(client, second)
            if second is not None:
                said.append(second if isinstance(second, dict) else describe(second))
        await client.close()
        return said


def scenario(card_url: str, mode: str, variables: Mapping[str, str]) -> int:
    """One scenario, as the process for it does: what it understood on stdout; its exit code."""
    text = variables.get("A2A_LAB_MESSAGE", "Hello")
    action = json.loads(variables.get("A2A_LAB_ACTION") or "{}")
    try:
        said = asyncio.run(converse(card_url, mode, text, action))
    except Exception as exc:  # what a script does: report and exit non-zero
        reason = " ".join(str(exc).split())
        print(f"error: {type(exc).__name__}: {reason[:400]}", file=sys.stderr)
        return 1
    for answer in said:
        print(json.dumps(answer), flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["default", "streaming", "polling", "grpc"], default="default")
    parser.add_argument("--loop", action="store_true", help="speak the loop handshake (--client-mode loop)")
    parser.add_argument("card_url", nargs="?")
    args = parser.parse_args()
    if args.loop:
        return loop_driver.serve(lambda card_url, variables: scenario(card_url, args.mode, variables))
    if args.card_url is None:
        parser.error("give the CARD_URL, or --loop")
    return scenario(args.card_url, args.mode, os.environ)


if __name__ == "__main__":
    sys.exit(main())
