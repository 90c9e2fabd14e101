"""The exact request a narrow client derives from each interface: URL, method, headers, minimal body, and a command
line that sends it (curl for JSON-RPC and HTTP+JSON, grpcurl for gRPC)."""

from __future__ import annotations

import ipaddress
import json
import shlex
from dataclasses import dataclass, field
from typing import Any

from a2a_lab.protocol import grpcwire, jsonrpc, requests
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Interface
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import Role
from a2a_lab.protocol.versions import Version

EXAMPLE_TEXT = "hello"
EXAMPLE_MESSAGE_ID = "00000000-0000-4000-8000-000000000001"
#: grpcurl knows the service from the server's reflection or from the proto; a2a-lab names the proto (A2A servers
#: rarely offer reflection).
GRPCURL_PROTO = ("-import-path", ".", "-proto", "a2a.proto")
GRPCURL_NOTE = (
    "grpcurl reads the service from a2a.proto (the normative specification/a2a.proto, with the googleapis protos it "
    "imports under -import-path); drop -import-path/-proto when the server offers reflection"
)


def _local(host: str) -> bool:
    """A loopback or local name, whose gRPC server is most likely plaintext (a public one uses TLS)."""
    name = host.strip("[]").lower()
    try:
        return ipaddress.ip_address(name).is_loopback or ipaddress.ip_address(name).is_private
    except ValueError:
        return name == "localhost" or name.endswith((".localhost", ".local", ".internal"))


@dataclass
class Derived:
    interface: Interface
    ok: bool
    reason: str = ""
    http_method: str = ""
    url: str = ""
    rpc_method: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    #: gRPC: the service method (`lf.a2a.v1.A2AService/SendMessage`); `url` is then the address, `headers` the metadata
    #: and `body` the request message as ProtoJSON.
    grpc_method: str | None = None

    def command(self) -> str:
        """The command line that sends the request: grpcurl for gRPC, curl otherwise."""
        return self.grpcurl() if self.grpc_method is not None else self.curl()

    def grpcurl(self) -> str:
        parts = ["grpcurl"]
        if _local(self.url.rpartition(":")[0]):
            parts.append("-plaintext")
        parts += GRPCURL_PROTO
        for name, value in self.headers.items():
            parts += ["-H", f"{name}: {value}"]
        parts += ["-d", json.dumps(self.body, separators=(",", ":")), self.url, self.grpc_method or ""]
        return " ".join(shlex.quote(p) for p in parts)

    def curl(self) -> str:
        parts = ["curl", "-sS", "-X", self.http_method]
        for name, value in self.headers.items():
            parts += ["-H", f"{name}: {value}"]
        if self.body is not None:
            parts += ["--data", json.dumps(self.body, separators=(",", ":"))]
        parts.append(self.url)
        return " ".join(shlex.quote(p) for p in parts)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "interface": {
                "index": self.interface.index,
                "url": self.interface.url,
                "binding": self.interface.binding,
                "protocolVersion": self.interface.declared_version,
                "version": self.interface.version,
            },
            "usable": self.ok,
        }
        if not self.ok:
            out["reason"] = self.reason
            return out
        if self.grpc_method is not None:
            out.update(
                {
                    "address": self.url,
                    "grpc_method": self.grpc_method,
                    "metadata": self.headers,
                    "body": self.body,
                    "grpcurl": self.grpcurl(),
                    "note": GRPCURL_NOTE,
                }
            )
            return out
        out.update(
            {
                "http_method": self.http_method,
                "url": self.url,
                "jsonrpc_method": self.rpc_method,
                "headers": self.headers,
                "body": self.body,
                "curl": self.curl(),
            }
        )
        return out


def derive(iface: Interface) -> Derived:
    """SendMessage for one interface, in its version and binding."""
    binding, version = iface.core_binding, iface.known_version
    if binding is None:
        return Derived(iface, False, f"binding {iface.binding!r} is not one a2a-lab derives (JSONRPC, HTTP+JSON, GRPC)")
    if version is None:
        return Derived(iface, False, f"protocol version {iface.version!r} is not one a2a-lab speaks (1.0, 0.3)")
    params: dict[str, Any] = {
        "message": {"messageId": EXAMPLE_MESSAGE_ID, "role": Role.USER.value, "parts": [{"text": EXAMPLE_TEXT}]}
    }
    if iface.tenant:
        params["tenant"] = iface.tenant
    if binding is Binding.GRPC:
        return _derive_grpc(iface, version, params)
    wire = requests.build(Operation.SEND_MESSAGE, version, binding, params)
    headers = {"Content-Type": requests.content_type(binding, version), **requests.version_headers(version)}
    base = iface.url.rstrip("/")
    if isinstance(wire, requests.RpcRequest):
        body = jsonrpc.envelope(wire.method, wire.params, 1)
        return Derived(
            iface, True, http_method="POST", url=iface.url, rpc_method=wire.method, headers=headers, body=body
        )
    return Derived(iface, True, http_method=wire.verb, url=base + wire.path, headers=headers, body=wire.body)


def _derive_grpc(iface: Interface, version: Version, params: dict[str, Any]) -> Derived:
    """The gRPC call: the address the url names (read leniently; lint names a url that is not host:port), the
    version as metadata (§10.2), the request message as ProtoJSON."""
    if version is not Version.V1_0:
        return Derived(
            iface, False, f"a2a-lab derives gRPC calls for A2A 1.0 ({grpcwire.SERVICE}), not {version.value}"
        )
    address = grpcwire.address_of(iface.url)
    if address is None:
        return Derived(iface, False, f"the url {iface.url!r} names no host:port to dial")
    wire = requests.grpc_request(Operation.SEND_MESSAGE, version, params)
    metadata = {k.lower(): v for k, v in requests.version_headers(version).items()}
    return Derived(iface, True, url=address, headers=metadata, body=wire.message, grpc_method=wire.path.lstrip("/"))
