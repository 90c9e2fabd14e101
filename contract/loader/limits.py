"""The `limits:` and `tls:` sections: body and stream bounds, timeouts, and the server's certificate."""

from __future__ import annotations

from typing import Any

from ..scenario import (
    Limits,
    ServerCertificate,
    Tls,
)
from .reader import Reader
from .tables import LIMITS_MOST, MAX_ANSWER_BYTES

ANSWER_BYTES_WHY = f"no answer a scenario serves is larger than {MAX_ANSWER_BYTES} bytes"
#: The limits given in seconds (any positive number); the others are whole numbers >= 1, at most LIMITS_MOST.
_SECONDS = ("body_seconds", "stream_idle_seconds", "stream_ping_seconds")


def read_limits(r: Reader, value: Any) -> Limits:
    given = r.mapping(value, "limits", "limits")
    kw: dict[str, Any] = {
        k: r.number(v, f"limits.{k}")
        if k in _SECONDS
        else r.integer(
            v,
            f"limits.{k}",
            1,
            LIMITS_MOST[k],
            f"a limit bounds what one scenario's server keeps: at most {LIMITS_MOST[k]} "
            f"(the default is {getattr(Limits(), k)})",
        )
        for k, v in given.items()
    }
    return Limits(**kw)


def read_tls(r: Reader, value: Any) -> Tls:
    t = r.mapping(value, "tls", "tls")
    return Tls(
        r.choice(t["certificate"], "tls.certificate", "tls.certificate", what="certificate")
        if "certificate" in t
        else ServerCertificate.VALID,
        r.boolean(t.get("client_certificate", False), "tls.client_certificate"),
    )
