"""What a scenario asks of the client beyond one message (A2A_LAB_ACTION), as ClientOptions fields.

The action is a JSON object whose keys and types the scenario format defines (`contract.scenario.ACTIONS`);
`{}` or an absent variable asks for nothing more. The loader adds the public key set as `jwks` when a
scenario asks for `verify_signature`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from a2a_lab.contract.handshake import ACTIONS, ENV_ACTION
from a2a_lab.harness.clients.refclient.failures import UsageFailure
from a2a_lab.harness.clients.refclient.options import AUTH_SCHEMES

#: The ClientOptions field each action sets (every key of ACTIONS has one; a test keeps them in step).
OPTION_FOR: dict[str, str] = {
    "follow_up": "follow_up",
    "stream": "stream",
    "webhook": "webhook",
    "webhook_auth": "webhook_auth",
    "push_configs": "push_configs",
    "token": "token",
    "credentials": "credentials",
    "extended_card": "extended_card",
    "resubscribe": "resubscribe",
    "verify_signature": "jwks",
    "client_certificate": "client_certificate",
    "new_message": "new_message",
    "cancel": "cancel",
}
#: The key set that goes with `verify_signature` (not an action of its own).
JWKS_KEY = "jwks"
_EMPTY_JWKS: dict[str, Any] = {"keys": []}


def read_action(environ: Mapping[str, str] = os.environ) -> dict[str, Any]:
    """The decoded A2A_LAB_ACTION object ({} when unset or blank); UsageFailure when it is not a JSON object."""
    text = environ.get(ENV_ACTION, "")
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise UsageFailure(f"{ENV_ACTION} is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise UsageFailure(f"{ENV_ACTION} must be a JSON object, got {type(value).__name__}")
    return value


def action_options(action: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """ClientOptions keyword arguments for an action, and warnings about keys this client does not know.

    A value of the wrong type is a UsageFailure. `verify_signature: true` without a `jwks` object verifies
    against an empty key set, so the card is refused: the client has nothing to trust it with.
    """
    out: dict[str, Any] = {}
    warnings: list[str] = []
    for key, value in action.items():
        if key == JWKS_KEY:
            if not isinstance(value, dict):
                raise UsageFailure(
                    f'{ENV_ACTION}: {JWKS_KEY} must be a JWKS object ({{"keys": [...]}}), got {type(value).__name__}'
                )
            continue
        kind = ACTIONS.get(key)
        if kind is None:
            warnings.append(f"{ENV_ACTION}: unknown action {key!r} ignored (known: {', '.join(sorted(ACTIONS))})")
            continue
        if not isinstance(value, kind):
            named = {str: "text", bool: "true or false", dict: "an object"}[kind]
            raise UsageFailure(f"{ENV_ACTION}: {key} must be {named}, got {value!r}")
        if isinstance(value, dict) and not all(isinstance(v, str) for v in value.values()):
            raise UsageFailure(f"{ENV_ACTION}: credentials must map names to text")
        if key == "webhook_auth" and value not in AUTH_SCHEMES:
            raise UsageFailure(f"{ENV_ACTION}: webhook_auth must be one of {', '.join(AUTH_SCHEMES)}, got {value!r}")
        if key == "verify_signature":
            if value:
                out[OPTION_FOR[key]] = action.get(JWKS_KEY) or _EMPTY_JWKS
            continue
        out[OPTION_FOR[key]] = value
    return out, warnings
