"""Hypothesis strategies for server behaviours, drawn as scenario-file data (what a scenario YAML holds).

A case is plain data in the scenario format, so what the fuzzer serves is exactly what the loader reads back from
the file it writes: the cards, the answers (a direct message, a scripted task, an A2A error), the task's status
messages and artifacts, how a stream is paced. Every value is legal by A2A 1.0 unless `invalid` is asked, which
adds answers a client must refuse: a raw JSON-RPC body broken in one named way, a connection reset mid-answer.

Shrinking follows the shapes here: lists shrink towards fewer items, text towards "a", choices towards the first
one, so the first option of every choice is the plainest answer.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from functools import cache
from typing import Any

from hypothesis import strategies as st

from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import Role, TaskState
from a2a_lab.protocol.versions import Version

#: How long a generated case may run, in seconds (its `timeout`): the hang oracle's limit.
CASE_TIMEOUT = 10.0
#: A chunked artifact streams one part per update: up to this many (past the 50 some clients assume).
MOST_CHUNKS = 64
#: The interfaces a generated card may list (a subset, in any order), as `supportedInterfaces` entries.
INTERFACES = (
    {"url": "{base_url}/a2a", "protocolBinding": Binding.JSONRPC.value, "protocolVersion": Version.V1_0.value},
    {"url": "{base_url}/a2a/rest", "protocolBinding": Binding.HTTP_JSON.value, "protocolVersion": Version.V1_0.value},
)
#: The A2A errors a SendMessage may legally answer (A2A 1.0 §3.3.2, §5.4).
SEND_ERRORS = (
    ErrorType.INTERNAL_ERROR,
    ErrorType.INVALID_PARAMS,
    ErrorType.UNSUPPORTED_OPERATION,
    ErrorType.CONTENT_TYPE_NOT_SUPPORTED,
)
WORKING_STATES = ("SUBMITTED", "WORKING")
#: Where a task script stops: a terminal state, or an interrupted one (the task waits for the user).
LAST_STATES = ("COMPLETED", "FAILED", "CANCELED", "REJECTED", "INPUT_REQUIRED", "AUTH_REQUIRED")

#: Any Unicode scalar value JSON and YAML carry (no surrogates), minus the braces of placeholders (`{text}`).
_CHARS = st.characters(codec="utf-8", exclude_characters="{}")
_ASCII = st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="{}")
#: Characters that break naive text handling: beyond the BMP (a UTF-16 surrogate pair: emoji, U+10000), combining
#: and zero-width ones, right-to-left text, line and paragraph separators, NUL, a byte-order mark.
UNUSUAL = "\U0001f600\U00010000\U0010fffd\u0301\u200d\u200b\u202e\u05d0\u2028\u2029\x00\ufeff\u00e9\u4e2d\n\t"
_UNUSUAL = st.sampled_from(UNUSUAL)


@cache
def text(min_size: int = 0, max_size: int = 12) -> st.SearchStrategy[str]:
    """Text of any script: printable ASCII (what it shrinks to), unusual characters among ASCII, any character."""
    unusual = st.text(st.one_of(_UNUSUAL, _ASCII), min_size=min_size, max_size=max_size)
    return st.one_of(
        st.text(_ASCII, min_size=min_size, max_size=max_size),
        unusual,
        unusual,  # twice: a fuzzer is here for the unusual
        st.text(_CHARS, min_size=min_size, max_size=max_size),
    )


@cache
def _json_leaves() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**53), max_value=2**53),
        st.floats(allow_nan=False, allow_infinity=False, width=64),
        text(max_size=12),
    )


@cache
def _json_values() -> st.SearchStrategy[Any]:
    """Any JSON value two levels deep at most: flat strategies, since hypothesis drops a draw nested too deeply."""
    leaf = _json_leaves()
    key = text(1, 8)
    return st.one_of(
        leaf,
        st.lists(leaf, max_size=3),
        st.dictionaries(key, leaf, max_size=3),
        st.dictionaries(key, st.lists(leaf, max_size=2), max_size=2),
    )


@cache
def _metadata() -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(text(1, 8), _json_leaves(), min_size=1, max_size=2)


def _optional(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """A mapping holding any subset of `fields` (shrinks to none of them)."""
    return st.fixed_dictionaries({}, optional=fields)


@cache
def part() -> st.SearchStrategy[dict[str, Any]]:
    """One 1.0 part: text, data (any JSON value), a URL, or raw bytes, with optional metadata, filename, media type."""
    file_fields = {
        "filename": text(1, 16),
        "mediaType": st.sampled_from(["text/plain", "application/pdf", "image/png"]),
    }
    kinds = st.one_of(
        st.builds(lambda t: {"text": t}, text(1)),
        st.builds(lambda d: {"data": d}, _json_values()),
        st.builds(
            lambda path, extra: {"url": f"https://files.example.com/{path}", **extra},
            st.text("abcdefghij0123456789", min_size=1, max_size=10),
            _optional(file_fields),
        ),
        st.builds(
            lambda raw, extra: {"raw": base64.b64encode(raw).decode("ascii"), **extra},
            st.binary(min_size=1, max_size=32),
            _optional(file_fields),
        ),
    )
    return st.builds(lambda p, extra: {**p, **extra}, kinds, _optional({"metadata": _metadata()}))


@cache
def parts(max_size: int = 3) -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(part(), min_size=1, max_size=max_size)


@cache
def status_message() -> st.SearchStrategy[Any]:
    """A step's status message: none, text, or parts (several, data only, ...)."""
    return st.one_of(st.none(), text(1), st.builds(lambda p: {"parts": p}, parts()))


