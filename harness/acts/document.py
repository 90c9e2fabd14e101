"""The one reader of ACTS files (A2A Conformance Test Specification, version 0.1.0, its Appendix A grammar).

A later ACTS version is one change here: the grammar below (field names, choices, aliases) is data, and everything
else reads the typed records this module builds. Files are YAML or JSON (§1.4), read within bounds
(`contract.userfile.ACTS`); a suite file's `include` list is followed relative to the including file (§16), each file
once. Every refusal is an `ActsError` naming the file, the path in it (`suites[0].tests[2].steps[1].expect`), what is
wrong and how to fix it (did-you-mean for a misspelt field or choice).

Where the official files (a2aproject/A2A, branch conformance-spec) spell a construct otherwise than the 0.1.0 text,
the reader accepts their spelling as an alias and says so in docs/how-to/acts.md:

- operations `set_push_notification_config`, `get_push_notification_config`, `list_push_notification_configs`,
  `delete_push_notification_config` for `create_push_config`, `get_push_config`, `list_push_configs`,
  `delete_push_config`;
- `expect_error.code` for `expect_error.error_type` (an error name, a JSON-RPC code, or an assertion on either);
- `get_agent_card` with `params: {extended: true}` for `get_extended_agent_card`;
- `expect: {status: error, error: ASSERTION}`, and on an abstract operation `expect: {error: ASSERTION}`, for an
  expect-error of any error type (`error` asserts on the error object: code, message, data or details);
- an `expect_error` without `error_type` (or `code`) for an error of any type;
- `expect_stream` on a raw step, judged on the raw answer's SSE events (their `data`, envelopes kept);
- the operator `items: {...}` (every element of an array matches);
- an empty list where the grammar says `[+ ...]` (`requires_behaviors: []`) reads as the field left out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2a_lab.contract import userfile, yamlfile
from a2a_lab.contract.suggest import did_you_mean, one_of
from a2a_lab.protocol.exceptions import LabError

#: The ACTS text this reader follows, and the format major versions it accepts (§17: reject another major).
ACTS_SPEC = "0.1.0"
ACTS_MAJORS = ("0", "1")

LEVELS = ("must", "should", "may")
TRANSPORTS = ("jsonrpc", "grpc", "rest")
OPERATIONS = (
    "send_message",
    "send_streaming_message",
    "get_task",
    "list_tasks",
    "cancel_task",
    "subscribe_to_task",
    "get_agent_card",
    "get_extended_agent_card",
    "create_push_config",
    "get_push_config",
    "list_push_configs",
    "delete_push_config",
)
#: The official files' spellings (see the module docstring).
OPERATION_ALIASES = {
    "set_push_notification_config": "create_push_config",
    "create_push_notification_config": "create_push_config",
    "get_push_notification_config": "get_push_config",
    "list_push_notification_configs": "list_push_configs",
    "delete_push_notification_config": "delete_push_config",
}
STREAMING_OPERATIONS = frozenset({"send_streaming_message", "subscribe_to_task"})
ERROR_TYPES = (
    "TaskNotFoundError",
    "TaskNotCancelableError",
    "UnsupportedOperationError",
    "ContentTypeNotSupportedError",
    "InvalidParamsError",
    "VersionNotSupportedError",
    "PushNotificationNotSupportedError",
    "StreamingNotSupportedError",
    "ExtensionSupportRequiredError",
    "ExtendedCardNotSupportedError",
    "JSONParseError",
    "MethodNotFoundError",
    "InternalError",
)
RUNNER_REQUIREMENTS = (
    "webhook_endpoint",
    "concurrent_streams",
    "stream_disconnect",
    "auth_credentials",
    "header_inspection",
)
RAW_METHODS = ("GET", "POST", "PUT", "DELETE")
BACKOFFS = ("none", "linear", "exponential")
ORDERINGS = ("monotonic_state",)
TYPES = ("string", "number", "boolean", "array", "object", "null")
#: §5.1's operators, by the kind of value each takes.
OPERATORS: dict[str, str] = {
    "type": "type",
    "exists": "true",
    "absent": "true",
    "contains": "text",
    "matches": "regex",
    "starts_with": "text",
    "ends_with": "text",
    "gte": "number",
    "lte": "number",
    "gt": "number",
    "lt": "number",
    "count": "int",
    "count_gte": "int",
    "count_lte": "int",
    "one_of": "list",
    "all_of": "assertions",
    "any_of": "assertions",
    "not": "assertion",
    #: Not in the 0.1.0 text; the official files' spelling for "every element of the array matches".
    "items": "assertion",
}
EVENT_KINDS = {
    "status_update": "statusUpdate",
    "artifact_update": "artifactUpdate",
    "task": "task",
    "message": "message",
}
_UNTIL = re.compile(r"^\s*(?P<path>[^\s=!]+)\s*(?P<op>==|!=|\bin\b)\s*(?P<value>.+?)\s*$")
_PATH = re.compile(r"^[^.\[\]]+(\[(\d+|\*)\])*(\.[^.\[\]]+(\[(\d+|\*)\])*)*$")


class ActsError(LabError, ValueError):
    """An ACTS file a2a-lab does not run: which file, where in it, what is wrong, how to fix it."""

    def __init__(self, source: str | Path, where: str, problem: str, hint: str = "") -> None:
        self.source, self.where, self.problem, self.hint = str(source), where, problem, hint
        said = ": ".join(part for part in (self.source, where, problem) if part)
        super().__init__(said + (f"\n  hint: {hint}" if hint else ""))


# ------------------------------------------------------------------------------------------------ records


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


# ------------------------------------------------------------------------------------------------ reading


def load(path: str | Path) -> Document:
    """Read an ACTS file (and what it includes) into a Document, or raise ActsError / userfile.Refused."""
    return _Reader().document(Path(path), ())


class _Reader:
    def __init__(self) -> None:
        self.seen: set[Path] = set()

    def document(self, path: Path, chain: tuple[Path, ...], inherited: Mapping[str, str] | None = None) -> Document:
        """`inherited`: the variables of the files that include this one (its own win over them)."""
        real = path.resolve()
        if real in chain:
            raise ActsError(chain[-1], "include", f"includes {path} again (a cycle)", "include each file once")
        if real in self.seen:
            return Document("", "", (), ())
        self.seen.add(real)
        data = _parse(path)
        f = _Fields(path)
        f.map(data, "", ("acts_version", "spec_version", "spec_ref", "metadata", "variables", "include", "suites"))
        acts_version = f.text(data, "", "acts_version", required=True)
        if acts_version.split(".")[0] not in ACTS_MAJORS:
            raise ActsError(
                path, "acts_version", f"ACTS format {acts_version!r} is not one this runner reads", _VERSION_HINT
            )
        spec_version = f.text(data, "", "spec_version", required=True)
        metadata = data.get("metadata") or {}
        f.map(metadata, "metadata", ("title", "description", "authors", "license"))
        variables = {**(inherited or {}), **f.text_map(data, "", "variables")}
        if "include" not in data and "suites" not in data:
            raise ActsError(path, "", "has neither `suites` nor `include`", "an ACTS document needs at least one (§2)")
        suites: list[Suite] = []
        files = [str(path)]
        for i, name in enumerate(f.texts(data, "", "include")):
            target = path.parent / name
            if not target.is_file():
                raise ActsError(
                    path, f"include[{i}]", f"no such file {str(target)!r}", "paths are relative to this file"
                )
            inner = self.document(target, (*chain, real), variables)
            suites += inner.suites
            files += inner.files
        doc_ref = f.text(data, "", "spec_ref")
        for i, raw in enumerate(f.items(data, "", "suites")):
            suites.append(_suite(f, raw, f"suites[{i}]", doc_ref, variables))
        _unique([t for s in suites for t in s.tests], path)
        return Document(
            acts_version,
            spec_version,
            tuple(suites),
            tuple(files),
            str(metadata.get("title") or ""),
            variables,
        )


_VERSION_HINT = f"a2a-lab reads ACTS {ACTS_SPEC} (format versions {', '.join(m + '.x' for m in ACTS_MAJORS)})"


def _parse(path: Path) -> Any:
    if path.suffix.lower() == ".json":
        return userfile.load_json(path, userfile.ACTS)
    return yamlfile.loads(userfile.read_text(path, userfile.ACTS), userfile.ACTS, path)


def check_unique(tests: list[Test]) -> None:
    """Refuse a test id used twice across the files of one run (§14)."""
    _unique(tests, Path())


def load_behaviors(path: str | Path) -> tuple[str, ...]:
    """The prefixes of an ACTS sut-behaviors file (§11.1): the behaviours a SUT declares it serves."""
    path = Path(path)
    data = _parse(path)
    f = _Fields(path)
    f.map(data, "", ("acts_version", "behaviors"))
    f.text(data, "", "acts_version", required=True)
    out = []
    for i, raw in enumerate(f.items(data, "", "behaviors")):
        at = f"behaviors[{i}]"
        f.map(
            raw, at, ("prefix", "description", "response_type", "terminal_state", "artifacts", "delay_ms", "streaming")
        )
        f.choice(raw, at, "response_type", ("task", "message"))
        f.integer(raw, at, "delay_ms")
        f.text(raw, at, "description", required=True)
        out.append(f.text(raw, at, "prefix", required=True))
    if not out:
        raise ActsError(
            path, "behaviors", "is required: at least one behaviour", "behaviors: [{prefix: ..., description: ...}]"
        )
    return tuple(out)


def _unique(tests: list[Test], path: Path) -> None:
    seen: dict[str, Test] = {}
    for test in tests:
        if test.id in seen:
            raise ActsError(
                test.where.file,
                test.where.path + ".id",
                f"test id {test.id!r} is used again (first at {seen[test.id].where})",
                "every test id is unique across the files a run reads (§14)",
            )
        seen[test.id] = test


class _Fields:
    """Typed field access with the file's errors."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, problem: str, hint: str = "") -> ActsError:
        return ActsError(self.path, where, problem, hint)

    def map(self, value: Any, where: str, allowed: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where or "(top)", f"must be a mapping, got {_kind(value)}")
        for key in value:
            if not isinstance(key, str) or key not in allowed:
                raise self.fail(
                    _join(where, str(key)),
                    "is not a field here",
                    one_of(str(key), allowed) + " (ACTS " + ACTS_SPEC + ")",
                )
        return value

    def text(self, data: Mapping[str, Any], where: str, key: str, required: bool = False) -> str:
        if key not in data:
            if required:
                raise self.fail(_join(where, key), "is required", "")
            return ""
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail(_join(where, key), f"must be text, got {_kind(value)}")
        return str(value)

    def integer(self, data: Mapping[str, Any], where: str, key: str, default: int | None = None) -> int | None:
        if key not in data:
            return default
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(_join(where, key), f"must be a whole number >= 0, got {value!r}")
        return value

    def choice(self, data: Mapping[str, Any], where: str, key: str, choices: tuple[str, ...], default: str = "") -> str:
        if key not in data:
            return default
        value = self.text(data, where, key)
        if value not in choices:
            raise self.fail(_join(where, key), f"{value!r} is not a choice", one_of(value, choices))
        return value

    def items(self, data: Mapping[str, Any], where: str, key: str) -> list[Any]:
        value = data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(_join(where, key), f"must be a list, got {_kind(value)}")
        return value

    def texts(self, data: Mapping[str, Any], where: str, key: str, choices: tuple[str, ...] = ()) -> tuple[str, ...]:
        out = []
        for i, item in enumerate(self.items(data, where, key)):
            at = f"{_join(where, key)}[{i}]"
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                raise self.fail(at, f"must be text, got {_kind(item)}")
            if choices and str(item) not in choices:
                raise self.fail(at, f"{item!r} is not a choice", one_of(str(item), choices))
            out.append(str(item))
        return tuple(out)

    def text_map(self, data: Mapping[str, Any], where: str, key: str) -> dict[str, str]:
        value = data.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(_join(where, key), f"must be a mapping of text, got {_kind(value)}")
        out = {}
        for name, item in value.items():
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                raise self.fail(_join(_join(where, key), str(name)), f"must be text, got {_kind(item)}")
            out[str(name)] = str(item)
        return out


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list", str: "text", bool: "a boolean"}.get(type(value), type(value).__name__)


