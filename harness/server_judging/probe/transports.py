"""The probe's HTTP transport: the reference client's, with the A2A-Version header under the probe's control (the
gRPC one, which needs the grpc extra, is grpcprobe.py's, on the same `VersionControl`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from a2a_lab.harness.clients.refclient.transport import Transport
from a2a_lab.protocol.versions import HEADER


class VersionControl:
    """What the probe adds to a transport: it may drop or replace the version service parameter."""

    _version_header: tuple[bool, str | None] = (False, None)

    def with_version(self, params: dict[str, str], key: str) -> dict[str, str]:
        """`params` (headers or metadata) with the version under `key` as the probe wants it now."""
        override, value = self._version_header
        if override:
            params.pop(key, None)
            if value is not None:
                params[key] = value
        return params

    @contextmanager
    def version_header(self, value: str | None) -> Iterator[None]:
        """Send version `value` (None: no version at all) on the calls made inside."""
        self._version_header = (True, value)
        try:
            yield
        finally:
            self._version_header = (False, None)


class ProbeTransport(VersionControl, Transport):
    """The reference client's HTTP transport, except that the probe may drop or replace the A2A-Version header."""

    def _headers(self, accept: str) -> dict[str, str]:
        return self.with_version(super()._headers(accept), HEADER)
