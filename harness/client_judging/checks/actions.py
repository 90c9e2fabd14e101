"""What a scenario asks of the client beyond one message (A2A_LAB_ACTION). Not acting is UNIMPLEMENTED, never FAIL;
acting wrongly is judged at the spec's level."""

from __future__ import annotations

from a2a_lab.contract.journal_record import CredentialStatus, PushInfo, Response, ResultKind, SentKind
from a2a_lab.harness.client_judging.checks.base import Check, check
from a2a_lab.harness.client_judging.checks.tasks import message_ids, task_param
from a2a_lab.harness.client_judging.journal_view import Call, RunView
from a2a_lab.harness.common.model import CheckResult, Level, Outcome
from a2a_lab.protocol import shapes, signing
from a2a_lab.protocol.operations import MESSAGE_SENDS, Operation

#: The checks in this module; a client that declines one of them is not judged on the scenario's conclusion.
ACTION_CHECKS = (
    "MULTI-TURN",
    "NEW-TASK",
    "CANCEL-TASK",
    "STREAMING-USED",
    "PUSH-RECEIVER",
    "PUSH-CONFIG-MANAGED",
    "AUTH-PRESENTED",
    "EXTENDED-CARD",
    "RESUBSCRIBE",
    "SIGNATURE-VERIFIED",
    "CLIENT-CERTIFICATE",  # harness/client_judging/checks/transport.py
)


def _not_asked(c: Check, what: str) -> CheckResult:
    return c.skipped(f"the scenario does not ask the client to {what}")


def _unimplemented(c: Check, message: str) -> CheckResult:
    return c.result(Outcome.UNIMPLEMENTED, message)


@check(
    "MULTI-TURN",
    Level.MUST,
    "A2A 1.0 §3.4.2 (a taskId MUST reference an existing task), §3.4.3; proto Message (taskId and contextId match)",
    "Follow-ups continue the same task",
    "Asked to answer (A2A_LAB_ACTION follow_up), the client sends its next message with the taskId of the task it "
    "continues; "
    "a contextId, if sent, is the task's own. A taskId must name an existing task (clients cannot create task ids).",
    "each finding at its keyword: an invented taskId or a mismatched contextId FAILs (MUST, must); a follow-up that "
    "starts a new task is NON_STRICT (§3.4.3 states the continuation without a keyword)",
    rule=(
        "A client answering an agent's question sends its next message with that task's `taskId`, and "
        "with the task's own `contextId` if it sends one."
    ),
    fix=(
        "Copy `taskId` (and `contextId`) from the task the agent returned into the reply message; never "
        "invent a taskId or send another task's contextId."
    ),
)
def multi_turn(view: RunView, c: Check) -> CheckResult:
    if "follow_up" not in view.action:
        return _not_asked(c, "continue the task")
    sends = [call for call in view.a2a_calls if call.operation in MESSAGE_SENDS]
    if len(sends) < 2:
        return _unimplemented(c, "the client sent no follow-up message")
    tasks = {o.task_id: o for o in view.observations() if o.task_id}
    contexts = {o.task_id: o.context_id for o in view.observations() if o.task_id and o.context_id}
    follow = sends[1]
    message = follow.message() if isinstance(follow.message(), dict) else {}
    task_id = message.get("taskId")
    if not task_id:
        # §3.4.3 describes continuing with the same taskId without a keyword: not continuing breaks no MUST.
        return c.broken(
            "the follow-up started a new task instead of continuing the interrupted one (§3.4.3)",
            f"taskId {next(iter(tasks), '?')!r}",
            "no taskId",
            [follow],
            level=Level.SHOULD,
        )
    if task_id not in tasks:
        return c.broken(
            "the follow-up names a task the server never created (§3.4.2: a taskId MUST reference an existing task)",
            f"one of {sorted(tasks)}",
            repr(task_id),
            [follow],
        )
    ctx = message.get("contextId")
    if ctx and contexts.get(task_id) and ctx != contexts[task_id]:
        return c.broken(
            "the follow-up's contextId is not the task's (proto Message: both ids given must match)",
            repr(contexts[task_id]),
            repr(ctx),
            [follow],
        )
    return c.passed(f"the follow-up continued task {task_id}", [follow])