@cache
def artifact(index: int) -> st.SearchStrategy[dict[str, Any]]:
    """An artifact: optional name and description of any script, a few parts, or many parts streamed as chunks."""
    few = st.builds(lambda p: {"parts": p}, parts())
    # Many chunks: how many matters, not what they say (shrinks to the fewest that still fail).
    count = st.one_of(st.integers(2, 8), st.integers(40, MOST_CHUNKS))
    many = count.map(lambda n: {"parts": [{"text": f"chunk {i + 1}"} for i in range(n)], "chunked": True})
    return st.builds(
        lambda body, extra: {"artifactId": f"artifact-{index + 1}", **extra, **body},
        st.one_of(few, many),
        _optional({"name": text(1), "description": text(1), "metadata": _metadata()}),
    )


@st.composite
def artifacts(draw: st.DrawFn, max_size: int = 2) -> list[dict[str, Any]]:
    count = draw(st.integers(min_value=0, max_value=max_size))
    return [draw(artifact(i)) for i in range(count)]


def _step(state: str, message: Any) -> Any:
    return state if message is None else {"state": state, "message": message}


@st.composite
def task_script(draw: st.DrawFn) -> dict[str, Any]:
    """Steps through SUBMITTED/WORKING to a terminal or interrupted state, each with an optional status message, and
    the artifacts of the last step."""
    before = draw(st.lists(st.sampled_from(WORKING_STATES), max_size=2))
    last = draw(st.sampled_from(LAST_STATES))
    steps = [_step(state, draw(status_message())) for state in [*before, last]]
    script: dict[str, Any] = {"steps": steps, "artifacts": draw(artifacts())}
    return script


@cache
def _stream_options() -> st.SearchStrategy[dict[str, Any]]:
    """Legal pacing of a stream: a pause between events, SSE comments, keep-alive pings."""
    return _optional(
        {
            "interval_ms": st.integers(min_value=1, max_value=30),
            "comments": st.lists(st.text(_ASCII, min_size=1, max_size=12), min_size=1, max_size=2),
            "ping_ms": st.integers(min_value=5, max_value=50),
        }
    )


@cache
def _reply_extras() -> st.SearchStrategy[dict[str, Any]]:
    """What any reply may add legally: latency, fields no A2A version defines (§5.7: clients ignore them)."""
    vendor = st.dictionaries(st.sampled_from(["futureField", "x-vendor-trace"]), _json_values(), min_size=1)
    return _optional({"delay_ms": st.integers(min_value=1, max_value=200), "unknown_fields": vendor})


@st.composite
def answer(draw: st.DrawFn) -> dict[str, Any]:
    """The scenario-data pieces of one answer: `task`, `behaviour` (the rules for SendMessage and its streaming
    twin), as a scenario file writes them."""
    kind = draw(st.sampled_from(["task", "message", "task", "error"]))  # tasks have the most to vary
    extras = draw(_reply_extras())
    stream = draw(_stream_options())
    out: dict[str, Any] = {}
    if kind == "task":
        out["task"] = draw(task_script())
        send: dict[str, Any] = dict(extras)
    elif kind == "message":
        send = {"message": {"parts": draw(parts())}, **extras}
    else:
        error = draw(st.sampled_from(SEND_ERRORS))
        send = {"error": {"code": error.kind.name.removesuffix("Error"), "message": draw(text(1))}, **extras}
    streaming = {**send, "stream": stream} if stream else send
    behaviour = {
        op: [{"reply": reply}]
        for op, reply in ((Operation.SEND_MESSAGE.value, send), (Operation.SEND_STREAMING_MESSAGE.value, streaming))
    }
    rules = {op: rules for op, rules in behaviour.items() if rules[0]["reply"]}
    if rules:
        out["behaviour"] = rules
    return out