def _suite(f: _Fields, raw: Any, where: str, doc_ref: str, variables: Mapping[str, str]) -> Suite:
    f.map(raw, where, ("id", "name", "description", "tags", "tests"))
    suite_id = f.text(raw, where, "id", required=True)
    tags = f.texts(raw, where, "tags")
    tests = f.items(raw, where, "tests")
    if not tests:
        raise f.fail(_join(where, "tests"), "is required: a suite holds at least one test")
    return Suite(
        suite_id,
        f.text(raw, where, "name", required=True),
        tuple(_test(f, t, f"{where}.tests[{i}]", suite_id, tags, doc_ref, variables) for i, t in enumerate(tests)),
        f.text(raw, where, "description"),
        str(f.path),
    )


_TEST_FIELDS = (
    "id",
    "name",
    "description",
    "spec_ref",
    "level",
    "tags",
    "transport",
    "preconditions",
    "requires_behaviors",
    "origin",
    "runner_requirements",
    "steps",
    "assertions",
)


def _test(
    f: _Fields, raw: Any, where: str, suite: str, tags: tuple[str, ...], doc_ref: str, variables: Mapping[str, str]
) -> Test:
    f.map(raw, where, _TEST_FIELDS)
    test_id = f.text(raw, where, "id", required=True)
    level = f.text(raw, where, "level", required=True)
    if level not in LEVELS:
        raise f.fail(_join(where, "level"), f"{level!r} is not a conformance level", one_of(level, LEVELS))
    steps_raw = f.items(raw, where, "steps")
    if not steps_raw:
        raise f.fail(_join(where, "steps"), "is required: a test has at least one step")
    steps = tuple(_step(f, s, f"{where}.steps[{i}]") for i, s in enumerate(steps_raw))
    ids = [s.id for s in steps]
    dup = next((i for i in ids if ids.count(i) > 1), None)
    if dup is not None:
        raise f.fail(_join(where, "steps"), f"step id {dup!r} is used twice", "step ids are unique within a test (§4)")
    transport = f.texts(raw, where, "transport", TRANSPORTS)
    if not transport and all(s.kind == "raw" for s in steps):
        raise f.fail(
            _join(where, "transport"), "is required: every step is a raw wire step", "raw steps are transport-specific"
        )
    return Test(
        id=test_id,
        name=f.text(raw, where, "name", required=True),
        level=level,
        suite=suite,
        where=Where(str(f.path), where),
        steps=steps,
        description=f.text(raw, where, "description"),
        spec_ref=f.text(raw, where, "spec_ref"),
        tags=tuple(dict.fromkeys((*tags, *f.texts(raw, where, "tags")))),
        transport=transport,
        preconditions=_preconditions(f, raw.get("preconditions"), _join(where, "preconditions")),
        requires_behaviors=f.texts(raw, where, "requires_behaviors"),
        origin=f.text(raw, where, "origin"),
        runner_requirements=f.texts(raw, where, "runner_requirements", RUNNER_REQUIREMENTS),
        assertions=tuple(
            _named(f, a, f"{where}.assertions[{i}]", True) for i, a in enumerate(f.items(raw, where, "assertions"))
        ),
        doc_spec_ref=doc_ref,
        variables=variables,
    )