@check(
    "NEW-TASK",
    Level.MUST,
    "A2A 1.0 §3.4.2 (client-provided taskIds for new tasks are NOT supported), §4.1.4 (Message.taskId: a message "
    "that sets it is associated with that task), §3.4.3 (a new task: contextId without taskId)",
    "An unrelated message starts a new task",
    "Asked to send an unrelated new message once the first task stopped (A2A_LAB_ACTION new_message), the client "
    "sends it with no taskId: it is no answer to that task (an INPUT_REQUIRED task would take it as the input it "
    "asked for; a finished one cannot take it), so the agent starts a new task for it.",
    rule=("A client sends an unrelated new message without a `taskId`, so the agent starts a new task for it."),
    fix=(
        "Clear `taskId` when you start a new request: only a reply to the same task carries it (a "
        "`contextId` may stay to keep the conversation)."
    ),
)
def new_task(view: RunView, c: Check) -> CheckResult:
    if "new_message" not in view.action:
        return _not_asked(c, "send an unrelated new message")
    sends = [call for call in view.a2a_calls if call.operation in MESSAGE_SENDS]
    answered = {o.seq for o in view.observations()}
    # The message after the first one the agent answered (sends refused on the way, a fallback's, come before it).
    first = next((i for i, call in enumerate(sends) if call.seq in answered), None)
    if first is None or first + 1 >= len(sends):
        return _unimplemented(c, "the client sent no second message after the first answer")
    new = sends[first + 1]
    task_id, context_id = message_ids(new)
    if not task_id:
        kept = f", in context {context_id}" if context_id else ""
        return c.passed(f"the new message named no task{kept}: the agent could start a new one", [new])
    seen = [o for o in view.observations() if o.task_id == task_id and o.seq < new.seq]
    if not seen:
        return c.broken(
            "the new message names a task id of the client's own (§3.4.2: a client cannot name a new task's id)",
            "no taskId",
            repr(task_id),
            [new],
        )
    state = next((o.state for o in reversed(seen) if o.state is not None), None)
    how = f" ({state.short})" if state is not None else ""
    return c.broken(
        f"the unrelated message is bound to the earlier task {task_id}{how}: a message with a taskId belongs to that "
        "task (§4.1.4), and a new task cannot be named by the client (§3.4.2)",
        "no taskId (a new task)",
        f"taskId {task_id!r}",
        [new],
    )


@check(
    "CANCEL-TASK",
    Level.MUST,
    "A2A 1.0 §3.1.5 Cancel Task; proto CancelTaskRequest (`id` REQUIRED); §3.4.2",
    "Cancels the task it was given",
    "Asked to cancel (A2A_LAB_ACTION cancel), the client sends CancelTask naming the task the agent created (the id "
    "is REQUIRED, and only the agent makes task ids) while that task is still open. What it then reports is "
    "RESULT-MATCHES's to judge: the state the agent gave, CANCELED or (a cancel that lost the race) the end it read.",
    rule=(
        "A client cancels with CancelTask naming the id of the task the agent created, while that task is still open."
    ),
    fix=(
        "Keep the task `id` from the agent's answer and send CancelTask (0.3: `tasks/cancel`) with "
        '`{"id": <that id>}` before the task ends.'
    ),
)
def cancel_task(view: RunView, c: Check) -> CheckResult:
    if not view.action.get("cancel"):
        return _not_asked(c, "cancel the task")
    cancels = [call for call in view.a2a_calls if call.operation is Operation.CANCEL_TASK]
    obs = view.observations()
    if not cancels:
        if not any(o.task_id and o.state is not None and not o.state.stops for o in obs):
            return c.skipped("no task the client was given was still open: there was nothing to cancel")
        return _unimplemented(c, "the client sent no CancelTask")
    first = cancels[0]
    named = task_param(first)
    if not named:
        return c.broken("CancelTask names no task (CancelTaskRequest.id is REQUIRED)", "the task's id", "none", [first])
    if not any(o.task_id == named and o.seq < first.seq for o in obs):
        made = sorted({o.task_id for o in obs if o.task_id and o.seq < first.seq})
        return c.broken(
            "CancelTask names a task the agent never created (§3.4.2: task ids are the agent's; §3.1.5)",
            f"one of {made}" if made else "a task the agent created",
            repr(named),
            [first],
        )
    return c.passed(f"the client canceled task {named}", [first])


