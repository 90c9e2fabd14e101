"""The typed records the reader builds from an ACTS file: everything else reads these, never the YAML."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Where:
    """A construct's place: the file and the path in it."""

    file: str
    path: str

    def __str__(self) -> str:
        return f"{self.file}: {self.path}"


@dataclass(frozen=True)
class Until:
    """A `repeat.until` expression (§9.1): `path == value`, `path != value`, `path in [a, b]`."""

    path: str
    op: str
    values: tuple[Any, ...]
    text: str


@dataclass(frozen=True)
class Repeat:
    until: Until
    max_attempts: int = 10
    delay_ms: int = 1000
    backoff: str = "none"


@dataclass(frozen=True)
class Expect:
    """An expect-block (§6.1): an assertion on the HTTP status (None: any success), and on the body."""

    status: Any = None
    body: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ExpectError:
    """An expect-error (§6.2): `error` is an assertion on the error (its abstract name, or its JSON-RPC code)."""

    error: Any
    message: Any = None
    details: Mapping[str, Any] | None = None
    spelled: str = "error_type"


@dataclass(frozen=True)
class ExpectStream:
    """An expect-stream (§7)."""

    min_count: int | None = None
    max_count: int | None = None
    timeout_ms: int | None = None
    ordering: str | None = None
    events: tuple[Mapping[str, Any], ...] = ()
    final_event: Any = None
    each_event: Any = None


@dataclass(frozen=True)
class CollectionMatch:
    path: str
    match: Mapping[str, Any]


@dataclass(frozen=True)
class NamedAssertion:
    """A named-assertion or inline-assertion (§5.5)."""

    source: str
    id: str = ""
    path: str = ""
    match: Any = None
    has_match: bool = False
    any: CollectionMatch | None = None
    all: CollectionMatch | None = None
    none: CollectionMatch | None = None


@dataclass(frozen=True)
class RawRequest:
    method: str
    path: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    has_body: bool = False
    body_raw: str | None = None


@dataclass(frozen=True)
class Step:
    """One step (§4): `kind` is operation, raw, client or assertion."""

    id: str
    kind: str
    where: Where
    description: str = ""
    operation: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    raw: RawRequest | None = None
    expect: Expect | None = None
    expect_error: ExpectError | None = None
    expect_stream: ExpectStream | None = None
    capture: Mapping[str, str] = field(default_factory=dict)
    assertions: tuple[NamedAssertion, ...] = ()
    repeat: Repeat | None = None
    delay_ms: int = 0
    client_operation: str = ""
    wire_payload: Any = None
    expect_parsed: Mapping[str, Any] = field(default_factory=dict)
    assertion: NamedAssertion | None = None


@dataclass(frozen=True)
class Preconditions:
    capabilities: Mapping[str, Any] = field(default_factory=dict)
    skills: tuple[str, ...] = ()
    transport: tuple[str, ...] = ()
    extensions: tuple[str, ...] = ()
    description: str = ""


@dataclass(frozen=True)
class Test:
    id: str
    name: str
    level: str
    suite: str
    where: Where
    steps: tuple[Step, ...]
    description: str = ""
    spec_ref: str = ""
    tags: tuple[str, ...] = ()
    transport: tuple[str, ...] = ()
    preconditions: Preconditions = field(default_factory=Preconditions)
    requires_behaviors: tuple[str, ...] = ()
    origin: str = ""
    runner_requirements: tuple[str, ...] = ()
    assertions: tuple[NamedAssertion, ...] = ()
    #: The document's spec_ref (a test's own is read against it) and variables.
    doc_spec_ref: str = ""
    variables: Mapping[str, str] = field(default_factory=dict)

    @property
    def is_client(self) -> bool:
        return any(step.kind == "client" for step in self.steps)


@dataclass(frozen=True)
class Suite:
    id: str
    name: str
    tests: tuple[Test, ...]
    description: str = ""
    file: str = ""


@dataclass(frozen=True)
class Document:
    """Every suite of a file and of the files it includes, in order; each test keeps the variables it sees (its own
    file's over those of the files that include it)."""

    acts_version: str
    spec_version: str
    suites: tuple[Suite, ...]
    files: tuple[str, ...]
    title: str = ""
    variables: Mapping[str, str] = field(default_factory=dict)

    @property
    def tests(self) -> list[Test]:
        return [test for suite in self.suites for test in suite.tests]
