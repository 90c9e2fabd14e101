# mypy: ignore-errors
# (this script runs in the frameworks venv of tests/peers/install.sh, on a2a-sdk 0.3.26: not the API mypy checks)
"""A client written the way beeai-framework 0.1.85 users call a remote A2A agent, driven by a2a-lab's handshake.

    CACHE/frameworks/bin/python beeai_client.py CARD_URL    (tests/peers/install.sh makes that venv)
    CACHE/frameworks/bin/python beeai_client.py --loop      (a2a-lab run --client-mode loop: many scenarios)

As the framework's A2A page shows: `A2AAgent(url=BASE, agent_card_path=PATH, memory=UnconstrainedMemory())`, then
`await agent.run(text).on("update", ...)`. The agent fetches the card itself, builds an a2a-sdk 0.3.26 client that
supports JSON-RPC, gRPC and HTTP+JSON (the card's preferred transport first), streams when the card says
`capabilities.streaming`, and answers with the last message, artifact or status message it got; it never asks for a
task again (no tasks/get). Of A2A_LAB_ACTION it acts on `token` (an `Authorization: Bearer` header through
`A2AAgentParameters(httpx_async_client=...)`), `follow_up` (a second `run` on the same agent with the first
task's `task_id` and `context_id`, the run options for continuing a task) and `new_message` (a second `run` on the
same agent, which keeps its context). It writes no A2A_LAB_RESULT: its verdict comes from the wire.
"""

from __future__ import annotations

import sys
from typing import Any

import loop_driver
from a2a.types import Message
from beeai_framework.adapters.a2a.agents import A2AAgent
from beeai_framework.adapters.a2a.agents.agent import A2AAgentParameters, HttpxAsyncClientParameters
from beeai_framework.memory import UnconstrainedMemory


def understood(output: Any, updates: int) -> dict[str, Any]:
    """What the caller learns: the kind of the last A2A event, the task's id and state, and the answer's text."""
    text = output.last_message.text if output.last_message is not None else ""
    event = output.event
    if isinstance(event, Message):
        return {"kind": "message", "text": text, "updates": updates}
    task = event[0]
    return {"kind": "task", "task_id": task.id, "state": task.status.state.value, "text": text, "updates": updates}


async def ask(agent: A2AAgent, text: str, **options: Any) -> tuple[dict[str, Any], Any]:
    """One `run`, observing its "update" events as the docs show; (what it understood, the last A2A event)."""
    updates: list[Any] = []
    output = await agent.run(text, **options).on("update", lambda data, _meta: updates.append(data.value))
    return understood(output, len(updates)), output.event


async def converse(card_url: str, text: str, action: dict[str, Any]) -> list[dict[str, Any]]:
    base, _, path = card_url.partition("/.well-known/")
    parameters = None
    if action.get("token"):
        headers = {"Authorization": f"Bearer {action['token']}"}
        parameters = A2AAgentParameters(httpx_async_client=HttpxAsyncClientParameters(headers=headers))
    agent = A2AAgent(
        url=base, agent_card_path="/.well-known/" + path, memory=UnconstrainedMemory(), parameters=parameters
    )
    first, event = await ask(agent, text)
    said = [first]
    if action.get("follow_up") and isinstance(event, tuple):
        task = event[0]
        said.append((await ask(agent, action["follow_up"], task_id=task.id, context_id=task.context_id))[0])
    if action.get("new_message"):
        said.append((await ask(agent, action["new_message"]))[0])
    return said


def main() -> int:
    return loop_driver.main(converse, "beeai_client.py", causes=True)


if __name__ == "__main__":
    sys.exit(main())