@check(
    "STREAMING-USED",
    Level.MAY,
    "A2A 1.0 §3.1.2 SendStreamingMessage (capability `streaming`)",
    "Streams when asked and allowed",
    "Asked to stream (A2A_LAB_ACTION stream) by a card that declares capabilities.streaming, the client uses "
    "SendStreamingMessage (or message/stream) and reads the events to the end.",
    rule=(
        "A client asked to stream, by a card that declares `capabilities.streaming`, uses "
        "SendStreamingMessage and reads the events to the end."
    ),
    fix=(
        "When the card declares streaming, send with SendStreamingMessage (0.3: `message/stream`) and "
        "read the SSE stream until it closes or the task ends."
    ),
)
def streaming_used(view: RunView, c: Check) -> CheckResult:
    from a2a_lab.protocol import cards

    if not view.action.get("stream"):
        return _not_asked(c, "stream")
    if not view.capability(cards.STREAMING):
        return c.skipped("the card does not allow streaming (CAPABILITIES-RESPECTED judges this case)")
    streamed = [call for call in view.a2a_calls if call.operation is Operation.SEND_STREAMING_MESSAGE]
    if not streamed:
        return _unimplemented(c, "the client did not stream")
    return c.passed("the client streamed", streamed[:1])


@check(
    "PUSH-RECEIVER",
    Level.MUST,
    "A2A 1.0 §4.3.3, §13.2 (C15)",
    "The webhook answers 2xx and checks credentials",
    "Asked to register a webhook (A2A_LAB_ACTION webhook), the client's receiver answers every genuine notification "
    "with 2xx, a repeated delivery of one included (§4.3.3), and refuses one sent with wrong credentials, whatever "
    "scheme its config named (the scenario's probe). A notification about a task the client never started need not "
    "be acknowledged (that the client does not adopt it, RESULT-EXPECTED judges).",
    rule=(
        "A client's webhook answers every genuine notification with 2xx, a repeated one included, and "
        "refuses one without the credentials its push config named."
    ),
    fix=(
        "Answer 2xx to notifications that carry the token or credentials you registered (a repeat "
        "included: deduplicate, do not reject it), and 401 or 403 to any other."
    ),
)
def push_receiver(view: RunView, c: Check) -> CheckResult:
    from a2a_lab.protocol import cards

    if not view.action.get("webhook"):
        return _not_asked(c, "register a webhook")
    deliveries = view.pushes
    if not deliveries and not view.capability(cards.PUSH_NOTIFICATIONS):
        return c.skipped("the card does not allow push notifications (CAPABILITIES-RESPECTED judges this case)")
    if not deliveries:
        registered = any(call.operation is Operation.CREATE_PUSH_CONFIG for call in view.a2a_calls) or any(
            isinstance(call.params(), dict) and shapes.inline_push(call.params().get("configuration")) is not None
            for call in view.a2a_calls
        )
        return (
            c.skipped("a webhook was registered but no notification was due")
            if registered
            else _unimplemented(c, "the client registered no webhook")
        )
    answered = [(e.push or PushInfo(None), e.response or Response()) for e in deliveries]
    refused = [r.refused for _, r in answered if r.refused]
    if refused:
        return c.broken("the webhook URL is not one a careful server calls", "a loopback webhook URL", refused[0])
    genuine = [(p, r) for p, r in answered if not p.probe and not p.foreign]
    bad = [(p, r) for p, r in genuine if not 200 <= (r.status or 0) < 300]
    if bad:
        push, r = bad[0]
        return c.broken(
            "a genuine notification"
            + (" (delivered again, as after a timeout)" if push.redelivery else "")
            + " was not acknowledged with 2xx",
            "2xx",
            str(r.status or r.failed),
        )
    probes = [r for p, r in answered if p.probe]
    accepted = [r for r in probes if 200 <= (r.status or 0) < 300]
    if accepted:
        return c.broken(
            "the receiver accepted a notification with wrong credentials", "401 or 403", str(accepted[0].status)
        )
    again = sum(1 for p, _ in genuine if p.redelivery)
    foreign = sum(1 for p, _ in answered if p.foreign)
    return c.passed(
        f"{len(genuine)} notification(s) acknowledged"
        + (f" ({again} repeated)" if again else "")
        + (f", {len(probes)} forged one(s) refused" if probes else "")
        + (f", {foreign} about another task received" if foreign else "")
    )


