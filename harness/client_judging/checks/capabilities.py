"""Capabilities (spec §3.3.4): optional operations only where the card allows them."""

from __future__ import annotations

from a2a_lab.contract.scenario import ACTION_CAPABILITIES
from a2a_lab.harness.client_judging.checks.base import Check, check
from a2a_lab.harness.client_judging.journal_view import Call, RunView
from a2a_lab.harness.common.model import CheckResult, Level
from a2a_lab.protocol import cards, shapes
from a2a_lab.protocol.operations import MESSAGE_SENDS, SPECS


@check(
    "CAPABILITIES-RESPECTED",
    Level.SHOULD,
    "A2A 1.0 §3.3.4 (C4), §3.1.2, §3.1.6-§3.1.11; 0.3 §11.1.3",
    "No streaming, push or extended card the card does not offer",
    "Clients SHOULD check the card's capabilities before optional operations: streaming (SendStreamingMessage, "
    "SubscribeToTask), pushNotifications (push config methods, or a push config inline in a send), extendedAgentCard "
    "(GetExtendedAgentCard).",
    "spec keyword SHOULD (§3.3.4): a miss is NON_STRICT (a conforming server answers such calls with an error)",
    rule=(
        "A client uses streaming, push notifications or the extended card only when the card's "
        "`capabilities` declares them."
    ),
    fix=(
        "Check `capabilities.streaming`, `pushNotifications` and `extendedAgentCard` before "
        "SendStreamingMessage or SubscribeToTask, a push config (inline too) or GetExtendedAgentCard; "
        "without them, use SendMessage and GetTask."
    ),
)
def capabilities_respected(view: RunView, c: Check) -> CheckResult:
    # Each use of an optional feature: (call, the capability it needs, how to name it). A webhook registered inline in a
    # send (configuration.taskPushNotificationConfig; 0.3 pushNotificationConfig) needs capabilities.pushNotifications
    # as much as CreateTaskPushNotificationConfig does (§3.1.7, §3.3.4).
    uses: list[tuple[Call, str, str]] = []
    for call in view.a2a_calls:
        if call.operation is None:
            continue
        needed = SPECS[call.operation].capability
        if needed:
            uses.append((call, needed, call.operation.value))
        if call.operation in MESSAGE_SENDS and _inline_push(call):
            uses.append((call, cards.PUSH_NOTIFICATIONS, f"{call.operation.value} with an inline push config"))
    if not uses:
        # Asked to use an optional feature the card does not offer, the client kept to the card: that is the judgment.
        withheld = list(
            dict.fromkeys(
                cap for key, cap in ACTION_CAPABILITIES.items() if view.action.get(key) and not view.capability(cap)
            )
        )
        if withheld and view.a2a_calls:
            return c.passed(
                f"asked to use {', '.join(withheld)}, which the card does not offer, the client kept to what it offers",
                view.a2a_calls[:1],
            )
        return c.skipped("no capability-gated operation was called")
    for call, capability, what in uses:
        if not view.capability(capability):
            return c.broken(
                f"{what} was sent although the card does not declare capabilities.{capability}",
                f"no {what} (capabilities.{capability} is absent or false)",
                call.label(),
                [call],
            )
    return c.passed("optional operations used only where the card allows them")


def _inline_push(call: Call) -> bool:
    params = call.params()
    return shapes.inline_push(params.get("configuration") if isinstance(params, dict) else None) is not None
