"""The client's one conversation: discover, (verify,) select, send one message, follow a task up politely,
(answer it once,) report.

- A message is the answer: never GetTask after it.
- A task in a terminal or interrupted state is the answer (artifacts are read from it).
- A SUBMITTED or WORKING task is followed up (follow.py): GetTask at most `follow` times per turn, waiting
  a little longer each time; SubscribeToTask first after a broken stream when asked to resubscribe; the
  client's own webhook first when asked for one.
- An interface that does not speak the method or version (-32601, -32009, HTTP+JSON 404/405) gives way
  to the next declared interface the client speaks: each is tried at most once.
- What a scenario asks beyond that (ClientOptions: follow_up, new_message, cancel, stream, webhook, token,
  extended_card, resubscribe, jwks) is done only where the card allows it; otherwise the result says why not.
"""

from __future__ import annotations

import uuid
from contextlib import ExitStack, closing
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

import httpx

from a2a_lab.contract.handshake import ENV_WEBHOOK_HOST, ResultKind
from a2a_lab.harness.clients.refclient import push_configs
from a2a_lab.harness.clients.refclient.cancel import cancel
from a2a_lab.harness.clients.refclient.credentials import card_auth
from a2a_lab.harness.clients.refclient.discovery import discover
from a2a_lab.harness.clients.refclient.extended import use_extended_card
from a2a_lab.harness.clients.refclient.failures import ClientFailure, invites_fallback
from a2a_lab.harness.clients.refclient.follow import Follower
from a2a_lab.harness.clients.refclient.http import make_client
from a2a_lab.harness.clients.refclient.options import DEFAULT_TEXT, ClientOptions
from a2a_lab.harness.clients.refclient.reading import (
    Answer,
    TaskView,
    parsed_answer,
    parsed_error,
    parts_text,
    read_send_result,
)
from a2a_lab.harness.clients.refclient.result import Result
from a2a_lab.harness.clients.refclient.selection import Selection, select_interfaces, supported
from a2a_lab.harness.clients.refclient.signature import verify_card
from a2a_lab.harness.clients.refclient.streaming import consume
from a2a_lab.harness.clients.refclient.transport import A2ATransport, open_transport
from a2a_lab.harness.clients.refclient.webhook import LOOPBACK, WebhookReceiver, listen_address
from a2a_lab.protocol import cards, requests, revisions
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import Role, TaskState
from a2a_lab.protocol.versions import Version

#: What the client can report (text, and structured data as JSON), sent with every message: the field is optional
#: (SendMessageConfiguration), but servers in the field refuse a send without it (mycelium-io/mycelium#712), and
#: it costs nothing.
ACCEPTED_OUTPUT_MODES = ("text/plain", "application/json")


def user_message(text: str) -> dict[str, Any]:
    """A canonical user message with a fresh messageId (uuid4) and no self-made contextId (§3.4.1, C6)."""
    return {"messageId": str(uuid.uuid4()), "role": Role.USER.value, "parts": [{"text": text}]}


def run(
    target: str, text: str = DEFAULT_TEXT, options: ClientOptions | None = None, http: httpx.Client | None = None
) -> Result:
    """Talk to the agent behind `target` (its base URL or card URL) and report what was understood.

    Never raises for anything the server or the network does; the Result carries the error, and its
    kind is then `error` (an unusable answer is never reported as a message or a task).
    """
    options = options or ClientOptions()
    own = http is None
    client = http if http is not None else make_client(options)
    result = Result()
    try:
        _run(client, target, text, options, result)
    except ClientFailure as failure:
        result.kind, result.error = ResultKind.ERROR, failure.as_dict()
    except Exception as exc:
        result.kind = ResultKind.ERROR
        result.error = {
            "type": "internal",
            "message": f"a2a-lab reference client failed unexpectedly ({type(exc).__name__}: {exc}); please report it",
        }
    finally:
        if own:
            client.close()
    return result


@dataclass
class Session:
    """What holds for the whole conversation: options, the result being written, what the card allows."""

    http: httpx.Client
    options: ClientOptions
    result: Result
    stream: bool = False
    receiver: WebhookReceiver | None = None
    #: The generation the agent last gave the task (spec 1.1 §3.2.7; 0: none): a follow-up names it in
    #: `ifGenerationMatch`.
    generation: int = 0