#: The push config methods, in the order a client managing its config uses them.
_PUSH_CONFIG_OPS = (
    Operation.CREATE_PUSH_CONFIG,
    Operation.LIST_PUSH_CONFIGS,
    Operation.GET_PUSH_CONFIG,
    Operation.DELETE_PUSH_CONFIG,
)


@check(
    "PUSH-CONFIG-MANAGED",
    Level.MUST,
    "A2A 1.0 §3.1.7-§3.1.10 (Get MUST fail for a config that does not exist), proto "
    "GetTaskPushNotificationConfigRequest and DeleteTaskPushNotificationConfigRequest (taskId and id REQUIRED), §5.5; "
    "0.3 §7.5-§7.8",
    "Push configs created, listed, read and deleted",
    "Asked to manage its webhook's config (A2A_LAB_ACTION push_configs), the client creates it for its task "
    "(CreateTaskPushNotificationConfig, 0.3 tasks/pushNotificationConfig/set), lists the task's configs, gets its "
    "config by the id the agent returned and deletes it, each in the spelling of the version it speaks (1.0 "
    "`{taskId, id}`, 0.3 `{id, pushNotificationConfigId}`), so that a conforming agent answers every call.",
    "a call the conforming agent refuses (missing REQUIRED fields, another version's names, an id it never gave) "
    "FAILs; a method left out is UNIMPLEMENTED",
    rule=(
        "A client creates, lists, gets and deletes its task's push notification config in its own "
        "version's spelling, with the ids the agent returned."
    ),
    fix=(
        "Send Create, List, Get and DeleteTaskPushNotificationConfig with `{taskId, id}` (0.3: "
        "`tasks/pushNotificationConfig/*` with `{id, pushNotificationConfigId}`), taking the config id "
        "from the create answer."
    ),
)
def push_config_managed(view: RunView, c: Check) -> CheckResult:
    from a2a_lab.protocol import cards

    if not view.action.get("push_configs"):
        return _not_asked(c, "manage push configs")
    calls = [call for call in view.a2a_calls if call.operation in _PUSH_CONFIG_OPS]
    if not calls and not view.capability(cards.PUSH_NOTIFICATIONS):
        return c.skipped("the card does not allow push notifications (CAPABILITIES-RESPECTED judges this case)")
    if not calls:
        return _unimplemented(c, "the client called none of the push config methods")
    failed = [call for call in calls if call.result_kind is ResultKind.ERROR or call.answer_failed]
    if failed:
        first = failed[0]
        return c.broken(
            "the agent refused a push config call (its request did not name the task and config as the version "
            "says, or named a config the agent never gave)",
            f"an answer to {first.label()}",
            f"error {first.error_code}" if first.error_code is not None else "no answer",
            failed,
        )
    made = {call.operation for call in calls}
    missing = [op.value for op in _PUSH_CONFIG_OPS if op not in made]
    if missing:
        return _unimplemented(c, f"the client did not call {', '.join(missing)}")
    return c.passed("the client created, listed, got and deleted its push config", calls[:1])


