"""Wire forms: an A2A version in a binding, the unit every shape, spelling and parser in the protocol core is
written for (1.0 ProtoJSON, 0.3 JSON-RPC with `kind` discriminators, 0.3 HTTP+JSON with its proto names)."""

from __future__ import annotations

from dataclasses import dataclass

from .bindings import Binding
from .versions import Version

_LABELS = {Binding.JSONRPC: "JSON-RPC", Binding.HTTP_JSON: "HTTP+JSON", Binding.GRPC: "gRPC"}


@dataclass(frozen=True, slots=True)
class Form:
    """How a body is spelled: an A2A version in a binding."""

    version: Version
    binding: Binding

    @property
    def rest(self) -> bool:
        """The HTTP+JSON (proto JSON) form, as opposed to JSON-RPC's."""
        return self.binding is Binding.HTTP_JSON

    @property
    def discriminated(self) -> bool:
        """The 0.3 JSON-RPC form: objects name their kind (`kind`) and results are bare."""
        return self.version is Version.V0_3 and self.binding is Binding.JSONRPC

    @property
    def parts_key(self) -> str:
        """The member a message's parts live in (`content` in the 0.3 HTTP+JSON form)."""
        return "content" if self.version is Version.V0_3 and self.rest else "parts"

    @property
    def label(self) -> str:
        return f"{self.version.value} {_LABELS[self.binding]}"


V1_JSONRPC = Form(Version.V1_0, Binding.JSONRPC)
V1_HTTP_JSON = Form(Version.V1_0, Binding.HTTP_JSON)
V03_JSONRPC = Form(Version.V0_3, Binding.JSONRPC)
V03_HTTP_JSON = Form(Version.V0_3, Binding.HTTP_JSON)
#: The JSON-RPC forms, in the order a lenient reader tries them on a body that is not in the form its interface
#: declares (a 0.3 answer under a 1.0 method, say): read anyway, with a warning.
JSONRPC_FORMS = (V1_JSONRPC, V03_JSONRPC)


def push_form(version: Version) -> Form:
    """The form push notifications come in (§4.3.3): 1.0 POSTs a StreamResponse in its HTTP+JSON form, 0.3 the
    Task as its JSON-RPC results spell it (0.3 §9.5)."""
    return V1_HTTP_JSON if version is Version.V1_0 else V03_JSONRPC
