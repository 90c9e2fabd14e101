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
        self._tasks: set[asyncio.Task[None]] = set()

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
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        finally:
            self._pairs.pop(local_port, None)
            for w in (writer, up_writer):
                w.close()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(CHUNK):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(OSError, RuntimeError):
                if writer.can_write_eof():
                    writer.write_eof()

    def reset(self, peer: str) -> bool:
        """Reset the client connection a call from `peer` (grpc's `ipv4:127.0.0.1:PORT` / `ipv6:[::1]:PORT`) came in
        on. False when it is not one of the relay's."""
        port_text = peer.rsplit(":", 1)[-1]
        pair = self._pairs.pop(int(port_text), None) if port_text.isdigit() else None
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