@dataclass
class Turn:
    """One message's answer: what came back, whether it was streamed, and the webhook cursor when it was sent."""

    answer: Answer
    broken: ClientFailure | None
    streamed: bool
    since: int


def _run(http: httpx.Client, target: str, text: str, options: ClientOptions, result: Result) -> None:
    found = discover(http, target, options)
    result.card_url = found.url
    result.warnings.extend(found.warnings)
    card = found.card
    if options.jwks is not None:
        result.signature = verify_card(card, options.jwks)  # raises: an unverified card is never used
    auth, notes = card_auth(card, options.credentials or {}, options.token)
    result.notices.extend(notes)
    if auth is not None:
        options = replace(options, auth=auth)
    result.parsed_answers["get_agent_card"] = card
    selection = _select(card, options, result)
    if options.extended_card:
        selection = use_extended_card(http, card, selection, options, result)
    card = result.parsed_answers.get("get_extended_agent_card", card)  # its capabilities hold for the session
    session = Session(http, options, result, stream=_may_stream(card, options, result))
    with ExitStack() as stack:
        if _may_push(card, options, result):
            session.receiver = stack.enter_context(_receiver(options))
            stack.callback(_report_webhook, session)
        _converse(session, selection, text)


def _receiver(options: ClientOptions) -> WebhookReceiver:
    """The client's webhook: on loopback, or where the agent reaches this machine (options.webhook_host)."""
    host = options.webhook_host
    try:
        bind = options.webhook_bind or (listen_address(host) if host else LOOPBACK)
        return WebhookReceiver(bind, auth=options.webhook_auth, advertise=host)
    except OSError as exc:
        where = f"{options.webhook_bind or host} (--webhook-bind, --webhook-host, {ENV_WEBHOOK_HOST})"
        raise ClientFailure("webhook", f"cannot listen for the webhook on {where}: {exc.strerror or exc}") from None


def _select(card: dict[str, Any], options: ClientOptions, result: Result) -> Selection:
    selection = select_interfaces(card, options.binding, secure=urlsplit(result.card_url or "").scheme == "https")
    result.warnings.extend(selection.warnings)
    result.notices.extend(selection.notices)
    result.skipped = selection.skipped
    if not selection.candidates:
        declared = [i.label for i in cards.interfaces(card)]
        spoken = ", ".join(f"{b.value} {v.value}" for b, v in supported(options.binding))
        raise ClientFailure(
            "selection",
            f"the card declares no interface this client speaks ({spoken}); declared: "
            + ("; ".join(declared) or "none"),
        )
    return selection


def _may_stream(card: dict[str, Any], options: ClientOptions, result: Result) -> bool:
    if options.stream and not cards.capability(card, cards.STREAMING):
        result.warnings.append(
            "streaming was asked for, but the card does not declare capabilities.streaming: used SendMessage instead"
        )
        return False
    return options.stream


def _may_push(card: dict[str, Any], options: ClientOptions, result: Result) -> bool:
    if options.webhook and not cards.capability(card, cards.PUSH_NOTIFICATIONS):
        result.warnings.append(
            "a webhook was asked for, but the card does not declare capabilities.pushNotifications: none registered"
        )
        return False
    return options.webhook


def _report_webhook(session: Session) -> None:
    """Before the receiver shuts down: let deliveries already under way finish, then record what it saw."""
    receiver = session.receiver
    assert receiver is not None
    receiver.settle(session.options.push_quiet, session.options.push_wait)
    session.result.webhook = receiver.summary()


def _converse(session: Session, selection: Selection, text: str) -> None:
    result = session.result
    for position, iface in enumerate(selection.candidates):
        result.interface = iface
        with closing(open_transport(session.http, iface, session.options)) as transport:
            try:
                # A fresh messageId per request: the bodies differ between interfaces, so one id would be reused.
                turn = _send(transport, user_message(text), session, register=True)
                result.parsed = parsed_answer(turn.answer)
            except ClientFailure as failure:
                result.parsed = parsed_error(failure.as_dict())
                if invites_fallback(failure) and position + 1 < len(selection.candidates):
                    nxt = selection.candidates[position + 1]
                    result.attempts.append({"interface": iface.label, "error": failure.message, **_brief(failure)})
                    result.warnings.append(
                        f"{iface.label} does not serve this call ({failure.message}); falling back to {nxt.label}"
                    )
                    continue
                raise
            _finish(transport, turn, session)
            _answer_once(transport, session)
            _new_message_once(transport, session)
            return