def _preconditions(f: _Fields, raw: Any, where: str) -> Preconditions:
    if raw is None:
        return Preconditions()
    f.map(raw, where, ("capabilities", "skills", "transport", "extensions", "description"))
    caps = raw.get("capabilities") or {}
    if not isinstance(caps, dict):
        raise f.fail(_join(where, "capabilities"), f"must be a mapping, got {_kind(caps)}")
    skills = []
    for i, skill in enumerate(f.items(raw, where, "skills")):
        f.map(skill, f"{where}.skills[{i}]", ("id",))
        skills.append(f.text(skill, f"{where}.skills[{i}]", "id", required=True))
    return Preconditions(
        caps,
        tuple(skills),
        f.texts(raw, where, "transport", TRANSPORTS),
        f.texts(raw, where, "extensions"),
        f.text(raw, where, "description"),
    )


_SERVER_STEP = (
    "id",
    "description",
    "operation",
    "params",
    "expect",
    "expect_error",
    "expect_stream",
    "capture",
    "assertions",
    "repeat",
    "delay_ms",
)
_RAW_STEP = ("id", "description", "raw", "expect", "expect_error", "expect_stream", "capture", "assertions")
_CLIENT_STEP = ("id", "description", "client_response", "expect_parsed", "assertions")
_ASSERTION_STEP = ("id", "description", "assertion")
_KINDS = (
    ("operation", _SERVER_STEP),
    ("raw", _RAW_STEP),
    ("client_response", _CLIENT_STEP),
    ("assertion", _ASSERTION_STEP),
)


