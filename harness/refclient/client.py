"""The client's one conversation: discover, select, send one message, follow a task up politely, report.

- A message is the answer: never GetTask after it.
- A task in a terminal or interrupted state is the answer (artifacts are read from it).
- A SUBMITTED or WORKING task is followed up with GetTask at most `follow` times, waiting a little
  longer each time, until it stops.
- An interface that does not speak the method or version (-32601, -32009, HTTP+JSON 404/405) gives way
  to the next declared interface the client speaks: each is tried at most once.
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from a2a_lab.protocol import cards
from a2a_lab.protocol.cards import Interface
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import Role

from .discovery import discover
from .failures import ClientFailure, invites_fallback
from .http import make_client
from .options import DEFAULT_TEXT, ClientOptions
from .reading import Answer, StreamFold, TaskView, parts_text, read_send_result, read_task
from .result import Result
from .selection import select_interfaces
from .transport import Transport


def user_message(text: str) -> dict[str, Any]:
    """A canonical user message with a fresh messageId (uuid4) and no self-made contextId (§3.4.1, C6)."""
    return {"messageId": str(uuid.uuid4()), "role": Role.USER.value, "parts": [{"text": text}]}


def run(target: str, text: str = DEFAULT_TEXT, options: ClientOptions | None = None, http: httpx.Client | None = None) -> Result:
    """Talk to the agent behind `target` (its base URL or card URL) and report what was understood.

    Never raises for anything the server or the network does; the Result carries the error.
    """
    options = options or ClientOptions()
    own = http is None
    client = http if http is not None else make_client(options)
    result = Result()
    try:
        _run(client, target, text, options, result)
    except ClientFailure as failure:
        result.error = failure.as_dict()
    except Exception as exc:  # noqa: BLE001 - a client bug is reported as a result, never a traceback
        result.error = {"type": "internal", "message": f"a2a-lab reference client failed unexpectedly ({type(exc).__name__}: {exc}); please report it"}
    finally:
        if own:
            client.close()
    return result


def _run(http: httpx.Client, target: str, text: str, options: ClientOptions, result: Result) -> None:
    found = discover(http, target, options)
    result.card_url = found.url
    result.warnings.extend(found.warnings)
    selection = select_interfaces(found.card, options.binding)
    result.warnings.extend(selection.warnings)
    result.skipped = selection.skipped
    if not selection.candidates:
        declared = [i.label for i in cards.interfaces(found.card)]
        limit = f" {options.binding.value}" if options.binding else " JSONRPC or HTTP+JSON"
        raise ClientFailure("selection", f"the card declares no interface this client speaks ({limit.strip()}, A2A 1.0 or 0.3); declared: "
                            + ("; ".join(declared) or "none"))
    stream = options.stream
    if stream and not cards.capability(found.card, "streaming"):
        result.warnings.append("streaming was asked for, but the card does not declare capabilities.streaming: used SendMessage instead")
        stream = False
    for position, iface in enumerate(selection.candidates):
        result.interface = iface
        transport = Transport(http, iface, options)
        try:
            # A fresh messageId per request: the bodies differ between interfaces, so one id would be reused.
            answer, pending = _send(transport, user_message(text), stream, result)
        except ClientFailure as failure:
            if invites_fallback(failure) and position + 1 < len(selection.candidates):
                nxt = selection.candidates[position + 1]
                result.attempts.append({"interface": iface.label, "error": failure.message, **_brief(failure)})
                result.warnings.append(f"{iface.label} does not serve this call ({failure.message}); falling back to {nxt.label}")
                continue
            raise
        _finish(transport, answer, pending, options, result)
        return


def _brief(failure: ClientFailure) -> dict[str, Any]:
    return {k: failure.details[k] for k in ("code", "http_status", "reason") if k in failure.details}


def _send(transport: Transport, message: dict[str, Any], stream: bool, result: Result) -> tuple[Answer, ClientFailure | None]:
    """The answer to the one message, and a failure that broke a stream after a task was known (if any)."""
    params = {"message": message, "configuration": {"returnImmediately": False}}
    if not stream:
        body = transport.call(Operation.SEND_MESSAGE, params, result.warnings)
        return read_send_result(body, transport.form, result.warnings), None
    result.streamed = True
    fold = StreamFold(transport.form)
    events = transport.stream(Operation.SEND_STREAMING_MESSAGE, params, result.warnings)
    broken: ClientFailure | None = None
    try:
        for body in events:
            fold.apply(body, result.warnings)
            if fold.done:
                break
    except ClientFailure as failure:
        if fold.answer is None or fold.answer.task is None or fold.answer.task.id is None:
            raise
        broken = failure
    finally:
        events.close()
    if fold.answer is None:
        raise ClientFailure("invalid_response", f"the stream from {transport.iface.url} closed without any event",
                            {"operation": Operation.SEND_STREAMING_MESSAGE.value, "binding": transport.binding.value})
    if not fold.done and broken is None and not (fold.answer.task and fold.answer.task.stops):
        state = fold.answer.task.state.short if fold.answer.task and fold.answer.task.state else "an unknown state"
        result.warnings.append(f"the stream closed at {state}, before a terminal or interrupted state")
    return fold.answer, broken


def _finish(transport: Transport, answer: Answer, broken: ClientFailure | None, options: ClientOptions, result: Result) -> None:
    if answer.kind == "message":
        msg = answer.message or {}
        result.kind, result.text = "message", parts_text(msg.get("parts", []))
        result.context_id, result.task_id = msg.get("contextId"), msg.get("taskId")
        return
    task = answer.task or TaskView()
    if broken is not None:
        result.warnings.append(f"the stream broke off ({broken.message}); following the task up with GetTask")
    try:
        task = _follow_up(transport, task, options, result)
    finally:
        _take_task(result, task)
    if not task.stops:
        state = task.state.short if task.state else repr(task.raw_state)
        why = ("no follow-up was allowed (--follow 0)" if options.follow <= 0 else
               f"still {state} after {result.follow_ups} GetTask follow-up{'s' if result.follow_ups != 1 else ''}")
        if task.id is None:
            why = "the task has no id to follow up"
        result.error = {"type": "no_answer", "message": f"the task did not finish: {why}"}


def _take_task(result: Result, task: TaskView) -> None:
    result.kind, result.state, result.text = "task", task.state, task.text()
    result.task_id, result.context_id = task.id, task.context_id


def _follow_up(transport: Transport, task: TaskView, options: ClientOptions, result: Result) -> TaskView:
    delays = options.delays()
    while not task.stops and task.id is not None and result.follow_ups < len(delays):
        options.sleep(delays[result.follow_ups])
        result.follow_ups += 1
        try:
            body = transport.call(Operation.GET_TASK, {"id": task.id}, result.warnings)
        except ClientFailure as failure:
            _take_task(result, task)
            raise ClientFailure(failure.type, f"GetTask follow-up #{result.follow_ups}: {failure.message}", failure.details) from None
        fresh = read_task(body, transport.form, "GetTask result", result.warnings)
        if fresh.id != task.id:
            result.warnings.append(f"GetTask for {task.id!r} answered task {fresh.id!r}")
            fresh.id = fresh.id or task.id
        task = fresh
    return task