@check(
    "AUTH-PRESENTED",
    Level.MUST,
    "A2A 1.0 §3.1.11 (C3), §7.4; the card's securitySchemes",
    "Credentials presented where required",
    "Given a token or credentials (A2A_LAB_ACTION token, credentials) for an agent whose card requires them, the "
    "client authenticates every call that needs it (all calls, or GetExtendedAgentCard) as the card's schemes say.",
    "per finding: GetExtendedAgentCard without the right credentials FAILs (§3.1.11: the client MUST authenticate it); "
    "any other call is NON_STRICT (§7.3 states the duty for every request without a keyword)",
    rule=(
        "A client that has credentials for an agent that requires them authenticates every call that "
        "needs them, GetExtendedAgentCard always."
    ),
    fix=(
        "Attach the credentials the card's security requirements ask for to every A2A call, the "
        "follow-ups included, and always to GetExtendedAgentCard."
    ),
)
def auth_presented(view: RunView, c: Check) -> CheckResult:
    if "token" not in view.action and "credentials" not in view.action:
        return _not_asked(c, "authenticate")
    judged = [call for call in view.a2a_calls if call.entry.credentials is not None]
    if not judged:
        return c.skipped("no call the server checks credentials on")
    needing = [call for call in judged if call.operation is Operation.GET_EXTENDED_CARD] or judged
    if all(call.entry.credentials is CredentialStatus.ABSENT for call in needing):
        return _unimplemented(c, "the client presented no credentials")
    # A token refused as expired is TOKEN-LIFECYCLE's to judge (the client renews it and calls again).
    wrong = [
        call
        for call in needing
        if call.entry.credentials is not CredentialStatus.VALID
        and not (call.entry.auth is not None and "expired" in call.entry.auth.schemes.values())
    ]
    if wrong:
        card_calls = [call for call in wrong if call.operation is Operation.GET_EXTENDED_CARD]
        shown = card_calls or wrong
        return c.broken(
            "a call that needs credentials went without the right ones"
            + ("" if card_calls else " (§7.3 asks for them on every request, without a keyword)"),
            "the credentials given, as the card's scheme says",
            f"credentials {shown[0].entry.credentials.value if shown[0].entry.credentials else None}",
            shown,
            level=None if card_calls else Level.SHOULD,
        )
    return c.passed(f"{len(needing)} call(s) authenticated")


@check(
    "EXTENDED-CARD",
    Level.SHOULD,
    "A2A 1.0 §3.1.11, §13.3 (C16)",
    "Fetches the extended card when asked",
    "Asked to (A2A_LAB_ACTION extended_card) by a card that declares capabilities.extendedAgentCard, the client calls "
    "GetExtendedAgentCard, authenticated, and uses the extended card for the session.",
    rule=(
        "A client asked to, by a card that declares `capabilities.extendedAgentCard`, calls "
        "GetExtendedAgentCard authenticated and uses that card for the session."
    ),
    fix=(
        "Call GetExtendedAgentCard (0.3: `agent/getAuthenticatedExtendedCard`) with your credentials and "
        "use its answer instead of the public card for the calls that follow."
    ),
)
def extended_card(view: RunView, c: Check) -> CheckResult:
    from a2a_lab.protocol import cards

    if not view.action.get("extended_card"):
        return _not_asked(c, "fetch the extended card")
    calls = [call for call in view.a2a_calls if call.operation is Operation.GET_EXTENDED_CARD]
    if not calls and not view.capability(cards.EXTENDED_CARD):
        return c.skipped("the card declares no extended card (CAPABILITIES-RESPECTED judges this case)")
    if not calls:
        return _unimplemented(c, "the client did not call GetExtendedAgentCard")
    if all(call.result_kind is ResultKind.ERROR for call in calls):
        return c.broken(
            "the extended card was never obtained",
            "a successful GetExtendedAgentCard",
            f"error {calls[-1].error_code}",
            calls,
        )
    return c.passed("the extended card was fetched", calls[:1])


def _dropped(call: Call) -> bool:
    return any(ev.kind is SentKind.DROPPED for ev in call.entry.events or [])


