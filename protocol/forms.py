"""Wire forms: an A2A version in a binding, the unit every shape, spelling and parser in the protocol core is
written for (1.0 ProtoJSON, 0.3 JSON-RPC with `kind` discriminators, 0.3 HTTP+JSON with its proto names)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .bindings import Binding
from .versions import Version

_LABELS = {Binding.JSONRPC: "JSON-RPC", Binding.HTTP_JSON: "HTTP+JSON", Binding.GRPC: "gRPC"}


@dataclass(frozen=True, slots=True)
class Form:
    """How a body is spelled: an A2A version in a binding. What follows from the two is set once, at creation: the
    parsers read it at every field (`of` gives the server's forms without making them again)."""

    version: Version
    binding: Binding
    #: The HTTP+JSON (proto JSON) form, as opposed to JSON-RPC's.
    rest: bool = field(init=False, repr=False, compare=False)
    #: The 0.3 JSON-RPC form: objects name their kind (`kind`) and results are bare.
    discriminated: bool = field(init=False, repr=False, compare=False)
    #: The member a message's parts live in (`content` in the 0.3 HTTP+JSON form).
    parts_key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rest, v03 = self.binding is Binding.HTTP_JSON, self.version is Version.V0_3
        object.__setattr__(self, "rest", rest)
        object.__setattr__(self, "discriminated", v03 and self.binding is Binding.JSONRPC)
        object.__setattr__(self, "parts_key", "content" if v03 and rest else "parts")

    @property
    def label(self) -> str:
        return f"{self.version.value} {_LABELS[self.binding]}"


_MADE: dict[tuple[Version, Binding], Form] = {}


def of(version: Version, binding: Binding) -> Form:
    """The form of `version` in `binding`, made once (a request's form, on every request)."""
    found = _MADE.get((version, binding))
    if found is None:
        found = _MADE[version, binding] = Form(version, binding)
    return found


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
