"""Loading scenario files: YAML in, a typed `Scenario` out, or a `ScenarioError` naming the file, the field and a fix.

Everything a file says is validated and converted here, once: error specs become `A2AError`s, named choices become
the model's enums, shorthands are expanded. The server only ever sees the typed model (`scenario`).

`FIELDS` and `CHOICES` are the format as data: every option each mapping accepts and every named value. They drive
the validation, and docs/reference/scenario-format.md documents exactly them (a test keeps the two equal).
"""

from __future__ import annotations

import base64
import binascii
import json
import sys
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from a2a_lab.protocol import bindings, cards, errors, grpcwire, signing, states, versions
from a2a_lab.protocol.bindings import EVENT_STREAM, Binding
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.exceptions import LabError
from a2a_lab.protocol.grpcwire import Code
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.revisions import DEFAULT as DEFAULT_REVISION
from a2a_lab.protocol.revisions import SpecRevision
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version

from . import edits, matrix, userfile, yamlfile
from .edits import Edit, EditOp
from .placeholders import ALT_BASE_URL, BASE_URL, GRPC_ADDRESS, HTTP_BASE_URL
from .scenario import (
    ACTIONS,
    AT_ALL,
    AT_END,
    CREDENTIAL_KEYS,
    DEFAULT_MESSAGE,
    DEFAULT_TASK,
    DEFAULT_TIMEOUT,
    STREAM_ERROR_MESSAGE,
    ArtifactSpec,
    Auth,
    AuthScope,
    CardPath,
    CardPathMode,
    CardSigning,
    CardSpec,
    ClientAsk,
    Conclusion,
    Endpoint,
    Envelope,
    EnvelopeId,
    EventEdit,
    Expect,
    ExtraEvent,
    Fault,
    FaultKind,
    FirstEvent,
    GrpcReply,
    HistoryLength,
    Limits,
    PushDelivery,
    RawEvent,
    Reply,
    Returns,
    Rule,
    Scenario,
    ServerCertificate,
    Step,
    StreamFraming,
    StreamScript,
    Tamper,
    TaskScript,
    TenantRoutes,
    Tls,
    UnknownFields,
    When,
)
from .style import LineEnd, MediaKey, Style
from .suggest import did_you_mean, nearest, one_of
from .wording import ErrorWording

#: Numbers beyond this are no use as seconds (and a YAML integer beyond it has no float value at all).
_LARGEST = sys.float_info.max

MIB = 1024 * 1024
#: The largest card `card.pad_to` makes: twice the catalogue's huge card (8 MB), 256 times what a careful client reads
#: (64 KiB), within the default card cache (limits.card_cache_bytes). A card is rendered at start-up and per origin.
MAX_PAD_TO = 16 * MIB
#: The most a byte count of an answer may be (fault.after_bytes, fault.chunk_bytes, gzip_min_bytes): beyond any answer
#: a scenario serves (its card at most MAX_PAD_TO, its other answers from a file of at most 1 MiB).
MAX_ANSWER_BYTES = 64 * MIB
#: The most each count and byte budget of `limits` may be: each 16 times its default or more, and no store above
#: 1 GiB, so that one scenario file cannot tell a server to keep more than the machine has. json_depth stays within
#: what Python's JSON reader follows (about 900 levels).
LIMITS_MOST: dict[str, int] = {
    "body_bytes": 64 * MIB,
    "json_depth": 512,
    "journal_entries": 1_000_000,
    "journal_bytes": 1024 * MIB,
    "streams": 1024,
    "push_deliveries_per_task": 100_000,
    "tasks": 1_000_000,
    "task_bytes": 1024 * MIB,
    "push_configs_per_task": 10_000,
    "push_config_bytes": 64 * MIB,
    "parts_per_message": 100_000,
    "card_cache_bytes": 1024 * MIB,
}


class ScenarioError(LabError, ValueError):
    """A scenario file that cannot be used: where, what, and how to fix it."""

    def __init__(self, source: str, field_path: str, problem: str, hint: str = "", where: str = "") -> None:
        self.source, self.field_path, self.problem, self.hint = source, field_path, problem, hint
        #: `line L, column C` of the value in the file, where it is known.
        self.where = where
        text = f"{source}{f', {where}' if where else ''}: {field_path or '(top level)'}: {problem}"
        super().__init__(text + (f"\n  hint: {hint}" if hint else ""))


#: Every option of the format, by the mapping that holds it (the section names of docs/reference/scenario-format.md).
FIELDS: dict[str, tuple[str, ...]] = {
    "scenario": (
        "title",
        "description",
        "spec",
        "observed",
        "recorded",
        "spec_revision",
        "seed",
        "timeout",
        "client",
        "card",
        "extended_card",
        "endpoints",
        "task",
        "behaviour",
        "leniency",
        "auth",
        "push",
        "limits",
        "checks",
        "expect",
        "tls",
        "matrix",
        "gzip_min_bytes",
        "error_messages",
        "style",
        "not_found",
        "tenant_routes",
    ),
    "matrix": ("version", "binding", "exclude", "let", "overlay"),
    "client": ("message", "action"),
    "client.action": tuple(ACTIONS),
    "card": (
        "object",
        "raw",
        "content_type",
        "cache_control",
        "etag",
        "well_known",
        "legacy",
        "pad_to",
        "substitute_raw",
        "sign",
        "versions",
        "last_modified",
        "edit",
    ),
    "card path": ("status", "body", "content_type", "headers"),
    "card.sign": ("key", "kid", "tamper"),
    "endpoints[]": ("path", "binding", "versions"),
    "task": ("steps", "artifacts", "returns", "advance", "history", "history_length"),
    "task.steps[]": ("state", "message", "artifacts"),
    "task.advance": ("get_task", "after_ms", "follow_ms"),
    "artifact": ("artifactId", "name", "description", "parts", "text", "metadata", "chunked", "append", "lastChunk"),
    "part": ("text", "raw", "url", "data", "filename", "mediaType", "metadata"),
    "rule": ("when", "reply"),
    "when": (
        "version",
        "binding",
        "method",
        "message_id_prefix",
        "text_contains",
        "header",
        "call",
        "calls",
        "has_task_id",
        "lacks",
    ),
    "when.calls": ("from", "to"),
    "reply": (
        "message",
        "task",
        "error",
        "raw",
        "delay_ms",
        "fault",
        "envelope",
        "stream",
        "headers",
        "http_status",
        "unknown_fields",
        "grpc",
        "edit",
    ),
    "reply.edit[]": ("at", "set", "delete", "rename", "wrap", "unwrap"),
    "reply.message": ("parts",),
    "reply.grpc": ("status", "details", "empty"),
    "reply.error": ("code", "message", "http_status"),
    "reply.raw": ("status", "body", "body_base64", "content_type", "echo_id", "byte_exact", "fill", "events"),
    "reply.raw.events[]": ("text", "json", "event", "delay_ms"),
    "reply.fault": ("kind", "after_bytes", "chunk_bytes", "interval_ms"),
    "reply.envelope": ("id", "both", "neither"),
    "reply.stream": (
        "interval_ms",
        "omit_terminal",
        "first_event",
        "duplicate_events",
        "comments",
        "ping_ms",
        "error_after",
        "error",
        "close_at_interrupted",
        "final_snapshot",
        "drop_after",
        "framing",
        "bare_events",
        "events",
        "unterminated",
        "hold_open",
    ),
    "reply.stream.error": ("code", "message", "event", "details"),
    "reply.stream.events[]": ("at", "delay_ms", "insert", "replace", "drop", "edit"),
    "reply.stream.event": ("json", "text", "event", "bare"),
    "leniency": (
        "missing_kind",
        "unknown_fields",
        "any_content_type",
        "ignore_version",
        "minor_versions",
        "route_version",
        "notifications",
    ),
    "style": (
        "offset_timestamps",
        "sort_keys",
        "json_errors",
        "python_json_events",
        "member_order",
        "null_error_data",
        "interfaces",
        "explicit_artifact_flags",
        "omit_final_false",
        "media_types",
        "sse_line_end",
        "sse_cache_control",
        "error_metadata",
        "headers",
        "body_etag",
    ),
    "auth": ("bearer", "scope", "credentials", "token_uses"),
    "auth.credentials": CREDENTIAL_KEYS,
    "push": ("allow", "probe_bad_credentials", "redeliver", "reorder", "foreign_task", "edit"),
    "limits": (
        "body_bytes",
        "body_seconds",
        "json_depth",
        "journal_entries",
        "journal_bytes",
        "streams",
        "stream_idle_seconds",
        "stream_ping_seconds",
        "push_deliveries_per_task",
        "tasks",
        "task_bytes",
        "push_configs_per_task",
        "push_config_bytes",
        "parts_per_message",
        "card_cache_bytes",
    ),
    "expect": ("result", "state", "text_contains", "text", "survives"),
    "tls": ("certificate", "client_certificate"),
    "style.media_types": tuple(k.value for k in MediaKey),
    "error_messages[]": (
        "code",
        "field",
        "operation",
        "binding",
        "version",
        "requested",
        "answer",
        "message",
        "reason",
        "http_status",
        "sse",
    ),
}

