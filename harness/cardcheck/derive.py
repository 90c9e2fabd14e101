"""The exact request a narrow client derives from each interface: URL, method, headers, minimal body, curl."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from typing import Any

from a2a_lab.protocol import jsonrpc, requests
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Interface
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import Role

EXAMPLE_TEXT = "hello"
EXAMPLE_MESSAGE_ID = "00000000-0000-4000-8000-000000000001"


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
    if binding is None or binding is Binding.GRPC:
        return Derived(iface, False, f"binding {iface.binding!r} is not one a2a-lab derives (JSONRPC, HTTP+JSON)")
    if version is None:
        return Derived(iface, False, f"protocol version {iface.version!r} is not one a2a-lab speaks (1.0, 0.3)")
    params: dict[str, Any] = {
        "message": {"messageId": EXAMPLE_MESSAGE_ID, "role": Role.USER.value, "parts": [{"text": EXAMPLE_TEXT}]}
    }
    if iface.tenant:
        params["tenant"] = iface.tenant
    wire = requests.build(Operation.SEND_MESSAGE, version, binding, params)
    headers = {"Content-Type": requests.content_type(binding, version), **requests.version_headers(version)}
    base = iface.url.rstrip("/")
    if isinstance(wire, requests.RpcRequest):
        body = jsonrpc.envelope(wire.method, wire.params, 1)
        return Derived(
            iface, True, http_method="POST", url=iface.url, rpc_method=wire.method, headers=headers, body=body
        )
    return Derived(iface, True, http_method=wire.verb, url=base + wire.path, headers=headers, body=wire.body)
