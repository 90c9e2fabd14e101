"""Steps (§4): abstract operations, raw wire steps, client steps and assertion steps, with their expect blocks,
expect-errors, expect-streams and repeats."""

from __future__ import annotations

from typing import Any

from a2a_lab.contract.suggest import one_of
from a2a_lab.harness.acts.document.checks import (
    check_assertion,
    check_assertion_map,
    check_path,
    read_named,
)
from a2a_lab.harness.acts.document.fields import Fields, join, kind_of
from a2a_lab.harness.acts.document.grammar import (
    BACKOFFS,
    ERROR_TYPES,
    MAX_ATTEMPTS,
    MAX_WAIT_MS,
    OPERATION_ALIASES,
    OPERATIONS,
    ORDERINGS,
    RAW_METHODS,
    STEP_KINDS,
    STREAMING_OPERATIONS,
    UNTIL,
)
from a2a_lab.harness.acts.document.records import (
    Expect,
    ExpectError,
    ExpectStream,
    NamedAssertion,
    RawRequest,
    Repeat,
    Step,
    Until,
    Where,
)


def read_step(f: Fields, raw: Any, where: str) -> Step:
    if not isinstance(raw, dict):
        raise f.fail(where, f"a step must be a mapping, got {kind_of(raw)}")
    marks = [name for name, _ in STEP_KINDS if name in raw]
    if len(marks) != 1:
        problem = "names no action" if not marks else f"mixes {' and '.join(marks)}"
        raise f.fail(
            where,
            problem,
            "a step has exactly one of operation, raw, client_response, assertion (§4)",
        )
    mark = marks[0]
    f.map(raw, where, dict(STEP_KINDS)[mark])
    step_id = f.text(raw, where, "id", required=True)
    common: dict[str, Any] = {
        "id": step_id,
        "where": Where(str(f.path), where),
        "description": f.text(raw, where, "description"),
    }
    if mark == "assertion":
        return Step(
            kind="assertion",
            assertion=read_named(f, raw["assertion"], join(where, "assertion"), False),
            **common,
        )
    assertions = tuple(
        read_named(f, a, f"{where}.assertions[{i}]", True) for i, a in enumerate(f.items(raw, where, "assertions"))
    )
    if mark == "client_response":
        return _client_step(f, raw, where, common, assertions)
    return _wire_step(f, raw, where, mark, common, assertions)


def _wire_step(
    f: Fields,
    raw: dict[str, Any],
    where: str,
    mark: str,
    common: dict[str, Any],
    assertions: tuple[NamedAssertion, ...],
) -> Step:
    """An operation or raw step: its captures and expect blocks, then what is its kind's own."""
    capture = f.text_map(raw, where, "capture")
    for name, path in capture.items():
        check_path(f, path, f"{where}.capture.{name}")
    expect_error = _expect_error(f, raw["expect_error"], join(where, "expect_error")) if "expect_error" in raw else None
    expect = None
    said = raw.get("expect")
    if isinstance(said, dict) and (
        said.get("status") == "error" or (mark == "operation" and "error" in said and "body" not in said)
    ):
        expect_error = _any_error(f, raw["expect"], join(where, "expect"))  # the official files' spelling
    elif "expect" in raw:
        expect = _expect(f, raw.get("expect"), join(where, "expect"))
    if expect is not None and expect_error is not None:
        raise f.fail(where, "has both expect and expect_error", "they are mutually exclusive (§4): keep one")
    stream = _expect_stream(f, raw["expect_stream"], join(where, "expect_stream")) if "expect_stream" in raw else None
    judged: dict[str, Any] = {
        "expect": expect,
        "expect_error": expect_error,
        "expect_stream": stream,
        "capture": capture,
        "assertions": assertions,
    }
    if mark == "raw":  # expect_stream on a raw step (the official files): the raw answer's SSE events
        return Step(kind="raw", raw=_raw(f, raw["raw"], join(where, "raw")), **judged, **common)
    return _operation_step(f, raw, where, {**judged, **common})


