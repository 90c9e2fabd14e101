"""A TCP relay in front of the gRPC server, so that a scenario can reset a client's connection mid-call.

grpcio gives a handler no way to reset its stream or connection; faults need one (a stream reset mid-task is a
real failure clients must survive). Clients connect to the relay's port (the one the card names); each connection
is piped to the gRPC server's own loopback port. The gRPC server sees the relay's outbound socket as its peer, so
`reset(peer)` finds the client connection behind a call and aborts both sides with RST.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct

from . import hosting

CHUNK = 64 * 1024
#: A reset waits until the gRPC server has written nothing to the connection for this long (what it sent before the
#: reset, the answer's earlier messages, must reach the client first), and at most SETTLE_MAX_S.
SETTLE_S = 0.02
SETTLE_MAX_S = 0.5


def _rst(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class Relay:
    def __init__(self, host: str, target_port: int) -> None:
        self.host = host
        self.target_port = target_port
        self.port = 0
        self._server: asyncio.base_events.Server | None = None
        #: The relay's outbound local port (what the gRPC server calls the peer) -> both writers of that connection.
        self._pairs: dict[int, tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = {}
        #: When the gRPC server last wrote to each connection (loop time), by the same key.
        self._last_down: dict[int, float] = {}

    async def start(self) -> int:
        sock = hosting.bind(self.host, 0)
        self._server = await asyncio.start_server(self._accept, sock=sock)
        self.port = sock.getsockname()[1]
        return self.port

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.target_port)
        except OSError:
            _rst(writer)
            return
        local_port = up_writer.get_extra_info("sockname")[1]
        self._pairs[local_port] = (writer, up_writer)
        try:
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer, local_port))
        finally:
            self._pairs.pop(local_port, None)
            self._last_down.pop(local_port, None)
            for w in (writer, up_writer):
                w.close()

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, down_port: int | None = None
    ) -> None:
        loop = asyncio.get_running_loop()
        try:
            while data := await reader.read(CHUNK):
                writer.write(data)
                await writer.drain()
                if down_port is not None:
                    self._last_down[down_port] = loop.time()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(OSError, RuntimeError):
                if writer.can_write_eof():
                    writer.write_eof()

    async def reset(self, peer: str) -> bool:
        """Reset the client connection a call from `peer` (grpc's `ipv4:127.0.0.1:PORT` / `ipv6:[::1]:PORT`) came in
        on, once what the server wrote before has been passed on. False when it is not one of the relay's."""
        port_text = peer.rsplit(":", 1)[-1]
        port = int(port_text) if port_text.isdigit() else -1
        loop = asyncio.get_running_loop()
        asked = loop.time()
        deadline = asked + SETTLE_MAX_S
        while port in self._pairs and loop.time() < deadline:
            quiet = loop.time() - max(asked, self._last_down.get(port, 0.0))
            if quiet >= SETTLE_S:
                break
            await asyncio.sleep(SETTLE_S - quiet)
        pair = self._pairs.pop(port, None)
        if pair is None:
            return False
        for writer in pair:
            _rst(writer)
        return True

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for pair in list(self._pairs.values()):
            for writer in pair:
                writer.transport.abort()
        self._pairs.clear()
        if self._server is not None:
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
