"""The `client:`, `expect:` and `auth:` sections: what the client is asked to do, what a correct client reports, and
the credentials it is handed."""

from __future__ import annotations

from typing import Any

from a2a_lab.protocol import signing
from a2a_lab.protocol.states import TaskState

from ..scenario import (
    ACTIONS,
    CREDENTIAL_KEYS,
    DEFAULT_MESSAGE,
    Auth,
    AuthScope,
    CardSpec,
    ClientAsk,
    Expect,
)
from ..suggest import one_of
from .reader import Reader


def read_client(r: Reader, value: Any, card: CardSpec) -> ClientAsk:
    client = r.mapping(value, "client", "client")
    action = dict(r.mapping(client.get("action", {}), "client.action", "client.action"))
    for key, kind in ACTIONS.items():
        if key in action and not isinstance(action[key], kind):
            named = {str: "text", bool: "true or false", dict: "a mapping"}[kind]
            raise r.fail(f"client.action.{key}", f"expected {named}, got {action[key]!r}")
    if "new_message" in action and "follow_up" in action:
        raise r.fail(
            "client.action.new_message",
            "asks for an unrelated new message and a follow-up to the same task at once",
            "keep one: follow_up continues the task, new_message starts another",
        )
    if "credentials" in action:
        action["credentials"] = _credentials(r, action["credentials"], "client.action.credentials", None)
    if action.get("verify_signature"):
        if card.sign is None:
            raise r.fail(
                "client.action.verify_signature", "the card is not signed", "add card.sign, or drop verify_signature"
            )
        action["jwks"] = signing.public_jwks([{**card.sign.key, "kid": card.sign.kid}])
    return ClientAsk(r.string(client.get("message", DEFAULT_MESSAGE), "client.message"), action)


def read_expect(r: Reader, value: Any) -> Expect:
    e = r.mapping(value, "expect", "expect")
    result = e.get("result")
    listed = [] if result is None else result if isinstance(result, list) else [result]
    if isinstance(result, list) and not result:
        raise r.fail(
            "expect.result",
            "expected a result or a non-empty list of acceptable results",
            "e.g. error, or [none, task]",
        )
    results = [
        r.choice(item, f"expect.result[{i}]" if isinstance(result, list) else "expect.result", "expect.result")
        for i, item in enumerate(listed)
    ]
    return Expect(
        tuple(dict.fromkeys(results)),
        _expected_states(r, e["state"]) if "state" in e else (),
        r.string(e["text_contains"], "expect.text_contains") if "text_contains" in e else None,
        r.string(e["text"], "expect.text") if "text" in e else None,
        r.boolean(e.get("survives", False), "expect.survives"),
    )


def _expected_states(r: Reader, value: Any) -> tuple[TaskState, ...]:
    """`expect.state`: one state, or a non-empty list of the states a race allows (each a task state, no repeats)."""
    if not isinstance(value, list):
        return (r.state(value, "expect.state"),)
    if not value:
        raise r.fail(
            "expect.state",
            "expected a state or a non-empty list of the states a race allows",
            "e.g. COMPLETED, or [CANCELED, COMPLETED]",
        )
    found = [r.state(item, f"expect.state[{i}]") for i, item in enumerate(value)]
    for i, state in enumerate(found):
        if state in found[:i]:
            raise r.fail(f"expect.state[{i}]", f"{state.short} is listed twice", "list each acceptable state once")
    return tuple(found)


def _credentials(r: Reader, value: Any, path: str, section: str | None) -> dict[str, str]:
    """A credentials mapping: keys from CREDENTIAL_KEYS, values text."""
    given = r.mapping(value, path, section)
    for key in given:
        if key not in CREDENTIAL_KEYS:
            raise r.fail(f"{path}.{key}", "unknown credential", one_of(str(key), CREDENTIAL_KEYS))
    return {key: r.string(v, f"{path}.{key}") for key, v in given.items()}


def read_auth(r: Reader, value: Any) -> Auth:
    a = r.mapping(value, "auth", "auth")
    scope = r.choice(a["scope"], "auth.scope", "auth.scope", "all or extended_card") if "scope" in a else AuthScope.ALL
    bearer = r.string(a["bearer"], "auth.bearer") if "bearer" in a else None
    credentials = (
        _credentials(r, a["credentials"], "auth.credentials", "auth.credentials") if "credentials" in a else {}
    )
    if bearer is None and not credentials:
        raise r.fail("auth", "accepts no credential", "give bearer, credentials, or both")
    uses = r.integer(a["token_uses"], "auth.token_uses", 1) if "token_uses" in a else None
    per_user = a.get("tasks_per_user", False)
    if not isinstance(per_user, bool):
        raise r.fail(
            "auth.tasks_per_user",
            f"expected true or false, got {per_user!r}",
            "true keeps each user's tasks apart (another user's task answers as one that does not exist); false, or "
            "leave it out, lets every caller see every task",
        )
    return Auth(bearer, scope, credentials, uses, per_user)
