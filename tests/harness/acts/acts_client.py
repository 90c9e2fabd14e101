"""A small A2A 1.0 JSON-RPC client of the tests' own for the ACTS client tests: it acts on the handshake
(A2A_LAB_CARD_URL, A2A_LAB_ACTION, A2A_LAB_RESULT) and reports what it parsed (`parsed`, `parsed_answers`), with
defects chosen on its command line (`--defect NAME`, repeatable):

    parse                 reports every parse wrong: ids, states, counts, error codes and capabilities changed
    no-parse              writes no `parsed` or `parsed_answers` (judged by the wire alone)
    ignore-capabilities   streams and registers a webhook whatever the card declares
    public-card-only      fetches the extended card but goes by the public card's capabilities
    no-follow-up          never asks GetTask about a task that is still working

Usage: python acts_client.py [--defect NAME]... CARD_URL
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import httpx

TERMINAL = {"TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"}


def rpc(http: httpx.Client, url: str, method: str, params: dict[str, Any], token: str = "") -> dict[str, Any]:
    headers = {"A2A-Version": "1.0", **({"Authorization": f"Bearer {token}"} if token else {})}
    body = {"jsonrpc": "2.0", "id": method, "method": method, "params": params}
    answer = http.post(url, json=body, headers=headers)
    return answer.json() if answer.status_code == 200 else {"error": {"code": answer.status_code, "message": "HTTP"}}


def stream(http: httpx.Client, url: str, params: dict[str, Any]) -> dict[str, Any]:
    """SendStreamingMessage: the last event's result, as a SendMessage answer (a task or a message)."""
    body = {"jsonrpc": "2.0", "id": "s", "method": "SendStreamingMessage", "params": params}
    last: dict[str, Any] = {}
    with http.stream("POST", url, json=body, headers={"A2A-Version": "1.0", "Accept": "text/event-stream"}) as answer:
        for line in answer.iter_lines():
            if line.startswith("data:"):
                last = json.loads(line[5:])
    result = last.get("result", {})
    if "statusUpdate" in result:
        update = result["statusUpdate"]
        return {"result": {"task": {"id": update.get("taskId"), "status": update.get("status")}}}
    return last


def wrong(parsed: Any) -> Any:
    """A parse with every value a test asserts on changed."""
    if isinstance(parsed, dict):
        out: dict[str, Any] = {}
        for key, value in parsed.items():
            if isinstance(value, bool):
                out[key] = not value
            elif isinstance(value, int):
                out[key] = value + 1
            elif isinstance(value, str):
                out[key] = "wrong-" + value
            elif isinstance(value, list):
                out[key] = []
            else:
                out[key] = wrong(value)
        return out
    return parsed


def main(argv: list[str]) -> int:
    defects = {argv[i + 1] for i, a in enumerate(argv) if a == "--defect"}
    card_url = argv[-1]
    action = json.loads(os.environ.get("A2A_LAB_ACTION") or "{}")
    parsed: dict[str, Any] = {}
    with httpx.Client(timeout=10) as http:
        card = http.get(card_url).json()
        public = card
        parsed["get_agent_card"] = card
        url = card["supportedInterfaces"][0]["url"]
        if action.get("extended_card") and card.get("capabilities", {}).get("extendedAgentCard"):
            got = rpc(http, url, "GetExtendedAgentCard", {}, action.get("token", ""))
            if "result" in got:
                card = parsed["get_extended_agent_card"] = got["result"]
        caps = (public if "public-card-only" in defects else card).get("capabilities", {})
        anyway = "ignore-capabilities" in defects
        params: dict[str, Any] = {
            "message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]},
        }
        if action.get("webhook") and (caps.get("pushNotifications") or anyway):
            params["configuration"] = {"taskPushNotificationConfig": {"url": "http://127.0.0.1:9/hook"}}
        if action.get("stream") and (caps.get("streaming") or anyway):
            answer = stream(http, url, params)
        else:
            answer = rpc(http, url, "SendMessage", params)
        first = answer.get("result", {"error": answer.get("error")})
        task = first.get("task") if isinstance(first, dict) else None
        working = isinstance(task, dict) and task.get("status", {}).get("state") not in TERMINAL
        if working and "no-follow-up" not in defects:
            assert isinstance(task, dict)
            got = rpc(http, url, "GetTask", {"id": task.get("id")})
            parsed["get_task"] = got.get("result", {"error": got.get("error")})
    result: dict[str, Any] = {"kind": "task" if task else "message"}
    if "no-parse" not in defects:
        result["parsed"] = wrong(first) if "parse" in defects else first
        result["parsed_answers"] = {k: wrong(v) if "parse" in defects else v for k, v in parsed.items()}
    with open(os.environ["A2A_LAB_RESULT"], "w", encoding="utf-8") as out:
        json.dump(result, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