def _operation_step(f: Fields, raw: dict[str, Any], where: str, rest: dict[str, Any]) -> Step:
    operation = f.text(raw, where, "operation", required=True)
    operation = OPERATION_ALIASES.get(operation, operation)
    if operation not in OPERATIONS:
        raise f.fail(
            join(where, "operation"), f"{operation!r} is not an abstract operation", one_of(operation, OPERATIONS)
        )
    params = raw.get("params")
    if not isinstance(params, dict):
        raise f.fail(
            join(where, "params"), f"is required and must be a mapping, got {kind_of(params)}", "write `params: {}`"
        )
    if operation == "get_agent_card" and params.get("extended") is True:
        operation = "get_extended_agent_card"
    if rest["expect_stream"] is not None and operation not in STREAMING_OPERATIONS:
        raise f.fail(join(where, "expect_stream"), f"{operation} is not a streaming operation", "use expect (§7)")
    return Step(
        kind="operation",
        operation=operation,
        params=params,
        repeat=_repeat(f, raw["repeat"], join(where, "repeat")) if "repeat" in raw else None,
        delay_ms=f.integer(raw, where, "delay_ms", 0, MAX_WAIT_MS) or 0,
        **rest,
    )


def _client_step(
    f: Fields,
    raw: dict[str, Any],
    where: str,
    common: dict[str, Any],
    assertions: tuple[NamedAssertion, ...],
) -> Step:
    response = f.map(
        raw["client_response"],
        join(where, "client_response"),
        ("operation", "wire_payload"),
    )
    at = join(where, "client_response")
    operation = f.text(response, at, "operation", required=True)
    operation = OPERATION_ALIASES.get(operation, operation)
    if operation not in OPERATIONS:
        raise f.fail(
            join(at, "operation"),
            f"{operation!r} is not an abstract operation",
            one_of(operation, OPERATIONS),
        )
    if "wire_payload" not in response:
        raise f.fail(
            join(at, "wire_payload"),
            "is required",
            "the canonical payload the client parses",
        )
    parsed = raw.get("expect_parsed")
    if not isinstance(parsed, dict):
        raise f.fail(
            join(where, "expect_parsed"),
            f"is required and must be a mapping, got {kind_of(parsed)}",
        )
    check_assertion_map(f, parsed, join(where, "expect_parsed"))
    return Step(
        kind="client",
        client_operation=operation,
        wire_payload=response["wire_payload"],
        expect_parsed=parsed,
        assertions=assertions,
        **common,
    )


def _raw(f: Fields, raw: Any, where: str) -> RawRequest:
    f.map(raw, where, ("method", "path", "headers", "body", "body_raw"))
    method = f.text(raw, where, "method", required=True)
    if method not in RAW_METHODS:
        raise f.fail(
            join(where, "method"),
            f"{method!r} is not a method raw steps use",
            one_of(method, RAW_METHODS),
        )
    if "body" in raw and "body_raw" in raw:
        raise f.fail(
            where,
            "has both body and body_raw",
            "body_raw is for malformed JSON: keep one",
        )
    return RawRequest(
        method,
        f.text(raw, where, "path", required=True),
        f.text_map(raw, where, "headers"),
        raw.get("body"),
        "body" in raw,
        f.text(raw, where, "body_raw") if "body_raw" in raw else None,
    )


def _expect(f: Fields, raw: Any, where: str) -> Expect:
    if not isinstance(raw, dict):
        raise f.fail(where, f"must be a mapping, got {kind_of(raw)}")
    if "status" in raw:
        check_assertion(f, raw["status"], join(where, "status"))
    body = raw.get("body")
    loose = {k: v for k, v in raw.items() if k not in ("status", "body")}
    if loose and body is not None:
        raise f.fail(
            join(where, next(iter(loose))),
            "is beside `body`",
            "put every field assertion under body",
        )
    if loose:  # §5.2's examples assert fields right under expect
        body = loose
    if body is not None:
        if not isinstance(body, dict):
            raise f.fail(
                join(where, "body"),
                f"must be a mapping of field assertions, got {kind_of(body)}",
            )
        check_assertion_map(f, body, join(where, "body"))
    return Expect(raw.get("status"), body)


def _any_error(f: Fields, raw: dict[str, Any], where: str) -> ExpectError:
    """`expect: {status: error, error: {...}}` (the official files): any error, `error` asserting on its object."""
    f.map(raw, where, ("status", "error"))
    if "error" in raw:
        check_assertion(f, raw["error"], join(where, "error"))
    return ExpectError(None, None, raw.get("error"), "expect.status: error")


