"""The probe's gRPC transport: the reference client's, with the `a2a-version` metadata under the probe's control.

Needs the grpc extra: imported only where a probed interface is gRPC (context.InterfaceProbe).
"""

from __future__ import annotations

from a2a_lab.harness.clients.refclient.grpc_transport import GrpcTransport
from a2a_lab.harness.server_judging.probe.transports import VersionControl
from a2a_lab.protocol import grpcwire


class ProbeGrpcTransport(VersionControl, GrpcTransport):
    """GrpcTransport whose version metadata the probe may drop or replace (VERSION-NEGOTIATION)."""

    def _metadata(self) -> dict[str, str]:
        return self.with_version(super()._metadata(), grpcwire.VERSION_METADATA)