def _step(f: _Fields, raw: Any, where: str) -> Step:
    if not isinstance(raw, dict):
        raise f.fail(where, f"a step must be a mapping, got {_kind(raw)}")
    marks = [name for name, _ in _KINDS if name in raw]
    if len(marks) != 1:
        problem = "names no action" if not marks else f"mixes {' and '.join(marks)}"
        raise f.fail(where, problem, "a step has exactly one of operation, raw, client_response, assertion (§4)")
    mark = marks[0]
    f.map(raw, where, dict(_KINDS)[mark])
    step_id = f.text(raw, where, "id", required=True)
    common: dict[str, Any] = {
        "id": step_id,
        "where": Where(str(f.path), where),
        "description": f.text(raw, where, "description"),
    }
    if mark == "assertion":
        return Step(kind="assertion", assertion=_named(f, raw["assertion"], _join(where, "assertion"), False), **common)
    assertions = tuple(
        _named(f, a, f"{where}.assertions[{i}]", True) for i, a in enumerate(f.items(raw, where, "assertions"))
    )
    if mark == "client_response":
        return _client_step(f, raw, where, common, assertions)
    capture = f.text_map(raw, where, "capture")
    for name, path in capture.items():
        _check_path(f, path, f"{where}.capture.{name}")
    expect_error = (
        _expect_error(f, raw["expect_error"], _join(where, "expect_error")) if "expect_error" in raw else None
    )
    expect = None
    said = raw.get("expect")
    if isinstance(said, dict) and (
        said.get("status") == "error" or (mark == "operation" and "error" in said and "body" not in said)
    ):
        expect_error = _any_error(f, raw["expect"], _join(where, "expect"))  # the official files' spelling
    elif "expect" in raw:
        expect = _expect(f, raw.get("expect"), _join(where, "expect"))
    if expect is not None and expect_error is not None:
        raise f.fail(where, "has both expect and expect_error", "they are mutually exclusive (§4): keep one")
    if mark == "raw":  # expect_stream on a raw step (the official files): the raw answer's SSE events
        return Step(
            kind="raw",
            raw=_raw(f, raw["raw"], _join(where, "raw")),
            expect_stream=_expect_stream(f, raw["expect_stream"], _join(where, "expect_stream"))
            if "expect_stream" in raw
            else None,
            expect=expect,
            expect_error=expect_error,
            capture=capture,
            assertions=assertions,
            **common,
        )
    operation = f.text(raw, where, "operation", required=True)
    operation = OPERATION_ALIASES.get(operation, operation)
    if operation not in OPERATIONS:
        raise f.fail(
            _join(where, "operation"), f"{operation!r} is not an abstract operation", one_of(operation, OPERATIONS)
        )
    params = raw.get("params")
    if not isinstance(params, dict):
        raise f.fail(
            _join(where, "params"), f"is required and must be a mapping, got {_kind(params)}", "write `params: {}`"
        )
    if operation == "get_agent_card" and params.get("extended") is True:
        operation = "get_extended_agent_card"
    stream = _expect_stream(f, raw["expect_stream"], _join(where, "expect_stream")) if "expect_stream" in raw else None
    if stream is not None and operation not in STREAMING_OPERATIONS:
        raise f.fail(_join(where, "expect_stream"), f"{operation} is not a streaming operation", "use expect (§7)")
    return Step(
        kind="operation",
        operation=operation,
        params=params,
        expect=expect,
        expect_error=expect_error,
        expect_stream=stream,
        capture=capture,
        assertions=assertions,
        repeat=_repeat(f, raw["repeat"], _join(where, "repeat")) if "repeat" in raw else None,
        delay_ms=f.integer(raw, where, "delay_ms", 0) or 0,
        **common,
    )


