"""The extended agent card (A2A 1.0 §3.1.11, §13.3): fetched authenticated, it replaces the public card's
interfaces for the session when it declares any the client speaks."""

from __future__ import annotations

from contextlib import closing
from typing import Any

import httpx

from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.harness.clients.refclient.options import ClientOptions
from a2a_lab.harness.clients.refclient.result import Result
from a2a_lab.harness.clients.refclient.selection import Selection, select_interfaces
from a2a_lab.harness.clients.refclient.transport import A2ATransport, open_transport
from a2a_lab.protocol import cards
from a2a_lab.protocol.operations import Operation


def fetch_extended_card(transport: A2ATransport, warnings: list[str]) -> dict[str, Any]:
    """GetExtendedAgentCard (0.3: agent/getAuthenticatedExtendedCard) on one interface; the card object."""
    body = transport.call(Operation.GET_EXTENDED_CARD, {}, warnings)
    if not isinstance(body, dict):
        raise ClientFailure(
            "invalid_response",
            f"the extended card from {transport.iface.url} is not an object (got {type(body).__name__})",
            {"operation": Operation.GET_EXTENDED_CARD.value, "binding": transport.binding.value},
        )
    return body


def use_extended_card(
    http: httpx.Client, card: dict[str, Any], selection: Selection, options: ClientOptions, result: Result
) -> Selection:
    """The interfaces to use after asking for the extended card on the first chosen interface.

    Only when the public card declares capabilities.extendedAgentCard (0.3: supportsAuthenticatedExtendedCard).
    A failure is a warning: the public card still works.
    """
    if not cards.capability(card, cards.EXTENDED_CARD):
        result.warnings.append(
            "the extended card was asked for, but the card declares neither capabilities.extendedAgentCard nor "
            "supportsAuthenticatedExtendedCard: not fetched"
        )
        return selection
    iface = selection.candidates[0]
    try:
        with closing(open_transport(http, iface, options)) as transport:
            extended = fetch_extended_card(transport, result.warnings)
    except ClientFailure as failure:
        result.warnings.append(f"GetExtendedAgentCard failed ({failure.message}); using the public card")
        return selection
    result.extended_card = True
    result.parsed_answers["get_extended_agent_card"] = extended
    chosen = select_interfaces(extended, options.binding)
    if not chosen.candidates:
        result.warnings.append("the extended card declares no interface this client speaks; using the public card's")
        return selection
    result.warnings.extend(f"extended card: {w}" for w in chosen.warnings)
    result.skipped = chosen.skipped
    return chosen