#: The options whose value is one of a set of names, with the names.
CHOICES: dict[str, type[StrEnum]] = {
    "scenario.spec_revision": SpecRevision,
    "card.well_known": CardPathMode,
    "card.legacy": CardPathMode,
    "card.sign.tamper": Tamper,
    "task.returns": Returns,
    "reply.fault.kind": FaultKind,
    "reply.envelope.id": EnvelopeId,
    "reply.stream.first_event": FirstEvent,
    "reply.stream.framing": StreamFraming,
    "auth.scope": AuthScope,
    "expect.result": Conclusion,
    "tls.certificate": ServerCertificate,
    "leniency.unknown_fields": UnknownFields,
    "task.history_length": HistoryLength,
    "style.sse_line_end": LineEnd,
    "scenario.tenant_routes": TenantRoutes,
}


class _Reader:
    """Walks YAML data with a field path, raising ScenarioError with hints. Records the options and named values it
    met (`used`), so a test can tell which parts of the format a file exercises."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.used: set[tuple[str, str]] = set()

    def fail(self, path: str, problem: str, hint: str = "") -> ScenarioError:
        return ScenarioError(self.source, path, problem, hint)

    def mapping(self, value: Any, path: str, section: str | None = None) -> dict[str, Any]:
        """A mapping; with a section, only that section's options are allowed."""
        if not isinstance(value, dict):
            raise self.fail(path, f"expected a mapping, got {type(value).__name__}")
        if section is not None:
            allowed = FIELDS[section]
            for key in value:
                if key not in allowed:
                    raise self.fail(
                        f"{path}.{key}" if path else str(key),
                        "unknown field",
                        did_you_mean(str(key), sorted(allowed), f"allowed here: {', '.join(sorted(allowed))}"),
                    )
                self.used.add((section, key))
        return value

    def choice(self, value: Any, path: str, option: str, hint: str = "", what: str = "value") -> Any:
        """One of the names CHOICES lists for `option`, as its enum member."""
        kind = CHOICES[option]
        try:
            member = kind(value)
        except ValueError:
            raise self.fail(
                path, f"unknown {what} {value!r}", hint or one_of(str(value), [m.value for m in kind])
            ) from None
        self.used.add((option, member.value))
        return member

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"expected text, got {type(value).__name__}")
        return value

    def integer(self, value: Any, path: str, minimum: int = 0, most: int | None = None, why: str = "") -> int:
        """A whole number >= minimum; with `most`, a size option no greater than that (`why`: the hint)."""
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(path, f"expected a whole number >= {minimum}, got {value!r}")
        if most is not None and value > most:
            raise self.fail(path, f"{value} is more than {most}, the most a2a-lab allows here", why)
        return value

    def number(self, value: Any, path: str) -> float:
        """A positive finite number (YAML's .inf and .nan, and integers beyond a float's range, are refused)."""
        if not isinstance(value, bool) and isinstance(value, (int, float)) and 0 < value < _LARGEST:
            return float(value)
        raise self.fail(path, f"expected a positive number, got {value!r}")

    def boolean(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, f"expected true or false, got {value!r}")
        return value

    def strings(self, value: Any, path: str, what: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise self.fail(path, f"expected a list of {what}")
        return tuple(value)

    def state(self, value: Any, path: str) -> TaskState:
        state = states.parse(value)
        if state is None or state is TaskState.UNSPECIFIED:
            raise self.fail(
                path,
                f"unknown task state {value!r}",
                one_of(str(value), [s.short for s in TaskState if s is not TaskState.UNSPECIFIED]),
            )
        return state

    def version(self, value: Any, path: str) -> Version:
        version = versions.to_known(str(value))
        if version is None:
            raise self.fail(path, f"unknown protocol version {value!r}", 'write "1.0" or "0.3" (quoted)')
        return version

    def binding(self, value: Any, path: str) -> Binding:
        text = self.string(value, path)
        binding = bindings.parse(text) or bindings.SHORT_NAMES.get(text.lower())
        if binding is None:
            raise self.fail(path, f"unknown binding {text!r}", one_of(text, [b.value for b in Binding]))
        return binding

    def error(self, value: Any, path: str, section: str) -> tuple[errors.A2AError, dict[str, Any]]:
        """An error answer: a name (`TaskNotFound`), a code (-32001), or `{code, message, ...}` (`section` says which
        other fields). The code and message are kept exactly as written; an unknown numeric code answers as an
        InternalError with that code. Returns the error and the mapping (for the section's other fields)."""
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            value = {"code": value}
        spec = self.mapping(value, path, section)
        code = spec.get("code")
        message = self.string(spec["message"], f"{path}.message") if "message" in spec else None
        if isinstance(code, str):
            etype = errors.by_name(code)
            if etype is None:
                raise self.fail(
                    f"{path}.code",
                    f"unknown error {code!r}",
                    did_you_mean(code, errors.names(), "one of " + ", ".join(errors.names())),
                )
            return errors.A2AError(etype, message), spec
        if isinstance(code, int) and not isinstance(code, bool):
            etype = errors.by_code(code)
            override = None if etype else code
            return errors.A2AError(etype or errors.ErrorType.INTERNAL_ERROR, message, code_override=override), spec
        raise self.fail(f"{path}.code", "required: an error name (TaskNotFound) or a JSON-RPC code (-32601)")


def _parts(r: _Reader, value: Any, path: str) -> tuple[dict[str, Any], ...]:
    """Parts in canonical form from either `text: ...` shorthand or a list of 1.0 parts."""
    if isinstance(value, str):
        return ({"text": value},)
    if not isinstance(value, list) or not value:
        raise r.fail(
            path,
            "expected text or a non-empty list of parts",
            "e.g. [{text: hi}, {data: {ok: true}}, {raw: aGk=, mediaType: text/plain}, {url: https://x/y.pdf}]",
        )
    out = []
    for i, part in enumerate(value):
        p = r.mapping(part, f"{path}[{i}]", "part")
        kinds = [k for k in ("text", "raw", "url", "data") if k in p]
        if len(kinds) != 1:
            raise r.fail(f"{path}[{i}]", "a part needs exactly one of text, raw, url, data")
        out.append(dict(p))
    return tuple(out)


def _artifacts(r: _Reader, value: Any, path: str) -> tuple[ArtifactSpec, ...]:
    if not isinstance(value, list):
        raise r.fail(path, "expected a list of artifacts", "e.g. [{name: result, parts: [{text: done}]}]")
    out = []
    for i, item in enumerate(value):
        a = r.mapping(item, f"{path}[{i}]", "artifact")
        if ("parts" in a) == ("text" in a):
            raise r.fail(f"{path}[{i}]", "an artifact needs `parts` or `text` (one of them)")
        art: dict[str, Any] = {"artifactId": a.get("artifactId", f"artifact-{i + 1}")}
        for key in ("name", "description", "metadata"):
            if key in a:
                art[key] = a[key]
        art["parts"] = list(_parts(r, a.get("parts", a.get("text")), f"{path}[{i}].parts"))
        append, last = (
            None if a.get(k) is None else r.boolean(a[k], f"{path}[{i}].{k}") for k in ("append", "lastChunk")
        )
        out.append(ArtifactSpec(art, r.boolean(a.get("chunked", False), f"{path}[{i}].chunked"), append, last))
    return tuple(out)


def _status_message(r: _Reader, value: Any, path: str) -> tuple[str | None, tuple[dict[str, Any], ...], bool]:
    """A step's status message: text (one text part), or `{parts: [...]}` / a list of parts (data only, several);
    `{parts: []}` is a message with an empty parts list (a server that sends one, adk-python#3769). The third
    value says the message is that empty one."""
    if value is None or isinstance(value, str):
        return (r.string(value, path) if value is not None else None), (), False
    parts = r.mapping(value, path, "reply.message").get("parts") if isinstance(value, dict) else value
    if isinstance(value, dict) and parts == []:
        return None, (), True
    return None, _parts(r, parts, path), False


def _steps(r: _Reader, value: Any, path: str) -> tuple[Step, ...]:
    if not isinstance(value, list) or not value:
        raise r.fail(path, "expected a non-empty list of states", "e.g. [SUBMITTED, WORKING, COMPLETED]")
    steps: list[Step] = []
    for i, item in enumerate(value):
        sp = f"{path}[{i}]"
        if isinstance(item, str):
            steps.append(Step(r.state(item, sp)))
            continue
        s = r.mapping(item, sp, "task.steps[]")
        text, parts, empty = _status_message(r, s.get("message"), f"{sp}.message")
        steps.append(
            Step(
                r.state(s.get("state"), f"{sp}.state"),
                text,
                _artifacts(r, s["artifacts"], f"{sp}.artifacts") if "artifacts" in s else (),
                parts,
                empty,
            )
        )
    for i, step in enumerate(steps[:-1]):
        if step.state.terminal:
            raise r.fail(
                f"{path}[{i}]",
                f"{step.state.short} is terminal, so no step may follow it",
                "a terminal task never changes (§8)",
            )
    return tuple(steps)


def _advance(r: _Reader, value: Any, path: str, base: TaskScript) -> tuple[int, int | None, int]:
    """`never`, `get_task` or `{get_task: N, after_ms: T, follow_ms: F}`: (GetTask calls per step, 0 for never;
    ms per step; ms per GetTask while a subscriber or a webhook follows the task)."""
    if value == "never":
        return 0, None, base.follow_ms
    if value == "get_task":
        return 1, None, base.follow_ms
    if not isinstance(value, dict):
        near = nearest(str(value), ["get_task", "never"], cutoff=0.5)
        raise r.fail(
            path,
            f"unknown advance {value!r}",
            (f"did you mean {near!r}? " if near else "")
            + "one of get_task, never, or a mapping {get_task: N, after_ms: T, follow_ms: F}",
        )
    a = r.mapping(value, path, "task.advance")
    return (
        r.integer(a.get("get_task", 0), f"{path}.get_task"),
        r.integer(a["after_ms"], f"{path}.after_ms", 1) if "after_ms" in a else None,
        r.integer(a.get("follow_ms", base.follow_ms), f"{path}.follow_ms", 1),
    )


def _task_script(r: _Reader, value: Any, path: str, base: TaskScript) -> TaskScript:
    """A task script; what it leaves out comes from `base` (the scenario's task, or the default one)."""
    spec = r.mapping(value, path, "task")
    steps = _steps(r, spec["steps"], f"{path}.steps") if spec.get("steps") is not None else base.steps
    artifacts = _artifacts(r, spec["artifacts"], f"{path}.artifacts") if "artifacts" in spec else base.artifacts
    returns = (
        r.choice(
            spec["returns"],
            f"{path}.returns",
            "task.returns",
            "stop (honour blocking, §3.2.2) or first (answer with the first step)",
        )
        if "returns" in spec
        else base.returns
    )
    advance_on_get, advance_after, follow_ms = (
        _advance(r, spec["advance"], f"{path}.advance", base)
        if "advance" in spec
        else (base.advance_on_get, base.advance_after_ms, base.follow_ms)
    )
    history = r.boolean(spec.get("history", base.history), f"{path}.history")
    ignore_history_length = (
        r.choice(spec["history_length"], f"{path}.history_length", "task.history_length") is HistoryLength.IGNORE
        if "history_length" in spec
        else base.ignore_history_length
    )
    return TaskScript(
        steps,
        artifacts,
        returns,
        advance_on_get,
        advance_after,
        history,
        follow_ms=follow_ms,
        ignore_history_length=ignore_history_length,
    )


def _stream(r: _Reader, value: Any, path: str) -> StreamScript:
    s = r.mapping(value, path, "reply.stream")
    kw: dict[str, Any] = {}
    if "first_event" in s:
        kw["first_event"] = r.choice(
            s["first_event"],
            f"{path}.first_event",
            "reply.stream.first_event",
            "task (per spec) or status (a stream whose first event is not a task)",
        )
    if "framing" in s:
        kw["framing"] = r.choice(
            s["framing"],
            f"{path}.framing",
            "reply.stream.framing",
            "sse (per spec), sse-multiline (each event over several data: lines), ndjson or json-array (not SSE)",
        )
    if "comments" in s:
        kw["comments"] = r.strings(s["comments"], f"{path}.comments", "comment texts")
    if "error" in s:
        err, e = r.error(s["error"], f"{path}.error", "reply.stream.error")
        kw["error"] = (
            err
            if err.message is not None
            else errors.A2AError(err.type, STREAM_ERROR_MESSAGE, code_override=err.code_override)
        )
        kw.update(_stream_error_form(r, e, f"{path}.error"))
    if "events" in s:
        kw["events"] = _event_edits(r, s["events"], f"{path}.events")
    for key in (
        "omit_terminal",
        "duplicate_events",
        "close_at_interrupted",
        "final_snapshot",
        "bare_events",
        "unterminated",
        "hold_open",
    ):
        if key in s:
            kw[key] = r.boolean(s[key], f"{path}.{key}")
    for key, minimum in (("interval_ms", 0), ("ping_ms", 1), ("error_after", 0), ("drop_after", 1)):
        if key in s:
            kw[key] = r.integer(s[key], f"{path}.{key}", minimum)
    script = StreamScript(**kw)
    _check_stream_framing(r, script, path)
    return script


def _stream_error_form(r: _Reader, e: dict[str, Any], path: str) -> dict[str, bool]:
    """`reply.stream.error`'s `event` (an `event: error` line) and `details` (HTTP+JSON: the Status's details)."""
    return {
        "error_event": r.boolean(e.get("event", True), f"{path}.event"),
        "error_details": r.boolean(e.get("details", True), f"{path}.details"),
    }


_EDIT_ACTIONS = ("insert", "replace", "drop")
_AT_HINT = f"a whole number >= 1 (the Nth event the stream sends), {AT_END} (after the last) or {AT_ALL} (every event)"


def _event_edits(r: _Reader, value: Any, path: str) -> tuple[EventEdit, ...]:
    """`reply.stream.events`: per-event edits of a generated stream."""
    if not isinstance(value, list) or not value:
        raise r.fail(path, "expected a non-empty list of event edits", "e.g. [{at: 2, insert: {json: {}}}]")
    return tuple(_event_edit(r, item, f"{path}[{i}]") for i, item in enumerate(value))


def _event_edit(r: _Reader, value: Any, path: str) -> EventEdit:
    e = r.mapping(value, path, "reply.stream.events[]")
    if "at" not in e:
        raise r.fail(f"{path}.at", "required: which event this edit is at", _AT_HINT)
    at = e["at"]
    if isinstance(at, str):
        if at not in (AT_END, AT_ALL):
            raise r.fail(f"{path}.at", f"unknown position {at!r}", did_you_mean(at, [AT_END, AT_ALL], _AT_HINT))
    else:
        at = r.integer(at, f"{path}.at", 1)
    actions = [k for k in _EDIT_ACTIONS if k in e]
    if len(actions) > 1:
        raise r.fail(path, f"an edit does one of {', '.join(_EDIT_ACTIONS)} (found {', '.join(actions)})")
    if not actions and "delay_ms" not in e and "edit" not in e:
        raise r.fail(
            path, "an edit needs delay_ms, edit or one of insert, replace, drop", "e.g. {at: 2, delay_ms: 500}"
        )
    if "edit" in e and (at == AT_END or (actions and actions[0] != "insert")):
        raise r.fail(f"{path}.edit", "edits change the generated event at `at`, which is not sent here", "drop `edit`")
    if at == AT_END and actions and actions[0] != "insert":
        raise r.fail(f"{path}.{actions[0]}", "there is no event at `end` to replace or drop", "use insert")
    drop = r.boolean(e["drop"], f"{path}.drop") if "drop" in e else False
    if "drop" in e and not drop:
        raise r.fail(f"{path}.drop", "`drop: false` edits nothing", "leave it out, or write drop: true")
    return EventEdit(
        at,
        r.integer(e.get("delay_ms", 0), f"{path}.delay_ms"),
        _extra_event(r, e["insert"], f"{path}.insert") if "insert" in e else None,
        _extra_event(r, e["replace"], f"{path}.replace") if "replace" in e else None,
        drop,
        _edits(r, e["edit"], f"{path}.edit") if "edit" in e else (),
    )


_EDIT_OPS = tuple(op.value for op in EditOp)


def _edits(r: _Reader, value: Any, path: str) -> tuple[Edit, ...]:
    """`edit`: structured edits of a generated answer, event, notification or card (contract/edits.py)."""
    if not isinstance(value, list) or not value:
        raise r.fail(path, "expected a non-empty list of edits", "e.g. [{at: result.task, wrap: task}]")
    return tuple(_edit(r, item, f"{path}[{i}]") for i, item in enumerate(value))


def _edit(r: _Reader, value: Any, path: str) -> Edit:
    e = r.mapping(value, path, "reply.edit[]")
    at = r.string(e.get("at"), f"{path}.at") if "at" in e else None
    steps = edits.parse_path(at) if at is not None else None
    if steps is None:
        raise r.fail(
            f"{path}.at",
            "required: the path of the member to change" if at is None else f"{at!r} is not a path",
            'dotted keys and [index]es from the top of the answer as sent, e.g. result.task.status.state; "" the whole',
        )
    ops = [k for k in _EDIT_OPS if k in e]
    if len(ops) != 1:
        raise r.fail(path, f"an edit does exactly one of {', '.join(_EDIT_OPS)} (found {', '.join(ops) or 'none'})")
    op = EditOp(ops[0])
    for name in ("delete", "unwrap"):
        if op.value == name and e[name] is not True:
            raise r.fail(f"{path}.{name}", f"`{name}: {e[name]!r}` edits nothing", f"write {name}: true")
    if not steps and op in (EditOp.DELETE, EditOp.RENAME):
        raise r.fail(f"{path}.at", f"the whole answer cannot be {op.value}d", "name a member")
    key = r.string(e[op.value], f"{path}.{op.value}") if op in (EditOp.RENAME, EditOp.WRAP) else ""
    if op in (EditOp.RENAME, EditOp.WRAP) and not key:
        raise r.fail(f"{path}.{op.value}", "a key is needed", "e.g. task")
    return Edit(steps, op, e.get("set"), key)


def _extra_event(r: _Reader, value: Any, path: str) -> ExtraEvent:
    x = r.mapping(value, path, "reply.stream.event")
    if ("json" in x) == ("text" in x):
        raise r.fail(
            path, "an event needs exactly one of json (sent as written) or text (the exact data)", "e.g. {json: {}}"
        )
    name = r.string(x["event"], f"{path}.event") if "event" in x else None
    if name is not None and (not name or "\n" in name or "\r" in name):
        raise r.fail(f"{path}.event", "an SSE event name is one non-empty line", "e.g. error")
    return ExtraEvent(
        x.get("json"),
        r.string(x["text"], f"{path}.text") if "text" in x else None,
        name,
        r.boolean(x.get("bare", False), f"{path}.bare"),
    )


def _check_stream_framing(r: _Reader, script: StreamScript, path: str) -> None:
    """What NDJSON and a JSON array (one body, sent when the stream ends; no event names) cannot carry."""
    if script.framing not in (StreamFraming.NDJSON, StreamFraming.JSON_ARRAY):
        return
    if script.hold_open:
        raise r.fail(f"{path}.hold_open", f"a {script.framing} stream is sent as one body when it ends", "use sse")
    for i, edit in enumerate(script.events):
        extra = edit.insert or edit.replace
        if extra is not None and extra.event is not None:
            raise r.fail(f"{path}.events[{i}]", f"{script.framing} has no event names", "leave `event` out, or use sse")


def _fault(r: _Reader, value: Any, path: str) -> Fault:
    f = {"kind": value} if isinstance(value, str) else r.mapping(value, path, "reply.fault")
    return Fault(
        r.choice(f.get("kind"), f"{path}.kind", "reply.fault.kind", "stall, reset, truncate or drip", "fault"),
        r.integer(f.get("after_bytes", 0), f"{path}.after_bytes", 0, MAX_ANSWER_BYTES, _ANSWER_BYTES_WHY),
        r.integer(f.get("chunk_bytes", 8), f"{path}.chunk_bytes", 1, MAX_ANSWER_BYTES, _ANSWER_BYTES_WHY),
        r.integer(f.get("interval_ms", 200), f"{path}.interval_ms"),
    )


def _raw_body(r: _Reader, raw: dict[str, Any], path: str) -> bytes:
    """`body` (text, sent as UTF-8) or `body_base64` (bytes that are not text: a recorded gRPC answer message)."""
    if "body" in raw and "body_base64" in raw:
        raise r.fail(path, "give `body` (text) or `body_base64` (bytes), not both")
    if "body_base64" not in raw:
        return r.string(raw.get("body", ""), f"{path}.body").encode()
    text = r.string(raw["body_base64"], f"{path}.body_base64")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise r.fail(f"{path}.body_base64", "not base64", "e.g. CgNhYmM=") from None


def _raw(r: _Reader, value: Any, path: str) -> dict[str, Any]:
    raw = r.mapping(value, path, "reply.raw")
    events = _raw_events(r, raw, path)
    return {
        "raw_status": r.integer(raw.get("status", 200), f"{path}.status", 100),
        "raw_body": _raw_body(r, raw, path),
        "raw_events": events,
        "raw_fill": r.boolean(raw.get("fill", False), f"{path}.fill"),
        "raw_content_type": r.string(
            raw.get("content_type", EVENT_STREAM if events else "application/json"), f"{path}.content_type"
        ),
        "raw_echo_id": r.boolean(raw.get("echo_id", False), f"{path}.echo_id"),
        "raw_byte_exact": _byte_exact(r, raw, path),
    }


def _raw_events(r: _Reader, raw: dict[str, Any], path: str) -> tuple[RawEvent, ...]:
    """`reply.raw.events`: an event stream written event by event, instead of one `body`."""
    if "events" not in raw:
        return ()
    if "body" in raw or "body_base64" in raw:
        raise r.fail(path, "give `events` (an event stream) or a body, not both")
    items = raw["events"]
    if not isinstance(items, list) or not items:
        raise r.fail(f"{path}.events", "expected a non-empty list of events", "e.g. [{text: hello, delay_ms: 100}]")
    out = []
    for i, item in enumerate(items):
        where = f"{path}.events[{i}]"
        e = r.mapping(item, where, "reply.raw.events[]")
        if ("json" in e) == ("text" in e):
            raise r.fail(where, "an event needs exactly one of text (the exact data) or json", "e.g. {json: {}}")
        text = r.string(e["text"], f"{where}.text") if "text" in e else json.dumps(e["json"], separators=(",", ":"))
        name = r.string(e["event"], f"{where}.event") if "event" in e else None
        if name is not None and (not name or "\n" in name or "\r" in name):
            raise r.fail(f"{where}.event", "an SSE event name is one non-empty line", "e.g. error")
        if name is not None and str(raw.get("content_type", "")).split(";")[0].strip() == "application/x-ndjson":
            raise r.fail(f"{where}.event", "NDJSON events have no names", "leave `event` out")
        out.append(RawEvent(text, name, r.integer(e.get("delay_ms", 0), f"{where}.delay_ms")))
    return tuple(out)


def _byte_exact(r: _Reader, raw: dict[str, Any], path: str) -> str | None:
    """`reply.raw.byte_exact`: why these bytes themselves are the quirk (a sentence, not a flag)."""
    if "byte_exact" not in raw:
        return None
    why = r.string(raw["byte_exact"], f"{path}.byte_exact").strip()
    if not why:
        raise r.fail(
            f"{path}.byte_exact",
            "say why the bytes themselves are the quirk",
            'e.g. "the gateway\'s own HTML page, byte for byte"',
        )
    return why


_REPLY_KINDS = ("message", "task", "error", "raw")


def _reply(r: _Reader, value: Any, path: str, base_task: TaskScript) -> Reply:
    spec = r.mapping(value, path, "reply")
    kinds = [k for k in _REPLY_KINDS if k in spec]
    if len(kinds) > 1:
        raise r.fail(path, f"a reply has at most one of {', '.join(_REPLY_KINDS)} (found {', '.join(kinds)})")
    kw: dict[str, Any] = {}
    if "message" in spec:
        m = spec["message"]
        kw["message"] = _parts(
            r,
            r.mapping(m, f"{path}.message", "reply.message").get("parts") if isinstance(m, dict) else m,
            f"{path}.message",
        )
    if "task" in spec:
        kw["task"] = _task_script(r, spec["task"] or {}, f"{path}.task", base_task)
    if "error" in spec:
        kw["error"], e = r.error(spec["error"], f"{path}.error", "reply.error")
        if "http_status" in e:
            kw["error_http_status"] = r.integer(e["http_status"], f"{path}.error.http_status", 100)
    if "raw" in spec:
        kw.update(_raw(r, spec["raw"], f"{path}.raw"))
    if "headers" in spec:
        kw["headers"] = _headers(r, spec["headers"], f"{path}.headers")
    if "http_status" in spec:
        kw["http_status"] = r.integer(spec["http_status"], f"{path}.http_status", 100)
    if "delay_ms" in spec:
        kw["delay_ms"] = r.integer(spec["delay_ms"], f"{path}.delay_ms")
    if "fault" in spec:
        kw["fault"] = _fault(r, spec["fault"], f"{path}.fault")
    if "envelope" in spec:
        e = r.mapping(spec["envelope"], f"{path}.envelope", "reply.envelope")
        kw["envelope"] = Envelope(
            r.choice(e["id"], f"{path}.envelope.id", "reply.envelope.id", "echo, wrong, null or omit")
            if "id" in e
            else EnvelopeId.ECHO,
            r.boolean(e.get("both", False), f"{path}.envelope.both"),
            r.boolean(e.get("neither", False), f"{path}.envelope.neither"),
        )
    if "stream" in spec:
        kw["stream"] = _stream(r, spec["stream"], f"{path}.stream")
    if "unknown_fields" in spec:
        u = r.mapping(spec["unknown_fields"], f"{path}.unknown_fields")
        if not u:
            raise r.fail(
                f"{path}.unknown_fields",
                "expected at least one field",
                'e.g. {futureField: "ignore me", x-vendor-trace: 42}',
            )
        kw["unknown_fields"] = tuple((str(k), v) for k, v in u.items())
    if "edit" in spec:
        kw["edits"] = _edits(r, spec["edit"], f"{path}.edit")
    if "grpc" in spec:
        g = r.mapping(spec["grpc"], f"{path}.grpc", "reply.grpc")
        kw["grpc"] = GrpcReply(
            _grpc_code(r, g["status"], f"{path}.grpc.status") if "status" in g else None,
            r.boolean(g.get("details", True), f"{path}.grpc.details"),
            r.boolean(g.get("empty", False), f"{path}.grpc.empty"),
        )
    return Reply(**kw)


def _grpc_code(r: _Reader, value: Any, path: str) -> Code:
    """A canonical gRPC status name (not in CHOICES: seventeen names a file picks one of, documented as a list)."""
    text = r.string(value, path)
    try:
        return Code(text.upper())
    except ValueError:
        near = nearest(text, [c.value for c in Code])
        raise r.fail(
            path, f"unknown gRPC status {text!r}", f"did you mean {near}?" if near else "e.g. UNIMPLEMENTED"
        ) from None


def _when(r: _Reader, value: Any, path: str) -> When:
    w = r.mapping(value, path, "when")
    kw: dict[str, Any] = {}
    if "version" in w:
        kw["version"] = r.version(w["version"], f"{path}.version")
    if "binding" in w:
        kw["binding"] = r.binding(w["binding"], f"{path}.binding")
    for key in ("method", "message_id_prefix", "text_contains"):
        if key in w:
            kw[key] = r.string(w[key], f"{path}.{key}")
    if "header" in w:
        h = r.mapping(w["header"], f"{path}.header")
        kw["header"] = tuple((str(k).lower(), None if v is None else str(v)) for k, v in h.items())
    if "call" in w:
        n = r.integer(w["call"], f"{path}.call", 1)
        kw["calls"] = (n, n)
    if "calls" in w:
        c = r.mapping(w["calls"], f"{path}.calls", "when.calls")
        kw["calls"] = (
            r.integer(c.get("from", 1), f"{path}.calls.from", 1),
            r.integer(c["to"], f"{path}.calls.to", 1) if "to" in c else None,
        )
    if "has_task_id" in w:
        kw["has_task_id"] = r.boolean(w["has_task_id"], f"{path}.has_task_id")
    if "lacks" in w:
        lacks = w["lacks"]
        kw["lacks"] = (
            (r.string(lacks, f"{path}.lacks"),)
            if not isinstance(lacks, list)
            else r.strings(lacks, f"{path}.lacks", "dotted member paths")
        )
    return When(**kw)


def _behaviour(r: _Reader, value: Any, task: TaskScript) -> dict[Operation, tuple[Rule, ...]]:
    rules: dict[Operation, tuple[Rule, ...]] = {}
    for key, items in r.mapping(value, "behaviour").items():
        try:
            op = Operation(key)
        except ValueError:
            raise r.fail(
                f"behaviour.{key}",
                "unknown operation",
                did_you_mean(str(key), [o.value for o in Operation], "one of " + ", ".join(o.value for o in Operation)),
            ) from None
        if isinstance(items, dict):
            items = [items]
        if not isinstance(items, list) or not items:
            raise r.fail(
                f"behaviour.{key}",
                "expected a list of rules",
                "e.g. [{when: {call: 1}, reply: {error: InternalError}}, {reply: {message: hi}}]",
            )
        parsed = []
        for i, item in enumerate(items):
            path = f"behaviour.{key}[{i}]"
            it = r.mapping(item, path, "rule")
            if "reply" not in it:
                raise r.fail(f"{path}.reply", "required: what to answer")
            parsed.append(
                Rule(_when(r, it.get("when", {}), f"{path}.when"), _reply(r, it["reply"], f"{path}.reply", task))
            )
        rules[op] = tuple(parsed)
    return rules


def _headers(r: _Reader, value: Any, path: str) -> tuple[tuple[str, str], ...]:
    """Extra response headers: names and values as text."""
    return tuple((str(k), str(v)) for k, v in r.mapping(value, path).items())


def _card_path(r: _Reader, value: Any, path: str, option: str, default: CardPathMode) -> CardPath:
    """`serve`, `missing` (or 404), or a mapping: what one well-known path answers."""
    if isinstance(value, dict):
        p = r.mapping(value, path, "card path")
        r.used.add((option, CardPathMode.RAW.value))
        return CardPath(
            CardPathMode.RAW,
            r.integer(p.get("status", 200), f"{path}.status", 100),
            r.string(p.get("body", ""), f"{path}.body").encode(),
            r.string(p.get("content_type", "application/json"), f"{path}.content_type"),
            _headers(r, p["headers"], f"{path}.headers") if "headers" in p else (),
        )
    hint = "serve, missing (404), or {status, body, content_type}"
    mode = (
        default
        if value is None
        else r.choice(CardPathMode.MISSING.value if value == 404 else value, path, option, hint)
    )
    if mode is CardPathMode.RAW:
        raise r.fail(path, "raw takes a mapping", "e.g. {status: 200, body: '<html>', content_type: text/html}")
    return CardPath(mode, 404 if mode is CardPathMode.MISSING else 200)


def _signing(r: _Reader, value: Any) -> CardSigning:
    s = r.mapping(value, "card.sign", "card.sign")
    key = r.mapping(s.get("key"), "card.sign.key")
    try:
        signing.import_key(key)
    except Exception as exc:
        raise r.fail(
            "card.sign.key", f"not a usable private JWK: {exc}", "an EC P-256 private JWK with kty, crv, x, y, d"
        ) from None
    tamper = r.choice(s["tamper"], "card.sign.tamper", "card.sign.tamper") if "tamper" in s else Tamper.NONE
    return CardSigning(key, r.string(s.get("kid", key.get("kid", "a2a-lab-test")), "card.sign.kid"), tamper)


def _card(r: _Reader, value: Any) -> CardSpec:
    c = r.mapping(value, "card", "card")
    if ("object" in c) == ("raw" in c):
        raise r.fail(
            "card", "a card needs exactly one of `object` (a mapping, {base_url} filled in) or `raw` (exact text)"
        )
    return CardSpec(
        object=_typed_card(r, c["object"], "card.object") if "object" in c else None,
        raw=r.string(c["raw"], "card.raw").encode() if "raw" in c else None,
        content_type=r.string(c.get("content_type", "application/json"), "card.content_type"),
        cache_control=r.string(c["cache_control"], "card.cache_control")
        if "cache_control" in c
        else "public, max-age=300",
        etag=r.boolean(c.get("etag", True), "card.etag"),
        well_known=_card_path(r, c.get("well_known"), "card.well_known", "card.well_known", CardPathMode.SERVE),
        legacy=_card_path(r, c.get("legacy"), "card.legacy", "card.legacy", CardPathMode.MISSING),
        pad_to=(
            r.integer(
                c["pad_to"],
                "card.pad_to",
                1,
                MAX_PAD_TO,
                f"an oversize card needs only to pass a client's limit (a careful client reads 64 KiB; "
                f"discovery/huge-card serves 8 MB): give at most {MAX_PAD_TO} ({MAX_PAD_TO // MIB} MiB)",
            )
            if "pad_to" in c
            else None
        ),
        substitute_raw=r.boolean(c.get("substitute_raw", True), "card.substitute_raw"),
        sign=_signing(r, c["sign"]) if "sign" in c else None,
        by_version=_card_versions(r, c["versions"], "raw" in c) if "versions" in c else (),
        last_modified=r.boolean(c.get("last_modified", True), "card.last_modified"),
        edits=_card_edits(r, c),
    )


def _card_edits(r: _Reader, c: dict[str, Any]) -> tuple[Edit, ...]:
    if "edit" not in c:
        return ()
    if "object" not in c:
        raise r.fail("card.edit", "edits change the card `object`; a `raw` card is served as written", "drop `edit`")
    return _edits(r, c["edit"], "card.edit")


def _typed_card(r: _Reader, value: Any, path: str) -> dict[str, Any]:
    """A card object whose members have the spec's types (protocol/cards.py CARD_TYPES): an unquoted `protocolVersion:
    1.0` is YAML's number, which a strict client's card model refuses; a card that means it gives the card as `raw`."""
    card = r.mapping(value, path)
    for wrong in cards.mistyped(card):
        example = f'{wrong.path.rsplit(".", 1)[-1]}: "{wrong.value}"' if wrong.expected == "a string" else ""
        raise r.fail(
            f"{path}.{wrong.path}",
            f"{wrong.actual} ({wrong.value!r}) where A2A types it as {wrong.expected} (A2A 1.0 §4.4; 0.3 §5.5)",
            (f"quote it ({example}): YAML reads an unquoted 1.0 as a number; " if example else "")
            + f"to serve the wrong type on purpose, set it with card.edit ({{at: {wrong.path}, set: ...}})",
        )
    return card


def _card_versions(r: _Reader, value: Any, raw: bool) -> tuple[tuple[Version, bytes], ...]:
    """`card.versions`: per A2A-Version asked for, the exact card text served instead (a server that negotiates its
    card on the header)."""
    if not raw:
        raise r.fail("card.versions", "goes with `card.raw`", "give the card as `raw` text, and each variant too")
    out: list[tuple[Version, bytes]] = []
    for key, text in r.mapping(value, "card.versions").items():
        out.append((r.version(key, f"card.versions.{key}"), r.string(text, f"card.versions.{key}").encode()))
    return tuple(out)


def _error_type(r: _Reader, value: Any, path: str) -> ErrorType:
    """An error a2a-lab knows, by name (`TaskNotFound`) or JSON-RPC code (-32001)."""
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise r.fail(path, "expected an error name or a JSON-RPC code", "e.g. TaskNotFound or -32601")
    err, _ = r.error(value, path, "reply.stream.error")
    if err.code_override is not None:
        raise r.fail(path, f"{value!r} is not an A2A or JSON-RPC error a2a-lab knows", "e.g. TaskNotFound or -32601")
    return err.type


def _error_wording(r: _Reader, item: Any, path: str) -> ErrorWording:
    """One `error_messages[]` entry: the error (name or code), where it applies, and how it is answered instead."""
    e = r.mapping(item, path, "error_messages[]")
    if "code" not in e:
        raise r.fail(f"{path}.code", "required: the error a2a-lab would answer (a name or a JSON-RPC code)")
    op = None
    if "operation" in e:
        try:
            op = Operation(r.string(e["operation"], f"{path}.operation"))
        except ValueError:
            raise r.fail(
                f"{path}.operation", "unknown operation", one_of(str(e["operation"]), [o.value for o in Operation])
            ) from None
    code, _ = r.error(e["code"], path, "reply.stream.error")
    return ErrorWording(
        code=code.code,
        field=r.string(e["field"], f"{path}.field") if "field" in e else None,
        operation=op,
        binding=r.binding(e["binding"], f"{path}.binding") if "binding" in e else None,
        version=r.version(e["version"], f"{path}.version") if "version" in e else None,
        requested=r.string(e["requested"], f"{path}.requested") if "requested" in e else None,
        answer=_error_type(r, e["answer"], f"{path}.answer") if "answer" in e else None,
        message=r.string(e["message"], f"{path}.message") if "message" in e else None,
        reason=r.string(e["reason"], f"{path}.reason") if "reason" in e else None,
        http_status=r.integer(e["http_status"], f"{path}.http_status", 100) if "http_status" in e else None,
        sse=r.boolean(e.get("sse", False), f"{path}.sse"),
    )


def _card_document(card: CardSpec) -> Any:
    """The card as data: its object, or its raw text decoded (None where that is not JSON)."""
    if card.object is None and card.raw is not None:
        try:
            return json.loads(card.raw.decode("utf-8", "replace"))
        except ValueError:
            return None
    return card.object


def _tenants(r: _Reader, value: Any, card: CardSpec) -> frozenset[str] | None:
    """`tenant_routes`: the tenants an HTTP+JSON route may name (None: any)."""
    mode = r.choice(value, "tenant_routes", "scenario.tenant_routes")
    if mode is TenantRoutes.ANY:
        return None
    if mode is TenantRoutes.NONE:
        return frozenset()
    doc = _card_document(card)
    return frozenset(i.tenant for reader in Version for i in cards.interfaces(doc, reader) if i.tenant)


def _derive_endpoints(card: CardSpec) -> tuple[Endpoint, ...]:
    """By default a scenario answers where its card says: every JSONRPC/HTTP+JSON interface under {base_url}, as
    either generation of client reads the card (a dual card's 0.3 `url` may name an endpoint of its own)."""
    doc = _card_document(card)
    grouped: dict[tuple[str, Binding], list[Version]] = {}
    for iface in [i for reader in Version for i in cards.interfaces(doc, reader)]:
        binding = iface.core_binding
        if binding is Binding.GRPC and GRPC_ADDRESS in iface.url:
            # The scenario's own gRPC server, whatever else the url says (a card mistake such as a scheme or a path
            # is the card's business); gRPC is served in A2A 1.0.
            grouped.setdefault((grpcwire.ENDPOINT_PATH, binding), [Version.V1_0])
            continue
        prefix = next((p for p in (BASE_URL, ALT_BASE_URL, HTTP_BASE_URL) if iface.url.startswith(p)), None)
        if prefix is None or binding not in (Binding.JSONRPC, Binding.HTTP_JSON):
            continue
        version = iface.known_version
        if version is None:
            continue
        path = iface.url[len(prefix) :] or "/"
        listed = grouped.setdefault((path, binding), [])
        if version not in listed:
            listed.append(version)
    return tuple(Endpoint(p, b, tuple(v)) for (p, b), v in grouped.items())


def _endpoints(r: _Reader, value: Any) -> tuple[Endpoint, ...]:
    if not isinstance(value, list):
        raise r.fail("endpoints", "expected a list", 'e.g. [{path: /a2a, binding: JSONRPC, versions: ["1.0", "0.3"]}]')
    out = []
    for i, item in enumerate(value):
        e = r.mapping(item, f"endpoints[{i}]", "endpoints[]")
        path = r.string(e.get("path"), f"endpoints[{i}].path")
        if not path.startswith("/"):
            raise r.fail(f"endpoints[{i}].path", "must start with /")
        vs = e.get("versions")
        if not isinstance(vs, list) or not vs:
            raise r.fail(f"endpoints[{i}].versions", "expected a non-empty list", 'e.g. ["1.0", "0.3"]')
        out.append(
            Endpoint(
                path.rstrip("/") or "/",
                r.binding(e.get("binding"), f"endpoints[{i}].binding"),
                tuple(r.version(v, f"endpoints[{i}].versions") for v in vs),
            )
        )
    return tuple(out)


def _client(r: _Reader, value: Any, card: CardSpec) -> ClientAsk:
    client = r.mapping(value, "client", "client")
    action = dict(r.mapping(client.get("action", {}), "client.action", "client.action"))
    for key, kind in ACTIONS.items():
        if key in action and not isinstance(action[key], kind):
            named = {str: "text", bool: "true or false", dict: "a mapping"}[kind]
            raise r.fail(f"client.action.{key}", f"expected {named}, got {action[key]!r}")
    if "new_message" in action and "follow_up" in action:
        raise r.fail(
            "client.action.new_message",
            "asks for an unrelated new message and a follow-up to the same task at once",
            "keep one: follow_up continues the task, new_message starts another",
        )
    if "credentials" in action:
        action["credentials"] = _credentials(r, action["credentials"], "client.action.credentials", None)
    if action.get("verify_signature"):
        if card.sign is None:
            raise r.fail(
                "client.action.verify_signature", "the card is not signed", "add card.sign, or drop verify_signature"
            )
        action["jwks"] = signing.public_jwks([{**card.sign.key, "kid": card.sign.kid}])
    return ClientAsk(r.string(client.get("message", DEFAULT_MESSAGE), "client.message"), action)


def _expect(r: _Reader, value: Any) -> Expect:
    e = r.mapping(value, "expect", "expect")
    result = e.get("result")
    listed = [] if result is None else result if isinstance(result, list) else [result]
    if isinstance(result, list) and not result:
        raise r.fail(
            "expect.result",
            "expected a result or a non-empty list of acceptable results",
            "e.g. error, or [none, task]",
        )
    results = [
        r.choice(item, f"expect.result[{i}]" if isinstance(result, list) else "expect.result", "expect.result")
        for i, item in enumerate(listed)
    ]
    return Expect(
        tuple(dict.fromkeys(results)),
        _expected_states(r, e["state"]) if "state" in e else (),
        r.string(e["text_contains"], "expect.text_contains") if "text_contains" in e else None,
        r.string(e["text"], "expect.text") if "text" in e else None,
        r.boolean(e.get("survives", False), "expect.survives"),
    )


def _expected_states(r: _Reader, value: Any) -> tuple[TaskState, ...]:
    """`expect.state`: one state, or a non-empty list of the states a race allows (each a task state, no repeats)."""
    if not isinstance(value, list):
        return (r.state(value, "expect.state"),)
    if not value:
        raise r.fail(
            "expect.state",
            "expected a state or a non-empty list of the states a race allows",
            "e.g. COMPLETED, or [CANCELED, COMPLETED]",
        )
    found = [r.state(item, f"expect.state[{i}]") for i, item in enumerate(value)]
    for i, state in enumerate(found):
        if state in found[:i]:
            raise r.fail(f"expect.state[{i}]", f"{state.short} is listed twice", "list each acceptable state once")
    return tuple(found)


def _credentials(r: _Reader, value: Any, path: str, section: str | None) -> dict[str, str]:
    """A credentials mapping: keys from CREDENTIAL_KEYS, values text."""
    given = r.mapping(value, path, section)
    for key in given:
        if key not in CREDENTIAL_KEYS:
            raise r.fail(f"{path}.{key}", "unknown credential", one_of(str(key), CREDENTIAL_KEYS))
    return {key: r.string(v, f"{path}.{key}") for key, v in given.items()}


def _auth(r: _Reader, value: Any) -> Auth:
    a = r.mapping(value, "auth", "auth")
    scope = r.choice(a["scope"], "auth.scope", "auth.scope", "all or extended_card") if "scope" in a else AuthScope.ALL
    bearer = r.string(a["bearer"], "auth.bearer") if "bearer" in a else None
    credentials = (
        _credentials(r, a["credentials"], "auth.credentials", "auth.credentials") if "credentials" in a else {}
    )
    if bearer is None and not credentials:
        raise r.fail("auth", "accepts no credential", "give bearer, credentials, or both")
    uses = r.integer(a["token_uses"], "auth.token_uses", 1) if "token_uses" in a else None
    return Auth(bearer, scope, credentials, uses)


_ANSWER_BYTES_WHY = f"no answer a scenario serves is larger than {MAX_ANSWER_BYTES} bytes"
#: The limits given in seconds (any positive number); the others are whole numbers >= 1, at most LIMITS_MOST.
_SECONDS = ("body_seconds", "stream_idle_seconds", "stream_ping_seconds")


def _limits(r: _Reader, value: Any) -> Limits:
    given = r.mapping(value, "limits", "limits")
    kw: dict[str, Any] = {
        k: r.number(v, f"limits.{k}")
        if k in _SECONDS
        else r.integer(
            v,
            f"limits.{k}",
            1,
            LIMITS_MOST[k],
            f"a limit bounds what one scenario's server keeps: at most {LIMITS_MOST[k]} "
            f"(the default is {getattr(Limits(), k)})",
        )
        for k, v in given.items()
    }
    return Limits(**kw)


def _tls(r: _Reader, value: Any) -> Tls:
    t = r.mapping(value, "tls", "tls")
    return Tls(
        r.choice(t["certificate"], "tls.certificate", "tls.certificate", what="certificate")
        if "certificate" in t
        else ServerCertificate.VALID,
        r.boolean(t.get("client_certificate", False), "tls.client_certificate"),
    )


def parse_with(r: _Reader, data: Any, scenario_id: str) -> Scenario:
    top = r.mapping(data, "", "scenario")
    for required in ("title", "description", "card"):
        if required not in top:
            raise r.fail(
                required,
                "required field is missing",
                "every scenario has a title, a description a client author understands, and a card",
            )
    # `spec:` / `observed:` / `recorded:` may be absent from a file of the user's own (a quick local reproduction):
    # `uncited` says so as a warning; the built-in catalogue's test requires them.
    card = _card(r, top["card"])
    task = _task_script(r, top["task"], "task", DEFAULT_TASK) if "task" in top else DEFAULT_TASK
    rules = _behaviour(r, top.get("behaviour", {}), task)
    endpoints = _endpoints(r, top["endpoints"]) if "endpoints" in top else _derive_endpoints(card)
    client = _client(r, top.get("client", {}), card)
    leniency = r.mapping(top.get("leniency", {}), "leniency", "leniency")
    push = r.mapping(top.get("push", {}), "push", "push")
    return Scenario(
        id=scenario_id,
        title=r.string(top["title"], "title"),
        description=r.string(top["description"], "description").strip(),
        source=r.source,
        spec=r.string(top["spec"], "spec") if "spec" in top else None,
        observed=r.mapping(top["observed"], "observed") if "observed" in top else None,
        seed=r.integer(top.get("seed", 0), "seed"),
        timeout=r.number(top.get("timeout", DEFAULT_TIMEOUT), "timeout"),
        client=client,
        card=card,
        extended_card=_typed_card(r, top["extended_card"], "extended_card") if "extended_card" in top else None,
        endpoints=endpoints,
        task=task,
        rules=rules,
        lenient_kind=r.boolean(leniency.get("missing_kind", False), "leniency.missing_kind"),
        gzip_min_bytes=(
            r.integer(top["gzip_min_bytes"], "gzip_min_bytes", 1, MAX_ANSWER_BYTES, _ANSWER_BYTES_WHY)
            if "gzip_min_bytes" in top
            else None
        ),
        refuse_unknown_fields=r.choice(
            leniency.get("unknown_fields", UnknownFields.IGNORE.value),
            "leniency.unknown_fields",
            "leniency.unknown_fields",
        )
        is UnknownFields.REFUSE,
        auth=_auth(r, top["auth"]) if "auth" in top else None,
        push_allow=r.strings(push.get("allow", []), "push.allow", "host names"),
        push_probe=r.boolean(push.get("probe_bad_credentials", False), "push.probe_bad_credentials"),
        push_delivery=PushDelivery(
            redeliver=r.boolean(push.get("redeliver", False), "push.redeliver"),
            reorder=r.boolean(push.get("reorder", False), "push.reorder"),
            foreign_task=r.boolean(push.get("foreign_task", False), "push.foreign_task"),
            edits=_edits(r, push["edit"], "push.edit") if "edit" in push else (),
        ),
        limits=_limits(r, top.get("limits", {})),
        checks=r.strings(top.get("checks", []), "checks", "check ids"),
        expect=_expect(r, top.get("expect", {})),
        recorded=r.mapping(top["recorded"], "recorded") if "recorded" in top else None,
        spec_revision=r.choice(
            top["spec_revision"],
            "spec_revision",
            "scenario.spec_revision",
            'write "1.0.0", "1.0.1", "1.0.2" or "1.1" (quoted): the spec revision the server follows',
            "spec revision",
        )
        if "spec_revision" in top
        else DEFAULT_REVISION,
        tls=_tls(r, top["tls"]) if "tls" in top else None,
        error_messages=_error_messages(r, top.get("error_messages", {})),
        style=_style(r, top.get("style", {})),
        not_found=_not_found(r, top["not_found"]) if "not_found" in top else None,
        tenants=_tenants(r, top["tenant_routes"], card) if "tenant_routes" in top else None,
        lenient_content_type=r.boolean(leniency.get("any_content_type", False), "leniency.any_content_type"),
        ignore_version=r.boolean(leniency.get("ignore_version", False), "leniency.ignore_version"),
        lenient_minor=r.boolean(leniency.get("minor_versions", False), "leniency.minor_versions"),
        route_version=r.boolean(leniency.get("route_version", False), "leniency.route_version"),
        answer_notifications=r.boolean(leniency.get("notifications", False), "leniency.notifications"),
    )


def _style(r: _Reader, value: Any, path: str = "style", nested: bool = True) -> Style:
    style = r.mapping(value, path, "style")
    interfaces: dict[str, Style] = {}
    if "interfaces" in style:
        if not nested:
            raise r.fail(f"{path}.interfaces", "an interface's style has no interfaces of its own")
        for name, own in r.mapping(style["interfaces"], f"{path}.interfaces").items():
            where = f"{path}.interfaces.{name}"
            binding_name, _, version_name = str(name).partition(" ")
            binding, version = r.binding(binding_name, where), versions.to_known(version_name)
            if version is None:
                raise r.fail(where, "expected a binding and a version", "e.g. JSONRPC 0.3")
            interfaces[f"{binding.value} {version.value}"] = _style(r, own, where, nested=False)
    media = r.mapping(style.get("media_types", {}), f"{path}.media_types", "style.media_types")
    return Style(
        offset_timestamps=r.boolean(style.get("offset_timestamps", False), f"{path}.offset_timestamps"),
        sort_keys=r.boolean(style.get("sort_keys", False), f"{path}.sort_keys"),
        json_errors=r.boolean(style.get("json_errors", False), f"{path}.json_errors"),
        python_json_events=r.boolean(style.get("python_json_events", False), f"{path}.python_json_events"),
        member_order=_member_order(r, style.get("member_order", []), f"{path}.member_order"),
        null_error_data=r.boolean(style.get("null_error_data", False), f"{path}.null_error_data"),
        explicit_artifact_flags=r.boolean(
            style.get("explicit_artifact_flags", False), f"{path}.explicit_artifact_flags"
        ),
        omit_final_false=r.boolean(style.get("omit_final_false", False), f"{path}.omit_final_false"),
        interfaces=interfaces,
        media_types=tuple((MediaKey(k), r.string(v, f"{path}.media_types.{k}")) for k, v in media.items()),
        sse_line_end=r.choice(style["sse_line_end"], f"{path}.sse_line_end", "style.sse_line_end")
        if "sse_line_end" in style
        else LineEnd.CRLF,
        sse_cache_control=r.string(style["sse_cache_control"], f"{path}.sse_cache_control")
        if "sse_cache_control" in style
        else None,
        error_metadata=r.boolean(style.get("error_metadata", True), f"{path}.error_metadata"),
        headers=_headers(r, style["headers"], f"{path}.headers") if "headers" in style else (),
        body_etag=r.boolean(style.get("body_etag", False), f"{path}.body_etag"),
    )


def _not_found(r: _Reader, value: Any) -> CardPath:
    if not isinstance(value, dict):
        raise r.fail("not_found", "expected a mapping", "e.g. {status: 404, body: Not Found, content_type: text/plain}")
    return _card_path(r, value, "not_found", "not_found", CardPathMode.RAW)


def _member_order(r: _Reader, value: Any, path: str) -> tuple[tuple[str, ...], ...]:
    if not isinstance(value, list):
        raise r.fail(path, "expected a list of member lists", "e.g. [[id, contextId, status]]")
    return tuple(r.strings(order, f"{path}[{i}]", "member names") for i, order in enumerate(value))


def _error_messages(r: _Reader, value: Any) -> tuple[ErrorWording, ...]:
    """`error_messages`: a mapping, per error (name or code) the message every answer of it carries; or a list of
    entries that say where each applies and what else changes (a framework's wording)."""
    if isinstance(value, list):
        return tuple(_error_wording(r, item, f"error_messages[{i}]") for i, item in enumerate(value))
    out: list[ErrorWording] = []
    for key, text in r.mapping(value, "error_messages").items():
        err, _ = r.error(key, f"error_messages.{key}", "reply.error")
        out.append(ErrorWording(err.code, message=r.string(text, f"error_messages.{key}")))
    return tuple(out)


def parse(data: Any, scenario_id: str, source: str) -> Scenario:
    """Validate decoded YAML and build the Scenario, or raise ScenarioError (also for a family: see parse_all)."""
    if matrix.is_family(data):
        raise ScenarioError(
            source,
            "matrix",
            "this file is a scenario family: it makes one scenario per combination of its matrix",
            "run all its members with `a2a-lab run --scenario FILE`, or name one member by id from the catalogue",
        )
    return parse_with(_Reader(source), data, scenario_id)


def parse_all(data: Any, scenario_id: str, source: str) -> dict[str, Scenario]:
    """The scenarios of decoded YAML by id: the one scenario of a plain file (its id `scenario_id`), or every member
    of a family (ids `scenario_id/<member>`, see contract/matrix.py); raises ScenarioError."""
    return _parse_all(_Reader(source), data, scenario_id)


def _parse_all(r: _Reader, data: Any, scenario_id: str) -> dict[str, Scenario]:
    if not matrix.is_family(data):
        return {scenario_id: parse_with(r, data, scenario_id)}
    top = r.mapping(data, "", "scenario")
    out: dict[str, Scenario] = {}
    for member in matrix.expand(r, top):
        sid = f"{scenario_id}/{member.suffix}"
        try:
            out[sid] = replace(parse_with(r, member.data, sid), family=scenario_id)
        except ScenarioError as exc:
            raise ScenarioError(
                exc.source, exc.field_path, f"{exc.problem} (matrix member {member.suffix})", exc.hint
            ) from None
    return out


def options_used(data: Any, source: str = "<options>") -> set[tuple[str, str]]:
    """The options (section, name) and named values (option, value) a scenario's data uses (every member of a
    family); raises ScenarioError."""
    r = _Reader(source)
    _parse_all(r, data, "options")
    return r.used


def _read(path: Path) -> Any:
    """A scenario file's YAML, read as yamlfile reads YAML: a regular file, its size, nesting and aliases bounded, plain
    data only (dates stay text)."""
    try:
        return yamlfile.load(path, userfile.SCENARIO)
    except userfile.Refused as exc:
        raise ScenarioError(str(path), exc.where, exc.problem, exc.hint) from None


def load_file(path: Path, scenario_id: str | None = None) -> Scenario:
    """Load one scenario file; its id defaults to the file name without extension. A family file (`matrix:`) is
    refused: load_scenarios loads it."""
    data = _read(path)
    try:
        return parse(data, scenario_id or path.stem, str(path))
    except ScenarioError as exc:
        raise _located(exc, path) from None


def load_scenarios(path: Path, scenario_id: str | None = None) -> dict[str, Scenario]:
    """The scenarios of one file by id: a plain file's one, or a family's members (`<id>/<member>`)."""
    data = _read(path)
    try:
        return parse_all(data, scenario_id or path.stem, str(path))
    except ScenarioError as exc:
        raise _located(exc, path) from None


def _located(exc: ScenarioError, path: Path) -> ScenarioError:
    """The error with the line and column of its field in the file, where the path leads to one."""
    if exc.where:
        return exc
    where = yamlfile.locate(path, userfile.SCENARIO, exc.field_path)
    return ScenarioError(exc.source, exc.field_path, exc.problem, exc.hint, where) if where else exc