def _client_step(
    f: _Fields, raw: dict[str, Any], where: str, common: dict[str, Any], assertions: tuple[NamedAssertion, ...]
) -> Step:
    response = f.map(raw["client_response"], _join(where, "client_response"), ("operation", "wire_payload"))
    at = _join(where, "client_response")
    operation = f.text(response, at, "operation", required=True)
    operation = OPERATION_ALIASES.get(operation, operation)
    if operation not in OPERATIONS:
        raise f.fail(
            _join(at, "operation"), f"{operation!r} is not an abstract operation", one_of(operation, OPERATIONS)
        )
    if "wire_payload" not in response:
        raise f.fail(_join(at, "wire_payload"), "is required", "the canonical payload the client parses")
    parsed = raw.get("expect_parsed")
    if not isinstance(parsed, dict):
        raise f.fail(_join(where, "expect_parsed"), f"is required and must be a mapping, got {_kind(parsed)}")
    check_assertion_map(f, parsed, _join(where, "expect_parsed"))
    return Step(
        kind="client",
        client_operation=operation,
        wire_payload=response["wire_payload"],
        expect_parsed=parsed,
        assertions=assertions,
        **common,
    )


def _raw(f: _Fields, raw: Any, where: str) -> RawRequest:
    f.map(raw, where, ("method", "path", "headers", "body", "body_raw"))
    method = f.text(raw, where, "method", required=True)
    if method not in RAW_METHODS:
        raise f.fail(_join(where, "method"), f"{method!r} is not a method raw steps use", one_of(method, RAW_METHODS))
    if "body" in raw and "body_raw" in raw:
        raise f.fail(where, "has both body and body_raw", "body_raw is for malformed JSON: keep one")
    return RawRequest(
        method,
        f.text(raw, where, "path", required=True),
        f.text_map(raw, where, "headers"),
        raw.get("body"),
        "body" in raw,
        f.text(raw, where, "body_raw") if "body_raw" in raw else None,
    )