def _brief(failure: ClientFailure) -> dict[str, Any]:
    return {k: failure.details[k] for k in ("code", "http_status", "grpc_status", "reason") if k in failure.details}


def _send(
    transport: A2ATransport, message: dict[str, Any], session: Session, register: bool, resumes: TaskState | None = None
) -> Turn:
    """Send one message (streamed when allowed); with a webhook, registered inline on the first message and
    the call made non-blocking (the notifications, or GetTask, follow the task up). `resumes`: the state of
    the task the message continues; a message that continues a task the agent gave a generation says it in
    `ifGenerationMatch` (spec 1.1 §3.2.2), over the JSON bindings (gRPC's 1.0 request has no such field)."""
    receiver, result = session.receiver, session.result
    push = receiver.config() if receiver is not None and register and not session.options.push_configs else None
    cfg = requests.send_configuration(
        return_immediately=receiver is not None, push=push, accepted_output_modes=ACCEPTED_OUTPUT_MODES
    )
    if (
        message.get("taskId")
        and session.generation
        and transport.version is Version.V1_0
        and transport.binding is not Binding.GRPC
    ):
        cfg[revisions.IF_GENERATION_MATCH] = str(session.generation)
    params = {"message": message, "configuration": cfg}
    since = receiver.mark() if receiver is not None else 0
    if not session.stream:
        body = transport.call(Operation.SEND_MESSAGE, params, result.warnings)
        return Turn(read_send_result(body, transport.form, result.warnings), None, False, since)
    result.streamed = True
    end = consume(transport, Operation.SEND_STREAMING_MESSAGE, params, result.warnings, resumed_from=resumes)
    return Turn(end.answer, end.broken, True, since)


def _finish(transport: A2ATransport, turn: Turn, session: Session) -> None:
    result, options, answer = session.result, session.options, turn.answer
    if answer.kind is ResultKind.MESSAGE:
        msg = answer.message or {}
        result.kind, result.text = ResultKind.MESSAGE, parts_text(msg.get("parts", []))
        result.context_id, result.task_id = msg.get("contextId"), msg.get("taskId")
        result.state = None
        return
    task = answer.task or TaskView()
    if session.receiver is not None and task.id is not None:
        session.receiver.expect(task.id)
    resubscribing = turn.streamed and options.resubscribe and session.stream
    if turn.broken is not None:
        how = "resubscribing with SubscribeToTask" if resubscribing else "following the task up with GetTask"
        result.warnings.append(f"the stream broke off ({turn.broken.message}); {how}")
    if options.cancel and not result.canceled:
        task = _cancel_once(transport, task, result)
    follower = Follower(transport, options, result, task, session.receiver, turn.since)
    config_id = None
    if session.receiver is not None and options.push_configs and task.id is not None and not result.follow_up:
        config_id = push_configs.register(transport, session.receiver, task.id, result.warnings)
    try:
        task = follower.follow(turn.streamed, session.stream)
    finally:
        _take_task(result, follower.task)
        session.generation = follower.task.generation
    if config_id is not None and task.id is not None:
        push_configs.unregister(transport, task.id, config_id, result.warnings)
    if not task.stops:
        state = task.state.short if task.state else repr(task.raw_state)
        why = (
            "no follow-up was allowed (--follow 0)"
            if options.follow <= 0
            else f"still {state} after {follower.polls} GetTask follow-up{'s' if follower.polls != 1 else ''}"
        )
        if task.id is None:
            why = "the task has no id to follow up"
        result.error = {"type": "no_answer", "message": f"the task did not finish: {why}"}


