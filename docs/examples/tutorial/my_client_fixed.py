"""A tiny A2A 1.0 client over JSON-RPC, as the a2a-lab tutorial writes it (docs/tutorials/client-python.md).

Usage: python my_client.py CARD_URL [TEXT]
"""

import json
import os
import sys
import time
import uuid

import httpx

HEADERS = {"A2A-Version": "1.0"}
STOPPED = {"TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"}
INTERRUPTED = {"TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"}


def pick_interface(card):
    """Where to send: the first interface the card lists that this client speaks (spec §8.3.2)."""
    for interface in card["supportedInterfaces"]:
        if interface["protocolBinding"] == "JSONRPC" and interface.get("protocolVersion") == "1.0":
            return interface
    raise SystemExit("the card offers no JSON-RPC 1.0 interface")


def call(http, interface, method, params):
    """One JSON-RPC request; its result, or an exception carrying the A2A error."""
    if interface.get("tenant"):
        params = {**params, "tenant": interface["tenant"]}
    request = {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params}
    body = http.post(interface["url"], json=request, headers=HEADERS).json()
    if "error" in body:
        raise RuntimeError(body["error"])
    return body["result"]


def text_of(parts):
    return " ".join(part["text"] for part in parts or [] if "text" in part)


def main():
    card_url = sys.argv[1]
    text = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("A2A_LAB_MESSAGE", "hello")
    with httpx.Client(timeout=15) as http:
        card = http.get(card_url).json()
        interface = pick_interface(card)
        message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
        try:
            result = call(http, interface, "SendMessage", {"message": message})
            if "message" in result:
                answer = {"kind": "message", "text": text_of(result["message"]["parts"])}
            else:
                task = result["task"]
                for _ in range(30):  # follow the task up until it stops, politely and boundedly
                    if task["status"]["state"] in STOPPED | INTERRUPTED:
                        break
                    time.sleep(0.2)
                    task = call(http, interface, "GetTask", {"id": task["id"]})
                parts = [p for artifact in task.get("artifacts", []) for p in artifact["parts"]]
                status_parts = task["status"].get("message", {}).get("parts")
                answer = {"kind": "task", "state": task["status"]["state"], "text": text_of(parts or status_parts)}
        except (RuntimeError, ValueError, KeyError, httpx.HTTPError) as exc:
            answer = {"kind": "error", "text": str(exc)}
            if isinstance(exc, RuntimeError) and isinstance(exc.args[0], dict) and "code" in exc.args[0]:
                answer["error"] = {"code": exc.args[0]["code"]}
    print(answer.get("state", answer["kind"]), answer["text"])
    if os.environ.get("A2A_LAB_RESULT"):  # what the client understood, for a2a-lab to compare with the wire
        with open(os.environ["A2A_LAB_RESULT"], "w", encoding="utf-8") as f:
            json.dump(answer, f)
    return 1 if answer["kind"] == "error" else 0


if __name__ == "__main__":
    sys.exit(main())