@check(
    "RESUBSCRIBE",
    Level.MAY,
    "A2A 1.0 §3.1.6 SubscribeToTask (reconnecting to an ongoing task; a task snapshot first), §3.7; 0.3 §7.9",
    "Recovers a dropped stream",
    "When a stream breaks before the task ends, the client may resume: SubscribeToTask (preferred), or GetTask, for "
    "the same task. Asked to (A2A_LAB_ACTION resubscribe), a client that does not is UNIMPLEMENTED, never a miss.",
    "the spec offers reconnection (§3.1.6, 0.3 §7.9) without a keyword; graded MAY: not resuming is UNIMPLEMENTED, "
    "and FOLLOW-UP-TO-END does not count the dropped stream's task a second time",
    rule=(
        "A client whose stream breaks before the task ends may resume with SubscribeToTask, or GetTask, "
        "for the same task."
    ),
    fix=(
        "When the SSE stream closes without a terminal event, call SubscribeToTask (0.3: "
        "`tasks/resubscribe`) with the task's id, or poll GetTask."
    ),
)
def resubscribe(view: RunView, c: Check) -> CheckResult:
    dropped = [call for call in view.a2a_calls if _dropped(call)]
    if not dropped:
        return c.skipped("no stream was dropped")
    after = [
        call
        for call in view.a2a_calls
        if call.seq > dropped[0].seq and call.operation in (Operation.SUBSCRIBE_TO_TASK, Operation.GET_TASK)
    ]
    if not after:
        asked = " although the scenario asked (A2A_LAB_ACTION resubscribe)" if view.action.get("resubscribe") else ""
        return _unimplemented(c, f"the client did not resume after the stream dropped{asked}")
    how = "SubscribeToTask" if any(call.operation is Operation.SUBSCRIBE_TO_TASK for call in after) else "GetTask"
    return c.passed(f"resumed with {how}", after[:1])


@check(
    "SIGNATURE-VERIFIED",
    Level.MUST,
    "A2A 1.0 §8.4.3 (C14)",
    "Card signatures verified",
    "Asked to verify (A2A_LAB_ACTION verify_signature, with the key set in `jwks`), the client verifies the card's "
    "signature "
    "over its canonical form: it uses a card that verifies and refuses one that does not (tampered payload, unknown "
    "key). A card that offers the client's generation no interface (a 1.0-only card to a 0.3 client) cannot be used at "
    "all, so refusing it is correct.",
    rule=(
        "A client asked to verify the card uses it only if a signature verifies over its canonical form "
        "with a trusted key, and refuses it otherwise."
    ),
    fix=(
        "Verify a JWS from `signatures` over the canonical card (default values and `signatures` dropped,"
        " RFC 8785 JCS) with the key its `kid` names in the trusted key set; refuse the card on a bad "
        "signature or an unknown key."
    ),
)
def signature_verified(view: RunView, c: Check) -> CheckResult:
    if not view.action.get("verify_signature"):
        return _not_asked(c, "verify the card signature")
    if not isinstance(view.card, dict):
        return c.skipped("no card to verify")
    valid = any(v.valid for v in signing.verify(view.card, view.action.get("jwks") or {"keys": []}))
    if valid:
        if not view.a2a_calls and view.card_gap is not None:
            return c.passed(f"the client did not use the card, correctly whatever its signature: {view.card_gap}")
        if not view.a2a_calls:
            crash = view.crash()
            if crash is not None:
                return c.broken(
                    f"the card's signature verifies, and the client crashed before any call ({crash}): whatever made "
                    "it crash, a correct client uses a card that verifies",
                    "the agent is used",
                    "no call" + view.ending(),
                )
            return c.broken(
                "the client refused a card whose signature verifies", "the agent is used", "no call" + view.ending()
            )
        return c.passed("the card verifies and the client used it")
    if view.a2a_calls:
        return _unimplemented(
            c, "the card's signature does not verify, yet the client used it (it did not verify, or ignored the result)"
        )
    if view.crash() is not None and view.client_result is None:
        return _unimplemented(
            c,
            f"the client did not use the card, but it crashed ({view.crash()}): that it refused the card for its "
            "signature is not shown (write A2A_LAB_RESULT kind error to say why)",
        )
    return c.passed("the card's signature does not verify and the client did not use it")