def _cancel_once(transport: A2ATransport, task: TaskView, result: Result) -> TaskView:
    """The cancel action: CancelTask for a task that has not stopped (one that has needs none, and a finished one
    cannot be canceled); the task as the agent then tells it."""
    if task.id is None or task.stops:
        state = task.state.short if task.state else "no state"
        why = "the task has no id" if task.id is None else f"the task had already stopped ({state})"
        result.warnings.append(f"the cancel was not sent: {why}")
        return task
    return cancel(transport, task, result)


def _after_mismatch(transport: A2ATransport, session: Session, message: dict[str, Any], refused: ClientFailure) -> Turn:
    """The agent refused the follow-up's `ifGenerationMatch` (TaskGenerationMismatchError): the task moved since the
    client read it. Re-fetch it with GetTask before deciding (spec 1.1 §11.6 SHOULD), then send again once, with
    the generation just read, if the task still waits for input; else the refusal stands."""
    result = session.result
    task = Follower(transport, session.options, result, TaskView(id=message["taskId"])).get_task()
    session.generation = task.generation
    result.warnings.append(f"the task moved before the follow-up ({refused.message}); re-read it: {task.state}")
    if task.state is None or not task.state.interrupted:
        raise refused
    return _send(transport, {**message, "messageId": str(uuid.uuid4())}, session, register=False, resumes=task.state)


def _take_task(result: Result, task: TaskView) -> None:
    result.kind, result.state, result.text = ResultKind.TASK, task.state, task.text()
    result.task_id, result.context_id = task.id, task.context_id


def _new_message_once(transport: A2ATransport, session: Session) -> None:
    """The new_message action: once the first answer stopped, one unrelated message on the same interface. It names
    no taskId (§4.1.4: a message with one is associated with that task; §3.4.2: a client cannot name a new task),
    and keeps the contextId (§3.4.3: a new task in the same context). Its own answer is the one reported."""
    result, text = session.result, session.options.new_message
    if text is None:
        return
    if result.error is not None or not (result.kind is ResultKind.MESSAGE or (result.state and result.state.stops)):
        result.warnings.append("the new message was not sent: the first answer did not stop")
        return
    message = user_message(text)
    if result.context_id:
        message["contextId"] = result.context_id
    result.new_message, earlier = True, result.task_id
    try:
        turn = _send(transport, message, session, register=False)
    except ClientFailure as failure:
        raise ClientFailure(failure.type, f"the new message: {failure.message}", failure.details) from None
    if turn.answer.task is not None and earlier is not None and turn.answer.task.id == earlier:
        result.warnings.append(f"the new message was answered with the earlier task {earlier}, not a new one")
    _finish(transport, turn, session)


def _answer_once(transport: A2ATransport, session: Session) -> None:
    """The follow_up action: one more message to the same task (§3.4: its taskId and contextId), on the same
    interface. Sent when the task stopped, interrupted or finished (a finished task must refuse it); never twice."""
    result, text = session.result, session.options.follow_up
    if text is None:
        return
    if result.kind is not ResultKind.TASK or not result.task_id:
        result.warnings.append("the follow-up was not sent: the agent answered with a message, not a task to continue")
        return
    if result.error is not None or result.state is None or not result.state.stops:
        result.warnings.append("the follow-up was not sent: the task did not stop")
        return
    message = {**user_message(text), "taskId": result.task_id}
    if result.context_id:
        message["contextId"] = result.context_id
    result.follow_up = True
    task_id, state = result.task_id, result.state
    try:
        try:
            turn = _send(transport, message, session, register=False, resumes=state if state.interrupted else None)
        except ClientFailure as failure:
            mismatch = failure.details.get("reason") == ErrorType.TASK_GENERATION_MISMATCH.kind.reason
            if not (mismatch and session.generation):  # a refusal of a precondition the client did not send stands
                raise
            turn = _after_mismatch(transport, session, message, failure)
    except ClientFailure as failure:
        raise ClientFailure(
            failure.type, f"the follow-up to task {task_id} ({state.short}): {failure.message}", failure.details
        ) from None
    if (
        turn.answer.kind is ResultKind.TASK
        and turn.answer.task is not None
        and turn.answer.task.id not in (None, task_id)
    ):
        result.warnings.append(f"the follow-up to task {task_id} was answered with another task, {turn.answer.task.id}")
    _finish(transport, turn, session)
