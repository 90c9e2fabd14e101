"""Trusting a card before using it (A2A 1.0 §8.4.3): at least one signature must verify against the key set given."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from a2a_lab.contract import userfile
from a2a_lab.harness.clients.refclient.failures import ClientFailure, UsageFailure
from a2a_lab.protocol import signing


def verify_card(card: dict[str, Any], jwks: Mapping[str, Any]) -> dict[str, Any]:
    """What verified (kid, alg), or ClientFailure `signature` when nothing does: the agent must not be called."""
    verdicts = signing.verify(card, dict(jwks))
    good = [v for v in verdicts if v.valid]
    if good:
        return {"verified": True, "kid": good[0].kid, "alg": good[0].alg, "signatures": len(verdicts)}
    if not verdicts:
        why = "the card carries no signature"
    else:
        why = "; ".join(
            f"signature #{v.index}" + (f" (kid {v.kid!r})" if v.kid else "") + f": {v.reason}" for v in verdicts
        )
    raise ClientFailure(
        "signature",
        f"card signature does not verify: {why}; the agent was not called",
        {"signatures": [v.to_json() for v in verdicts]},
    )


def load_jwks(path: str | Path) -> dict[str, Any]:
    """A key set from a JSON file (read by the bounded reader of user files): a JWKS (`{"keys": [...]}`) or one JWK
    (wrapped). UsageFailure when unreadable."""
    try:
        value = userfile.load_json(path, userfile.KEYS)
    except userfile.Refused as exc:
        raise UsageFailure(str(exc)) from None
    if isinstance(value, dict) and isinstance(value.get("keys"), list):
        return value
    if isinstance(value, dict) and "kty" in value:
        return {"keys": [value]}
    raise UsageFailure(f'the key set {path} is neither a JWKS ({{"keys": [...]}}) nor a JWK')
