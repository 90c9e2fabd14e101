"""Agent card signatures (spec §8.4): canonical form, JWS with a detached payload, verification.

Canonicalization (§8.4.1): respect proto field presence (REQUIRED fields always kept, `optional` fields
kept when present, other fields dropped when they hold their default), drop `signatures`, then RFC 8785
(JCS). Fields the 1.0 proto does not know (0.3 leftovers, extensions) are kept when not default.

joserfc (and the cryptography package under it) is imported when a key is first used, not with this module: the
reference client imports this module in every process, most cards are unsigned, and the two cost ~100 ms of a
client process's start.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import rfc8785

from .cards import CAPABILITY_FLAGS, REQUIRED_V1

if TYPE_CHECKING:
    from joserfc.jwk import ECKey, OKPKey, RSAKey

SIGNATURES = "signatures"
DEFAULT_ALG = "ES256"

_REQUIRED = {
    "AgentCard": set(REQUIRED_V1),
    "AgentInterface": {"url", "protocolBinding", "protocolVersion"},
    "AgentProvider": {"url", "organization"},
    "AgentSkill": {"id", "name", "description", "tags"},
    "AgentCapabilities": set(),
    "AgentExtension": set(),
}
_OPTIONAL = {"AgentCard": {"documentationUrl", "iconUrl"}, "AgentCapabilities": set(CAPABILITY_FLAGS)}
_CHILDREN = {
    "AgentCard": {
        "supportedInterfaces": "AgentInterface",
        "provider": "AgentProvider",
        "capabilities": "AgentCapabilities",
        "skills": "AgentSkill",
    },
    "AgentCapabilities": {"extensions": "AgentExtension"},
}


def _is_default(value: object) -> bool:
    return value in ("", 0, False, [], {}) and not (isinstance(value, bool) and value is True)


def _strip(obj: Mapping[str, object], kind: str) -> dict[str, Any]:
    """The card (or a member) without default-valued members, as JSON for rfc8785 (whose value type is closed)."""
    out: dict[str, Any] = {}
    required, optional, children = _REQUIRED.get(kind, set()), _OPTIONAL.get(kind, set()), _CHILDREN.get(kind, {})
    for key, value in obj.items():
        if kind == "AgentCard" and key == SIGNATURES:
            continue
        child = children.get(key)
        if child and isinstance(value, dict):
            value = _strip(value, child)
        elif child and isinstance(value, list):
            value = [_strip(v, child) if isinstance(v, dict) else v for v in value]
        if key in required or key in optional or not _is_default(value):
            out[key] = value
    return out


def canonical(card: Mapping[str, object]) -> bytes:
    """The bytes that are signed: the card without `signatures`, defaults stripped per presence, in JCS form."""
    return rfc8785.dumps(_strip(card, "AgentCard"))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def import_key(jwk: dict[str, Any]) -> ECKey | RSAKey | OKPKey:
    from joserfc.jwk import ECKey, OKPKey, RSAKey

    kty = jwk.get("kty")
    key_types: dict[str, type[ECKey] | type[RSAKey] | type[OKPKey]] = {"EC": ECKey, "RSA": RSAKey, "OKP": OKPKey}
    cls = key_types.get(str(kty))
    if cls is None:
        raise ValueError(f"unsupported key type {kty!r} (EC, RSA or OKP)")
    return cls.import_key(jwk)


def public_jwks(private_jwks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"keys": [{**import_key(k).as_dict(private=False), "kid": k.get("kid")} for k in private_jwks]}


def sign(
    card: dict[str, Any], private_jwk: dict[str, Any], kid: str | None = None, alg: str = DEFAULT_ALG
) -> dict[str, Any]:
    """A copy of the card with one more signature (JWS, detached canonical payload, §8.4.2)."""
    from joserfc import jws

    key = import_key(private_jwk)
    header = {"alg": alg, "kid": kid or private_jwk.get("kid", ""), "typ": "JOSE"}
    compact = jws.serialize_compact(header, canonical(card), key, algorithms=[alg])
    protected, _, signature = compact.split(".")
    return {**card, SIGNATURES: [*card.get(SIGNATURES, []), {"protected": protected, "signature": signature}]}


@dataclass(frozen=True)
class SignatureVerdict:
    """What verifying one of a card's signatures found."""

    index: int
    kid: str | None
    alg: str | None
    valid: bool
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"index": self.index, "kid": self.kid, "alg": self.alg, "valid": self.valid, "reason": self.reason}


def verify(card: dict[str, Any], jwks: dict[str, Any]) -> list[SignatureVerdict]:
    """Check every signature on a card against a key set (§8.4.3). An empty list: the card is unsigned."""
    from joserfc import jws
    from joserfc.errors import JoseError
    from joserfc.jwk import KeySet

    payload = canonical(card)
    try:
        keyset: KeySet | None = KeySet.import_key_set({"keys": jwks["keys"]})
    except (JoseError, ValueError, TypeError):
        keyset = None
    out: list[SignatureVerdict] = []
    for i, sig in enumerate(card.get(SIGNATURES) or []):
        if (
            not isinstance(sig, dict)
            or not isinstance(sig.get("protected"), str)
            or not isinstance(sig.get("signature"), str)
        ):
            out.append(SignatureVerdict(i, None, None, False, "not a {protected, signature} object"))
            continue
        try:
            header = json.loads(base64.urlsafe_b64decode(sig["protected"] + "=" * (-len(sig["protected"]) % 4)))
        except (ValueError, TypeError):
            out.append(SignatureVerdict(i, None, None, False, "the protected header is not base64url JSON"))
            continue
        kid, alg = header.get("kid"), header.get("alg")
        if not kid or not alg:
            out.append(
                SignatureVerdict(i, kid, alg, False, "the protected header lacks alg or kid (both MUST be present)")
            )
            continue
        try:
            if keyset is None:
                raise KeyError(kid)
            key = keyset.get_by_kid(kid)
        except (ValueError, KeyError, JoseError):
            out.append(SignatureVerdict(i, kid, alg, False, f"no key with kid {kid!r} in the key set"))
            continue
        try:
            jws.deserialize_compact(f"{sig['protected']}..{sig['signature']}", key, payload=payload, algorithms=[alg])
            out.append(SignatureVerdict(i, kid, alg, True, "signature valid over the canonical card"))
        except (JoseError, ValueError) as exc:
            out.append(SignatureVerdict(i, kid, alg, False, f"signature does not verify ({type(exc).__name__})"))
    return out