def _expect(f: _Fields, raw: Any, where: str) -> Expect:
    if not isinstance(raw, dict):
        raise f.fail(where, f"must be a mapping, got {_kind(raw)}")
    if "status" in raw:
        check_assertion(f, raw["status"], _join(where, "status"))
    body = raw.get("body")
    loose = {k: v for k, v in raw.items() if k not in ("status", "body")}
    if loose and body is not None:
        raise f.fail(_join(where, next(iter(loose))), "is beside `body`", "put every field assertion under body")
    if loose:  # §5.2's examples assert fields right under expect
        body = loose
    if body is not None:
        if not isinstance(body, dict):
            raise f.fail(_join(where, "body"), f"must be a mapping of field assertions, got {_kind(body)}")
        check_assertion_map(f, body, _join(where, "body"))
    return Expect(raw.get("status"), body)


def _any_error(f: _Fields, raw: dict[str, Any], where: str) -> ExpectError:
    """`expect: {status: error, error: {...}}` (the official files): any error, `error` asserting on its object."""
    f.map(raw, where, ("status", "error"))
    if "error" in raw:
        check_assertion(f, raw["error"], _join(where, "error"))
    return ExpectError(None, None, raw.get("error"), "expect.status: error")


def _expect_error(f: _Fields, raw: Any, where: str) -> ExpectError:
    f.map(raw, where, ("error_type", "code", "message", "details", "data"))
    spelled = [k for k in ("error_type", "code") if k in raw]
    if len(spelled) > 1:
        raise f.fail(where, "has both error_type and code", "keep error_type: TaskNotFoundError (§6.2)")
    if not spelled:  # the official files: any error, the message (and details) asserted
        spelled = ["any"]
    error = raw.get(spelled[0])
    if spelled[0] == "error_type" and (not isinstance(error, str) or error not in ERROR_TYPES):
        raise f.fail(_join(where, "error_type"), f"{error!r} is not an A2A error type", one_of(str(error), ERROR_TYPES))
    if error is not None:
        check_assertion(f, error, _join(where, spelled[0]))
    for name in _names_in(error):
        if name not in ERROR_TYPES:
            raise f.fail(_join(where, spelled[0]), f"{name!r} is not an A2A error type", one_of(name, ERROR_TYPES))
    if "message" in raw:
        check_assertion(f, raw["message"], _join(where, "message"))
    details_key = "details" if "details" in raw else "data"
    details = raw.get(details_key)
    if details is not None:
        if not isinstance(details, dict):
            raise f.fail(_join(where, details_key), f"must be a mapping of assertions, got {_kind(details)}")
        check_assertion_map(f, details, _join(where, details_key))
    return ExpectError(error, raw.get("message"), details, spelled[0])


