"""Capabilities (spec §3.3.4): optional operations only where the card allows them."""

from __future__ import annotations

from a2a_lab.protocol import cards
from a2a_lab.protocol.operations import SPECS

from ..journal_view import RunView
from ..model import CheckResult, Level
from .base import Check, check


@check("CAPABILITIES-RESPECTED", Level.MUST, "A2A 1.0 §3.3.4 (C4), §3.1.2, §3.1.6-§3.1.11", "No streaming, push or extended card the card does not offer",
       "Clients SHOULD check the card's capabilities before optional operations: streaming (SendStreamingMessage, "
       "SubscribeToTask), pushNotifications (push config methods), extendedAgentCard (GetExtendedAgentCard).",
       "spec keyword SHOULD; graded MUST: a conforming server answers such calls with an error, so the client gets no answer")
def capabilities_respected(view: RunView, c: Check) -> CheckResult:
    gated = [call for call in view.a2a_calls if call.operation is not None and SPECS[call.operation].capability]
    if not gated:
        return c.skipped("no capability-gated operation was called")
    for call in gated:
        capability = SPECS[call.operation].capability  # type: ignore[index]
        if not cards.capability(view.card, capability or ""):
            return c.broken(f"{call.operation.value} was called although the card does not declare capabilities.{capability}",  # type: ignore[union-attr]
                            f"no {call.operation.value} (capabilities.{capability} is absent or false)", call.label(), [call])  # type: ignore[union-attr]
    return c.passed("optional operations used only where the card allows them")
