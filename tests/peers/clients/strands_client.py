# mypy: ignore-errors
# (this script runs in the frameworks venv of tests/peers/install.sh, on a2a-sdk 0.3.26: not the API mypy checks)
"""A client written the way strands-agents 1.62.0 users call a remote A2A agent, driven by a2a-lab's handshake.

    CACHE/frameworks/bin/python strands_client.py CARD_URL    (tests/peers/install.sh makes that venv)
    CACHE/frameworks/bin/python strands_client.py --loop      (a2a-lab run --client-mode loop: many scenarios)

`A2AAgent(endpoint=BASE)` (strands.agent.a2a_agent) fetches the card itself from BASE/.well-known/agent-card.json
(it takes no card path, so BASE is the card URL up to `/.well-known/`), builds an a2a-sdk 0.3.26 client with
`streaming=True` (a stream whenever the card allows one, else a blocking message/send), and `stream_async(text)`
yields the A2A events, then the AgentResult of the last complete one. It never asks for a task again (no tasks/get)
and cannot continue a task (its messages carry no taskId or contextId). Of A2A_LAB_ACTION it acts on `token` (an
`Authorization: Bearer` header on the httpx client given through `client_config`, as its docs show for
authenticated agents) and `new_message` (a second `stream_async` on the same agent); `follow_up` it cannot do. It
writes no A2A_LAB_RESULT: its verdict comes from the wire.
"""

from __future__ import annotations

import sys
from typing import Any

import httpx
import loop_driver
from a2a.client import ClientConfig
from a2a.types import Message
from strands.agent.a2a_agent import A2AAgent

#: A2AAgent's own default timeout for its HTTP calls (strands.agent.a2a_agent._DEFAULT_TIMEOUT), kept when the driver
#: gives it an httpx client of its own (for a token).
TIMEOUT_S = 300


def understood(last: Any, result: Any) -> dict[str, Any]:
    """What the caller learns: the kind of the last A2A event, the task's id and state, and the result's text."""
    text = " ".join(block["text"] for block in result.message.get("content", []) if "text" in block)
    if isinstance(last, Message):
        return {"kind": "message", "text": text}
    task = last[0] if isinstance(last, tuple) else None
    if task is None:
        return {"kind": "nothing", "text": text}
    return {"kind": "task", "task_id": task.id, "state": task.status.state.value, "text": text}


async def ask(agent: A2AAgent, text: str) -> dict[str, Any]:
    """One `stream_async` call, as the library's docs show it: the A2A events, then the result."""
    last, result = None, None
    async for event in agent.stream_async(text):
        if event.get("type") == "a2a_stream":
            last = event["event"]
        elif "result" in event:
            result = event["result"]
    if result is None:
        return {"kind": "nothing"}
    return understood(last, result)


async def converse(card_url: str, text: str, action: dict[str, Any]) -> list[dict[str, Any]]:
    base = card_url.partition("/.well-known/")[0]
    if action.get("token"):
        headers = {"Authorization": f"Bearer {action['token']}"}
        async with httpx.AsyncClient(headers=headers, timeout=TIMEOUT_S) as http:
            agent = A2AAgent(endpoint=base, client_config=ClientConfig(httpx_client=http))
            return await turns(agent, text, action)
    return await turns(A2AAgent(endpoint=base), text, action)


async def turns(agent: A2AAgent, text: str, action: dict[str, Any]) -> list[dict[str, Any]]:
    said = [await ask(agent, text)]
    if action.get("new_message"):
        said.append(await ask(agent, action["new_message"]))
    return said


def main() -> int:
    return loop_driver.main(converse, "strands_client.py")


if __name__ == "__main__":
    sys.exit(main())