@st.composite
def card(draw: st.DrawFn, interfaces: tuple[dict[str, str], ...] = INTERFACES) -> dict[str, Any]:
    chosen = draw(st.lists(st.sampled_from(interfaces), min_size=1, max_size=len(interfaces), unique_by=str))
    skills = draw(st.lists(st.builds(_skill, st.integers(0, 9), text(1, 16)), max_size=2, unique_by=lambda s: s["id"]))
    return {
        "object": {
            "name": draw(text(1, 16)),
            "description": draw(text(1, 16)),
            "version": "1.0.0",
            "supportedInterfaces": chosen,
            "capabilities": {"streaming": draw(st.booleans()), "pushNotifications": False},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": skills,
        }
    }


def _skill(n: int, name: str) -> dict[str, Any]:
    return {"id": f"skill-{n}", "name": name, "description": name, "tags": ["fuzz"]}


# --- malformed answers (`--invalid`): one named defect each, on a JSON-RPC interface --------------------------------


def _task_body(state: str, artifact_parts: list[Any] | None, message_parts: list[Any] | None) -> dict[str, Any]:
    status: dict[str, Any] = {"state": state}
    if message_parts is not None:
        status["message"] = {"messageId": "m-fuzz", "role": Role.AGENT.value, "parts": message_parts}
    task: dict[str, Any] = {"id": "task-fuzz", "contextId": "ctx-fuzz", "status": status}
    if artifact_parts is not None:
        task["artifacts"] = [{"artifactId": "a-fuzz", "parts": artifact_parts}]
    return {"task": task}


#: Each defect: a name (kept in the case's description) and the JSON-RPC `result` it answers (None: no JSON at all).
DEFECTS: dict[str, Callable[[], Any]] = {
    "status message with empty parts": lambda: _task_body(TaskState.COMPLETED.value, None, []),
    "artifact with empty parts": lambda: _task_body(TaskState.COMPLETED.value, [], None),
    "unknown task state": lambda: _task_body("TASK_STATE_SIDEWAYS", None, None),
    "task without status": lambda: {"task": {"id": "task-fuzz", "contextId": "ctx-fuzz"}},
    "result is a string": lambda: "done",
    "message without parts": lambda: {"message": {"messageId": "m-fuzz", "role": Role.AGENT.value}},
}


@st.composite
def malformed(draw: st.DrawFn) -> dict[str, Any]:
    """A scenario-data piece answering SendMessage with one defect: a raw JSON-RPC body (`echo_id`), or a reset."""
    name = draw(st.sampled_from([*DEFECTS, "connection reset", "not JSON"]))
    if name == "connection reset":
        reply: dict[str, Any] = {"fault": {"kind": "reset", "after_bytes": draw(st.integers(0, 64))}}
    elif name == "not JSON":
        reply = {"raw": {"status": 200, "body": draw(text(1, 40)), "content_type": "application/json"}}
    else:
        body = {"jsonrpc": "2.0", "id": None, "result": DEFECTS[name]()}
        reply = {"raw": {"status": 200, "body": json.dumps(body, ensure_ascii=False), "echo_id": True}}
    return {
        "defect": name,
        "behaviour": {Operation.SEND_MESSAGE.value: [{"when": {"binding": Binding.JSONRPC.value}, "reply": reply}]},
    }


@st.composite
def case(draw: st.DrawFn, base: dict[str, Any] | None = None, invalid: bool = False) -> dict[str, Any]:
    """One scenario's data: the base's card and client ask (or generated ones: whether to stream), a message, and
    one answer (with `invalid`, possibly a malformed one on a JSON-RPC-only card that offers no streaming)."""
    data: dict[str, Any] = {k: v for k, v in (base or {}).items() if k not in ("task", "behaviour", "expect", "checks")}
    data["title"] = "a2a-lab fuzz case"
    data["description"] = "A server behaviour generated by a2a-lab fuzz" + (
        f" on the card of {base['title']!r}." if base else "."
    )
    data["spec"] = "A2A 1.0 §3.1.1, §4.1 (a legal answer to SendMessage, generated)"
    data["timeout"] = min(float(data.get("timeout", CASE_TIMEOUT)), CASE_TIMEOUT)
    broken = invalid and draw(st.booleans())
    if broken:
        piece = draw(malformed())
        data["card"] = base["card"] if base else draw(card(INTERFACES[:1]))
        if not base:
            data["card"]["object"]["capabilities"]["streaming"] = False
        data["description"] = f"A malformed answer generated by a2a-lab fuzz --invalid: {piece.pop('defect')}."
        data["spec"] = (
            "A2A 1.0 §4.1 (a Task, Message and Part have required fields): a malformed answer, reported as an error"
        )
    else:
        piece = draw(answer())
        if not base:
            data["card"] = draw(card())
    data.update(piece)
    client = dict(data.get("client") or {})
    # The message reaches the client in its environment (A2A_LAB_MESSAGE), which cannot hold NUL.
    client["message"] = draw(st.one_of(st.just("hello"), text(1, 16).map(lambda t: t.replace("\x00", "") or "hello")))
    if not base:
        client["action"] = {"stream": draw(st.booleans())}
    data["client"] = client
    data["expect"] = {"survives": True}
    return data
