"""Network faults at the ASGI level: stall, reset, truncate, drip.

A reset needs the connection's transport; a2a-lab's uvicorn protocol (see hosting) puts it in
`scope["extensions"]["a2a_lab.transport"]`. Under another server a reset degrades to a truncated answer.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from typing import Any

from starlette.types import Receive, Scope, Send

from a2a_lab.contract.scenario import Fault, FaultKind

TRANSPORT_KEY = "a2a_lab.transport"
#: A stalled answer is given up after this long even if the client never leaves.
STALL_LIMIT_S = 600.0


def abort_connection(scope: Scope) -> bool:
    """Reset the client's TCP connection (RST, not FIN). False when the transport is not reachable."""
    transport: Any = scope.get("extensions", {}).get(TRANSPORT_KEY)
    if transport is None:
        return False
    sock = transport.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    transport.abort()
    return True


async def wait_disconnect(receive: Receive, limit: float = STALL_LIMIT_S) -> None:
    async def _loop() -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return

    try:
        await asyncio.wait_for(_loop(), timeout=limit)
    except TimeoutError:
        pass


async def deliver(
    scope: Scope,
    receive: Receive,
    send: Send,
    status: int,
    headers: list[tuple[bytes, bytes]],
    body: bytes,
    fault: Fault,
) -> str:
    """Send an answer with the scenario's fault (a plain answer is sent by answer.send_body). Returns what happened,
    for the journal."""
    if fault.kind is FaultKind.STALL:
        await wait_disconnect(receive)
        return "stalled"
    if fault.kind is FaultKind.RESET:
        if abort_connection(scope):
            await wait_disconnect(receive, 5.0)
            return "reset"
        fault = Fault(FaultKind.TRUNCATE)
    headers = [h for h in headers if h[0] != b"content-length"] + [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    if fault.kind is FaultKind.TRUNCATE:
        await send({"type": "http.response.body", "body": body[: fault.after_bytes], "more_body": True})
        if not abort_connection(scope):
            raise ConnectionAbortedError("a2a-lab: truncated answer (fault injected by the scenario)")
        await wait_disconnect(receive, 5.0)
        return "truncated"
    # drip
    for start in range(0, len(body), fault.chunk_bytes):
        await asyncio.sleep(fault.interval_ms / 1000)
        await send({"type": "http.response.body", "body": body[start : start + fault.chunk_bytes], "more_body": True})
    await send({"type": "http.response.body", "body": b""})
    return "dripped"