def _names_in(error: Any) -> list[str]:
    """The error names an error assertion spells (text that looks like `...Error`)."""
    if isinstance(error, str):
        return [error] if error.endswith("Error") else []
    if isinstance(error, dict):
        return [n for v in error.values() for n in _names_in(v)]
    if isinstance(error, list):
        return [n for v in error for n in _names_in(v)]
    return []


def _expect_stream(f: _Fields, raw: Any, where: str) -> ExpectStream:
    f.map(raw, where, ("min_count", "max_count", "timeout_ms", "ordering", "events", "final_event", "each_event"))
    events = []
    for i, event in enumerate(f.items(raw, where, "events")):
        at = f"{where}.events[{i}]"
        if not isinstance(event, dict):
            raise f.fail(at, f"an event assertion must be a mapping, got {_kind(event)}")
        f.choice(event, at, "match", ("exact_position", "any_position"))
        f.integer(event, at, "index")
        body = {k: v for k, v in event.items() if k not in ("description", "match", "index")}
        check_assertion_map(f, body, at)
        events.append(event)
    for key in ("final_event", "each_event"):
        if key in raw:
            if not isinstance(raw[key], dict):
                raise f.fail(_join(where, key), f"must be a mapping of assertions, got {_kind(raw[key])}")
            check_assertion_map(f, raw[key], _join(where, key))
    return ExpectStream(
        f.integer(raw, where, "min_count"),
        f.integer(raw, where, "max_count"),
        f.integer(raw, where, "timeout_ms"),
        f.choice(raw, where, "ordering", ORDERINGS) or None,
        tuple(events),
        raw.get("final_event"),
        raw.get("each_event"),
    )


def _repeat(f: _Fields, raw: Any, where: str) -> Repeat:
    f.map(raw, where, ("until", "max_attempts", "delay_ms", "backoff"))
    text = f.text(raw, where, "until", required=True)
    return Repeat(
        parse_until(text, f, _join(where, "until")),
        f.integer(raw, where, "max_attempts", 10) or 10,
        f.integer(raw, where, "delay_ms", 1000) or 0,
        f.choice(raw, where, "backoff", BACKOFFS, "none"),
    )


def parse_until(text: str, f: _Fields, where: str) -> Until:
    """`path == value`, `path != value` or `path in [a, b, ...]` (§9.1); values are YAML scalars."""
    found = _UNTIL.match(text)
    if found is None:
        raise f.fail(where, f"{text!r} is not an until expression", "path == value, path != value, path in [a, b]")
    path, op, value = found["path"], found["op"], found["value"]
    _check_path(f, path, where)
    if op == "in":
        if not (value.startswith("[") and value.endswith("]")):
            raise f.fail(where, f"`in` takes a list: {value!r}", "path in [TASK_STATE_COMPLETED, TASK_STATE_FAILED]")
        values = tuple(_scalar(v) for v in value[1:-1].split(",") if v.strip())
    else:
        values = (_scalar(value),)
    return Until(path, op, values, text)


