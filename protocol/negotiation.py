"""Version negotiation on a request (spec §3.6): which answer a server owes a version/method mix."""

from __future__ import annotations

from .errors import A2AError, ErrorType
from .versions import HEADER, Version, to_known


def negotiate(
    requested: str, header_given: bool, op_version: Version, offered: tuple[Version, ...], what: str
) -> A2AError | None:
    """None when the request may be served; else the error to answer.

    `requested` is the Major.Minor asked for (absent means 0.3); `op_version` is the version the method
    name or path belongs to; `offered` is what the interface serves; `what` names the method or path.
    """
    asked = to_known(requested)
    if asked is None or asked not in offered:
        return A2AError(
            ErrorType.VERSION_NOT_SUPPORTED,
            f"A2A version {requested!r} is not supported by this interface "
            f"(it serves {', '.join(v.value for v in offered)})"
            + ("" if header_given else f"; no {HEADER} header was sent, which means 0.3"),
            metadata={"requestedVersion": requested, "supportedVersions": ",".join(v.value for v in offered)},
        )
    if asked is op_version:
        return None
    if op_version is Version.V1_0:
        return A2AError(
            ErrorType.VERSION_NOT_SUPPORTED,
            f"{what} is an A2A 1.0 operation but the request asked for {asked.value}"
            + ("" if header_given else f" (no {HEADER} header was sent, which means 0.3)")
            + f"; send {HEADER}: 1.0",
            metadata={"requestedVersion": requested, "supportedVersions": ",".join(v.value for v in offered)},
        )
    return A2AError(
        ErrorType.METHOD_NOT_FOUND,
        f"Method not found: {what} is an A2A 0.3 operation, "
        f"but the request asked for {asked.value} ({HEADER}: {requested})",
    )
