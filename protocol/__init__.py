"""The A2A protocol core: versions, bindings, operations, states, errors, shapes and cards.

This package is the one place that knows protocol facts (method names, paths, enum spellings,
error codes). It does no I/O and knows nothing about HTTP servers or processes.

Its public API is its modules; the rest of a2a-lab imports them (or names from them) and nothing else:

- bindings: protocol bindings as agent cards spell them, and the media types they send
- cards: agent cards, their interfaces, and how a client picks one
- errors: A2A and JSON-RPC errors (codes, ErrorInfo reasons, HTTP and gRPC mappings); A2AError
- exceptions: LabError, the base of every exception a2a-lab raises on purpose
- forms: wire forms (a version in a binding), the unit every shape and parser is written for
- grpcwire: the gRPC binding's names: service, method paths, metadata keys, status codes
- json_types: JSON values and the canonical A2A 1.0 objects (Message, Part, Task, AgentCard...) as types
- jsonrpc: JSON-RPC 2.0 envelopes
- jsontext: JSON text on the wire (the one place that decides the codec)
- negotiation: version negotiation on a request
- operations: the eleven A2A operations and how each version and binding spells them
- params: operation parameters, every spelling read into one canonical form
- protobuf: A2A 1.0 protocol buffers to and from ProtoJSON (needs the protobuf package)
- requests: building wire requests (the inverse of params)
- rest: HTTP+JSON error bodies
- revisions: spec revisions of A2A 1.0 whose wire differs
- security: where credentials travel, and the names that carry them
- security_schemes: a card's securitySchemes and requirements, typed
- shapes: message, part, task and event shapes in each version and binding
- signing: agent card signatures (canonical form, detached JWS, verification)
- states: task states and roles, with every version's spelling
- versions: protocol versions and the A2A-Version service parameter
- wire: results and stream events in each wire form, both ways

`from a2a_lab.protocol import *` imports these modules; tests/protocol/test_public_api.py holds this list to
`__all__`.
"""

__all__ = [
    "bindings",
    "cards",
    "errors",
    "exceptions",
    "forms",
    "grpcwire",
    "json_types",
    "jsonrpc",
    "jsontext",
    "negotiation",
    "operations",
    "params",
    "protobuf",
    "requests",
    "rest",
    "revisions",
    "security",
    "security_schemes",
    "shapes",
    "signing",
    "states",
    "versions",
    "wire",
]