def _expect_error(f: Fields, raw: Any, where: str) -> ExpectError:
    f.map(raw, where, ("error_type", "code", "message", "details", "data"))
    spelled = [k for k in ("error_type", "code") if k in raw]
    if len(spelled) > 1:
        raise f.fail(
            where,
            "has both error_type and code",
            "keep error_type: TaskNotFoundError (§6.2)",
        )
    if not spelled:  # the official files: any error, the message (and details) asserted
        spelled = ["any"]
    error = raw.get(spelled[0])
    if spelled[0] == "error_type" and (not isinstance(error, str) or error not in ERROR_TYPES):
        raise f.fail(
            join(where, "error_type"),
            f"{error!r} is not an A2A error type",
            one_of(str(error), ERROR_TYPES),
        )
    if error is not None:
        check_assertion(f, error, join(where, spelled[0]))
    for name in _names_in(error):
        if name not in ERROR_TYPES:
            raise f.fail(
                join(where, spelled[0]),
                f"{name!r} is not an A2A error type",
                one_of(name, ERROR_TYPES),
            )
    if "message" in raw:
        check_assertion(f, raw["message"], join(where, "message"))
    details_key = "details" if "details" in raw else "data"
    details = raw.get(details_key)
    if details is not None:
        if not isinstance(details, dict):
            raise f.fail(
                join(where, details_key),
                f"must be a mapping of assertions, got {kind_of(details)}",
            )
        check_assertion_map(f, details, join(where, details_key))
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


def _expect_stream(f: Fields, raw: Any, where: str) -> ExpectStream:
    f.map(
        raw,
        where,
        (
            "min_count",
            "max_count",
            "timeout_ms",
            "ordering",
            "events",
            "final_event",
            "each_event",
        ),
    )
    events = []
    for i, event in enumerate(f.items(raw, where, "events")):
        at = f"{where}.events[{i}]"
        if not isinstance(event, dict):
            raise f.fail(at, f"an event assertion must be a mapping, got {kind_of(event)}")
        f.choice(event, at, "match", ("exact_position", "any_position"))
        f.integer(event, at, "index")
        body = {k: v for k, v in event.items() if k not in ("description", "match", "index")}
        check_assertion_map(f, body, at)
        events.append(event)
    for key in ("final_event", "each_event"):
        if key in raw:
            if not isinstance(raw[key], dict):
                raise f.fail(
                    join(where, key),
                    f"must be a mapping of assertions, got {kind_of(raw[key])}",
                )
            check_assertion_map(f, raw[key], join(where, key))
    return ExpectStream(
        f.integer(raw, where, "min_count"),
        f.integer(raw, where, "max_count"),
        f.integer(raw, where, "timeout_ms", None, MAX_WAIT_MS),
        f.choice(raw, where, "ordering", ORDERINGS) or None,
        tuple(events),
        raw.get("final_event"),
        raw.get("each_event"),
    )


def _repeat(f: Fields, raw: Any, where: str) -> Repeat:
    f.map(raw, where, ("until", "max_attempts", "delay_ms", "backoff"))
    text = f.text(raw, where, "until", required=True)
    return Repeat(
        parse_until(text, f, join(where, "until")),
        f.integer(raw, where, "max_attempts", 10, MAX_ATTEMPTS) or 10,
        f.integer(raw, where, "delay_ms", 1000, MAX_WAIT_MS) or 0,
        f.choice(raw, where, "backoff", BACKOFFS, "none"),
    )


def parse_until(text: str, f: Fields, where: str) -> Until:
    """`path == value`, `path != value` or `path in [a, b, ...]` (§9.1); values are YAML scalars."""
    found = UNTIL.match(text)
    if found is None:
        raise f.fail(
            where,
            f"{text!r} is not an until expression",
            "path == value, path != value, path in [a, b]",
        )
    path, op, value = found["path"], found["op"], found["value"].strip()
    check_path(f, path, where)
    if op == "in":
        if not (value.startswith("[") and value.endswith("]")):
            raise f.fail(
                where,
                f"`in` takes a list: {value!r}",
                "path in [TASK_STATE_COMPLETED, TASK_STATE_FAILED]",
            )
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