def _scalar(text: str) -> Any:
    """A literal of an until expression: quoted text, a number, true/false/null, else the bare word as text."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    lowered = {"true": True, "false": False, "null": None}
    if text in lowered:
        return lowered[text]
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _named(f: _Fields, raw: Any, where: str, named: bool) -> NamedAssertion:
    allowed = (
        ("id", "description", "source", "path", "match", "any", "all", "none")
        if named
        else (
            "source",
            "any",
            "all",
            "none",
        )
    )
    f.map(raw, where, allowed)
    source = f.text(raw, where, "source", required=True)
    path = f.text(raw, where, "path")
    if path:
        _check_path(f, path, _join(where, "path"))
    if "match" in raw:
        check_assertion(f, raw["match"], _join(where, "match"))
    coll = {}
    for key in ("any", "all", "none"):
        if key in raw:
            at = _join(where, key)
            f.map(raw[key], at, ("path", "match"))
            cpath = f.text(raw[key], at, "path", required=True)
            _check_path(f, cpath, _join(at, "path"))
            match = raw[key].get("match")
            if not isinstance(match, dict):
                raise f.fail(_join(at, "match"), f"is required and must be a mapping, got {_kind(match)}")
            check_assertion_map(f, match, _join(at, "match"))
            coll[key] = CollectionMatch(cpath, match)
    if "match" not in raw and not coll:
        raise f.fail(where, "asserts nothing", "give match, any, all or none (§5.5)")
    return NamedAssertion(
        source,
        f.text(raw, where, "id"),
        path,
        raw.get("match"),
        "match" in raw,
        coll.get("any"),
        coll.get("all"),
        coll.get("none"),
    )


def _check_path(f: _Fields, path: str, where: str) -> None:
    if not _PATH.match(path.strip()):
        raise f.fail(where, f"{path!r} is not a dot-path", "task.artifacts[0].parts[*].text (§5.2)")


# ------------------------------------------------------------------------------------------------ assertions


def is_operator_map(value: Any) -> bool:
    """A mapping is an assertion-object when every key is an operator (§5.1); otherwise it mirrors the response."""
    return isinstance(value, dict) and bool(value) and all(isinstance(k, str) and k in OPERATORS for k in value)


def check_assertion(f: _Fields, value: Any, where: str) -> None:
    """Validate an assertion (§5.1): a bare value, an operator map, a nested field map or a positional list."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            check_assertion(f, item, f"{where}[{i}]")
        return
    if not isinstance(value, dict):
        return
    if not is_operator_map(value):
        check_assertion_map(f, value, where)
        return
    for op, arg in value.items():
        _check_operator(f, op, arg, _join(where, op))


def check_assertion_map(f: _Fields, value: Mapping[str, Any], where: str) -> None:
    if is_operator_map(value):
        for op, arg in value.items():
            _check_operator(f, op, arg, _join(where, op))
        return
    for key, item in value.items():
        if not isinstance(key, str):
            raise f.fail(_join(where, str(key)), "a field name must be text")
        if "[" in key or (key.count(".") and not key.startswith("@")):
            raise f.fail(
                _join(where, key), "a dot-path is not a key in an expect block", "nest the fields as YAML maps (§5.2)"
            )
        check_assertion(f, item, _join(where, key))


def _check_operator(f: _Fields, op: str, arg: Any, where: str) -> None:
    kind = OPERATORS[op]
    number = isinstance(arg, (int, float)) and not isinstance(arg, bool)
    if kind == "type" and arg not in TYPES:
        raise f.fail(where, f"{arg!r} is not a type", one_of(str(arg), TYPES))
    if kind == "true" and arg is not True:
        raise f.fail(where, f"takes true, got {arg!r}", f"write `{op}: true`, or `not: {{{op}: true}}`")
    if kind in ("text", "regex") and not isinstance(arg, str):
        raise f.fail(where, f"takes text, got {_kind(arg)}")
    if kind == "regex":
        try:
            re.compile(arg)
        except re.error as exc:
            raise f.fail(where, f"{arg!r} is not a regular expression: {exc}") from None
    if kind == "number" and not number:
        raise f.fail(where, f"takes a number, got {arg!r}")
    if kind == "int" and (not isinstance(arg, int) or isinstance(arg, bool) or arg < 0):
        raise f.fail(where, f"takes a whole number >= 0, got {arg!r}")
    if kind in ("list", "assertions") and (not isinstance(arg, list) or not arg):
        raise f.fail(where, f"takes a non-empty list, got {_kind(arg)}")
    if kind == "assertions":
        for i, item in enumerate(arg):
            check_assertion(f, item, f"{where}[{i}]")
    if kind == "assertion":
        check_assertion(f, arg, where)


def suggest_operator(key: str) -> str:
    """A hint for a key that looks like a misspelt operator."""
    return did_you_mean(key, OPERATORS)
