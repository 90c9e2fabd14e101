"""Running ACTS server tests against a live server, once per binding its card declares (or the one `--binding` names).

Each test starts clean (§4: its own captures), is skipped with the reason when it does not apply (a binding it does
not list, preconditions the card does not meet, a `requires_behaviors` the SUT contract does not serve, a
`runner_requirements` entry this runner does not provide, a client test without `--client`), and otherwise runs its
steps in order; the first step that fails ends the test (later steps read its captures).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from a2a_lab.protocol import cards, grpcwire
from a2a_lab.protocol.exceptions import LabError
from a2a_lab.protocol.states import TaskState

from . import assertions as A
from .document import EVENT_KINDS, OPERATORS, ExpectError, ExpectStream, NamedAssertion, Step, Test
from .exchange import BINDINGS, Exchanger, GrpcExchanger, Reply, Target, acts_error

#: The standard SUT behaviour prefixes (§11.2): what a SUT is taken to serve unless `--behaviors` says otherwise.
STANDARD_BEHAVIORS = (
    "tck-complete-task",
    "tck-input-required",
    "tck-reject-task",
    "tck-message-response",
    "tck-artifact-text",
    "tck-artifact-file",
    "tck-artifact-file-url",
    "tck-artifact-data",
    "tck-long-running",
    "tck-multi-turn",
    "tck-cancel",
    "tck-stream-basic",
    "tck-stream-chunked",
    "tck-task-failure",
)
#: The runner requirements (§3.2) this runner provides: none yet (no webhook, no second stream, no credentials of
#: two users); a test that declares one is skipped with that reason.
PROVIDED_REQUIREMENTS: frozenset[str] = frozenset()
_TERMINAL = frozenset(state.value for state in TaskState if state.terminal)


@dataclass
class Failure:
    """§13.3 failure-detail."""

    message: str
    step_id: str = ""
    expected: str = ""
    actual: str = ""
    assertion_path: str = ""


@dataclass
class StepResult:
    id: str
    result: str
    duration_ms: int
    failure: Failure | None = None
    quote: str = ""


@dataclass
class TestResult:
    test: Test
    result: str
    duration_ms: int = 0
    skip_reason: str = ""
    failure: Failure | None = None
    steps: list[StepResult] = field(default_factory=list)
    quote: str = ""
    #: A client test whose client reported no parse: `skip` in ACTS's report, UNIMPLEMENTED in a2a-lab's.
    unimplemented: bool = False


@dataclass
class BindingRun:
    """One binding's run: `transport` is ACTS's name for it (jsonrpc, rest, grpc); `label` names the run in a2a-lab's
    reports and report files (the transport, or `client` for the client tests)."""

    transport: str
    url: str
    results: list[TestResult]
    duration_ms: int
    label: str = ""

    @property
    def name(self) -> str:
        return self.label or self.transport


@dataclass(frozen=True)
class RunOptions:
    server: str
    transports: tuple[str, ...] = ()
    behaviors: tuple[str, ...] = STANDARD_BEHAVIORS
    token: str | None = None
    timeout: float = 10.0
    client: bool = False
    sleep: Callable[[float], None] = time.sleep


class StepFailed(LabError):
    """A step's failure (internal to the runner)."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


# ------------------------------------------------------------------------------------------------ applicability


def skip_reason(test: Test, transport: str, card: Mapping[str, Any], options: RunOptions) -> str:
    """Why `test` does not run on this binding against this card ("" when it runs)."""
    if test.is_client and not options.client:
        return "a client test (client_response): run it with --client CMD"
    for listed, what in ((test.transport, "test"), (test.preconditions.transport, "preconditions")):
        if listed and transport not in listed:
            return f"the {what} lists transport {', '.join(listed)}, this run is {transport}"
    caps: dict[str, Any] = card["capabilities"] if isinstance(card.get("capabilities"), dict) else {}
    for name, wanted in test.preconditions.capabilities.items():
        have = caps.get(name, False if isinstance(wanted, bool) else A.MISSING)
        if A.check(wanted, have) is not None:
            return f"precondition: the card's capabilities.{name} is {A.shown(have)}, the test needs {A.shown(wanted)}"
    skills = {s.get("id") for s in card.get("skills") or [] if isinstance(s, dict)}
    for skill in test.preconditions.skills:
        if skill not in skills:
            return f"precondition: the card declares no skill {skill!r}"
    declared = {e.get("uri") for e in caps.get("extensions") or [] if isinstance(e, dict)}
    for uri in test.preconditions.extensions:
        if uri not in declared:
            return f"precondition: the card declares no extension {uri}"
    missing = [b for b in test.requires_behaviors if b not in options.behaviors]
    if missing:
        return f"requires SUT behaviour {', '.join(missing)}, which the SUT contract given does not serve (§11)"
    needs = [r for r in test.runner_requirements if r not in PROVIDED_REQUIREMENTS]
    if needs:
        return f"needs runner requirement {', '.join(needs)}, which a2a-lab's ACTS runner does not provide"
    return ""


def interfaces(card: Mapping[str, Any]) -> dict[str, str]:
    """ACTS transport name -> URL of the card's first A2A 1.0 interface of that binding."""
    out: dict[str, str] = {}
    for iface in cards.interfaces(card):
        if iface.known_version is None or iface.known_version.value != "1.0":
            continue
        for name, binding in BINDINGS.items():
            if iface.core_binding is binding and name not in out:
                out[name] = iface.url
    return out


# ------------------------------------------------------------------------------------------------ running


class TestRun:
    """One test on one binding."""

    def __init__(self, test: Test, exchanger: Exchanger | GrpcExchanger, options: RunOptions) -> None:
        self.test, self.exchanger, self.options = test, exchanger, options
        runner = {"SUT_BASE_URL": options.server.rstrip("/"), "baseUrl": options.server.rstrip("/")}
        self.scope = A.Scope(test.variables, runner)

    def run(self) -> TestResult:
        started = time.monotonic()
        result = TestResult(self.test, "pass")
        for step in self.test.steps:
            begun = time.monotonic()
            quote = ""
            try:
                quote = self.step(step)
                result.steps.append(StepResult(step.id, "pass", _ms(begun), quote=quote))
            except StepFailed as failed:
                return self._end(result, started, StepResult(step.id, "fail", _ms(begun), failed.failure))
            except A.Unresolved as exc:
                failure = Failure(f"step {step.id}: {exc}", step.id)
                return self._end(result, started, StepResult(step.id, "fail", _ms(begun), failure))
            except Exception as exc:  # a runner fault is an `error`, never a fail
                failure = Failure(f"step {step.id}: runner error {type(exc).__name__}: {exc}", step.id)
                return self._end(result, started, StepResult(step.id, "error", _ms(begun), failure))
        try:
            for named in self.test.assertions:
                self._named(named, "(test assertions)")
        except (StepFailed, A.Unresolved) as exc:
            failure = exc.failure if isinstance(exc, StepFailed) else Failure(str(exc))
            result.result, result.failure = "fail", failure
        result.duration_ms = _ms(started)
        return result

    def _end(self, result: TestResult, started: float, step: StepResult) -> TestResult:
        result.steps.append(step)
        result.result, result.failure, result.quote = step.result, step.failure, step.quote or self._last_quote
        result.duration_ms = _ms(started)
        return result

    _last_quote = ""

    def step(self, step: Step) -> str:
        if step.kind == "assertion" and step.assertion is not None:
            self._named(step.assertion, step.id)
            return ""
        reply = self._raw(step) if step.kind == "raw" else self._operation(step)
        self._last_quote = reply.quoted()
        self.scope.responses[step.id] = reply.root if step.kind == "operation" else reply.body
        self._judge(step, reply)
        self._capture(step, reply)
        for named in step.assertions:
            self._named(named, step.id)
        return self._last_quote

    def _raw(self, step: Step) -> Reply:
        raw = step.raw
        assert raw is not None
        headers = {k: str(v) for k, v in self.scope.resolve(dict(raw.headers)).items()}
        body: bytes | None = None
        if raw.body_raw is not None:
            body = str(self.scope.resolve(raw.body_raw)).encode()
        elif raw.has_body:
            import json

            body = json.dumps(self.scope.resolve(raw.body)).encode()
        return self.exchanger.raw(raw.method, str(self.scope.resolve(raw.path)), headers, body)

    def _operation(self, step: Step) -> Reply:
        if step.delay_ms:
            self.options.sleep(step.delay_ms / 1000)
        params = self.scope.resolve(dict(step.params))
        timeout = step.expect_stream.timeout_ms / 1000 if step.expect_stream and step.expect_stream.timeout_ms else None
        reply = self.exchanger.operation(step.operation, params, timeout)
        repeat = step.repeat
        if repeat is None:
            return reply
        delay = repeat.delay_ms / 1000
        for attempt in range(1, repeat.max_attempts + 1):
            if reply.error is None and A.until_holds(repeat.until, reply.root):
                return reply
            if attempt == repeat.max_attempts:
                break
            self.options.sleep(delay)
            if repeat.backoff == "linear":
                delay += repeat.delay_ms / 1000
            elif repeat.backoff == "exponential":
                delay *= 2
            reply = self.exchanger.operation(step.operation, params, timeout)
        self._last_quote = reply.quoted()
        raise StepFailed(
            Failure(
                f"step {step.id}: `{repeat.until.text}` did not hold after {repeat.max_attempts} attempt(s) (§9)",
                step.id,
                repeat.until.text,
                A.shown(A.get(reply.root, repeat.until.path)),
                repeat.until.path,
            )
        )

    # ---------------------------------------------------------------------------------------- judging

    def _fail(self, step: Step, message: str, miss: A.Mismatch | None = None, where: str = "") -> StepFailed:
        if miss is None:
            return StepFailed(Failure(f"step {step.id}: {message}", step.id))
        path = f"{where}.{miss.path}" if where and miss.path else (where or miss.path)
        return StepFailed(
            Failure(f"step {step.id}: {message}: {miss.message}", step.id, miss.expected, miss.actual, path)
        )

    def _judge(self, step: Step, reply: Reply) -> None:
        if reply.status is None:
            raise self._fail(step, f"no answer from {reply.label}: {reply.problem}")
        if step.expect_error is not None:
            self._judge_error(step, step.expect_error, reply)
            return
        if reply.error is not None and step.kind == "operation":
            err = reply.error
            raise StepFailed(
                Failure(
                    f"step {step.id}: expected a result, got error "
                    f"{err.name or err.code or 'HTTP ' + str(reply.status)}: {A.shown(err.message)}",
                    step.id,
                    "a result",
                    A.shown(err.name or err.code),
                )
            )
        expect = step.expect
        status = self.scope.resolve(expect.status) if expect is not None and expect.status is not None else None
        if status is not None:
            miss = A.check(status, reply.status)
            if miss is not None:
                raise self._fail(step, "HTTP status", miss, "status")
        elif not 200 <= reply.status < 300:
            raise self._fail(step, f"HTTP {reply.status}, expected a success")
        if reply.problem and step.expect_stream is None:
            raise self._fail(step, reply.problem)
        if expect is not None and expect.body is not None:
            root = reply.body if step.kind == "raw" else reply.root
            if step.operation in ("send_streaming_message", "subscribe_to_task") and step.kind == "operation":
                root = reply.events[-1] if reply.events else A.MISSING
            miss = A.check(self.scope.resolve(dict(expect.body)), root)
            if miss is not None:
                raise self._fail(step, "body", miss)
        if step.expect_stream is not None:
            self._judge_stream(step, step.expect_stream, reply)

    def _judge_error(self, step: Step, expected: ExpectError, reply: Reply) -> None:
        err = reply.error
        if err is None:
            raise StepFailed(
                Failure(
                    f"step {step.id}: expected an error, got a result", step.id, A.shown(expected.error), "a result"
                )
            )
        want = self.scope.resolve(expected.error)
        names = acts_error(want) if isinstance(want, str) else frozenset()
        if expected.spelled == "expect.status: error":
            ok = True
            if expected.details is not None:
                obj = {"code": err.code, "message": err.message, "data": err.details, "details": err.details}
                miss = A.check(self.scope.resolve(expected.details), obj, "error")
                if miss is not None:
                    raise self._fail(step, "error", miss)
            return
        if expected.spelled == "any":
            ok = True
        elif names:
            ok = err.name in names
        else:
            ok = A.check(_error_names(want), err.name) is None or A.check(want, err.code) is None
        if not ok:
            raise StepFailed(
                Failure(
                    f"step {step.id}: expected error {A.shown(want)}, got {err.name or 'an unknown error'}"
                    f" (code {err.code}, HTTP {reply.status})",
                    step.id,
                    A.shown(want),
                    str(err.name or err.code),
                    "error",
                )
            )
        if expected.message is not None:
            miss = A.check(self.scope.resolve(expected.message), err.message, "message")
            if miss is not None:
                raise self._fail(step, "error message", miss, "error")
        if expected.details is not None:
            miss = A.check(self.scope.resolve(dict(expected.details)), err.details, "details")
            if miss is not None:
                raise self._fail(step, "error details", miss, "error")

    def _judge_stream(self, step: Step, spec: ExpectStream, reply: Reply) -> None:
        events = reply.events
        if reply.problem and not events:
            raise self._fail(step, reply.problem)
        n = len(events)
        if spec.min_count is not None and n < spec.min_count:
            raise StepFailed(
                Failure(
                    f"step {step.id}: {n} event(s), expected at least {spec.min_count}",
                    step.id,
                    f">= {spec.min_count}",
                    str(n),
                    "events",
                )
            )
        if spec.max_count is not None and n > spec.max_count:
            raise StepFailed(
                Failure(
                    f"step {step.id}: {n} event(s), expected at most {spec.max_count}",
                    step.id,
                    f"<= {spec.max_count}",
                    str(n),
                    "events",
                )
            )
        if spec.ordering == "monotonic_state":
            problem = _monotonic(events)
            if problem:
                raise StepFailed(Failure(f"step {step.id}: {problem} (§7.1)", step.id, "monotonic_state", problem))
        for i, assertion in enumerate(spec.events):
            body = self.scope.resolve(
                {k: v for k, v in assertion.items() if k not in ("description", "match", "index")}
            )
            label = assertion.get("description") or f"events[{i}]"
            if assertion.get("match") == "any_position":
                if not any(event_check(body, e) is None for e in events):
                    raise StepFailed(
                        Failure(
                            f"step {step.id}: no event matches {label!r}",
                            step.id,
                            A.shown(body),
                            f"{n} event(s), none matching",
                            f"events[{i}]",
                        )
                    )
                continue
            index = assertion.get("index", i)
            event = events[index] if index < n else A.MISSING
            miss = event_check(body, event)
            if miss is not None:
                raise self._fail(step, f"event {index} ({label})", miss, f"events[{index}]")
        if spec.each_event is not None:
            for index, event in enumerate(events):
                miss = event_check(self.scope.resolve(spec.each_event), event)
                if miss is not None:
                    raise self._fail(step, f"event {index} (each_event)", miss, f"events[{index}]")
        if spec.final_event is not None:
            if not reply.stream_ended:
                raise self._fail(step, f"the stream did not end ({reply.problem}): no final event")
            miss = event_check(self.scope.resolve(spec.final_event), events[-1] if events else A.MISSING)
            if miss is not None:
                raise self._fail(step, "final event", miss, "final_event")

    def _capture(self, step: Step, reply: Reply) -> None:
        root = reply.body if step.kind == "raw" else reply.root
        values: dict[str, Any] = {}
        for name, path in step.capture.items():
            candidates = root if isinstance(root, list) and step.kind == "operation" and reply.events else [root]
            found = next((v for c in candidates for v in [A.get(c, path)] if v is not A.MISSING), A.MISSING)
            if found is A.MISSING:
                found = next(
                    (v for c in candidates for v in [A.get(_payload(c), path)] if v is not A.MISSING), A.MISSING
                )
            if found is A.MISSING:
                raise StepFailed(
                    Failure(
                        f"step {step.id}: capture {name}: the answer has nothing at {path!r}",
                        step.id,
                        f"a value at {path}",
                        "(absent)",
                        path,
                    )
                )
            values[name] = found
        self.scope.captures[step.id] = values

    def _named(self, named: NamedAssertion, step_id: str) -> None:
        source = self.scope.resolve(named.source)
        value = A.get(source, named.path) if named.path else source
        label = named.id or named.source

        def fail(message: str, miss: A.Mismatch | None = None) -> StepFailed:
            return StepFailed(
                Failure(
                    f"step {step_id}: assertion {label}: {message}" + (f": {miss.message}" if miss else ""),
                    step_id,
                    miss.expected if miss else "",
                    miss.actual if miss else "",
                    miss.path if miss else named.path,
                )
            )

        if named.has_match:
            miss = A.check(self.scope.resolve(named.match), value)
            if miss is not None:
                raise fail("match", miss)
        for mode, coll in (("any", named.any), ("all", named.all), ("none", named.none)):
            if coll is None:
                continue
            match = self.scope.resolve(dict(coll.match))
            items = A.select(value, coll.path)
            results = [A.check(match, item) for item in items]
            if mode == "any" and not any(r is None for r in results):
                raise fail(f"no element of {coll.path} ({len(items)}) matches {A.shown(match)}")
            if mode == "all":
                miss = next((r for r in results if r is not None), None)
                if miss is not None or not items:
                    raise fail(f"not every element of {coll.path} matches", miss)
            if mode == "none" and any(r is None for r in results):
                raise fail(f"an element of {coll.path} matches {A.shown(match)}")


def _error_names(want: Any) -> Any:
    """An error assertion with each ACTS name replaced by the A2A names it stands for (one_of when several)."""
    if isinstance(want, str):
        names = sorted(acts_error(want))
        return names[0] if len(names) == 1 else {"one_of": names}
    if isinstance(want, dict):
        if "one_of" in want and isinstance(want["one_of"], list):
            return {
                "one_of": [n for item in want["one_of"] for n in sorted(acts_error(item))]
                if all(isinstance(i, str) for i in want["one_of"])
                else want["one_of"]
            }
        return {k: _error_names(v) for k, v in want.items()}
    if isinstance(want, list):
        return [_error_names(v) for v in want]
    return want


def _payload(event: Any) -> Any:
    """The one StreamResponse member an event carries (the event itself when it carries none a2a-lab knows)."""
    if isinstance(event, dict):
        for member in EVENT_KINDS.values():
            if member in event:
                return event[member]
    return event


def event_check(spec: Mapping[str, Any], event: Any) -> A.Mismatch | None:
    """An event assertion (§7): the named kinds select the StreamResponse member; other keys read the member's
    payload (a StreamResponse member name reads the event itself); `one_of`/`any_of` of mappings are alternatives."""
    if event is A.MISSING:
        return A.Mismatch("", "an event", "no such event")
    rest: dict[str, Any] = {}
    for key, value in spec.items():
        if key in EVENT_KINDS:
            miss = A.check(
                value,
                event.get(EVENT_KINDS[key], A.MISSING) if isinstance(event, dict) else A.MISSING,
                EVENT_KINDS[key],
            )
            if miss is not None:
                return miss
        elif key in ("statusUpdate", "artifactUpdate"):
            miss = A.check(value, event.get(key, A.MISSING) if isinstance(event, dict) else A.MISSING, key)
            if miss is not None:
                return miss
        elif key in ("one_of", "any_of") and isinstance(value, list) and all(isinstance(v, dict) for v in value):
            if not any(event_check(v, event) is None for v in value):
                return A.Mismatch("", f"{key} of {len(value)} event shapes", A.shown(event, 160))
        elif key == "all_of" and isinstance(value, list) and all(isinstance(v, dict) for v in value):
            for v in value:
                miss = event_check(v, event)
                if miss is not None:
                    return miss
        elif key == "not" and isinstance(value, dict):
            if event_check(value, event) is None:
                return A.Mismatch("", "not " + A.shown(value), A.shown(event, 160))
        else:
            rest[key] = value
    if not rest:
        return None
    if all(k in OPERATORS for k in rest):
        return A.check(rest, _payload(event))
    return A.check(rest, _payload(event))


def _state(event: Any) -> str | None:
    payload = _payload(event)
    status = payload.get("status") if isinstance(payload, dict) else None
    state = status.get("state") if isinstance(status, dict) else None
    return state if isinstance(state, str) else None


def _monotonic(events: list[Any]) -> str:
    """The first illegal state change of §7.1 (to SUBMITTED after the start; out of a terminal state), or ""."""
    previous: str | None = None
    for index, event in enumerate(events):
        state = _state(event)
        if state is None:
            continue
        if previous is not None and state != previous:
            if state == TaskState.SUBMITTED.value:
                return f"event {index}: {previous} -> {state} (SUBMITTED is only the initial state)"
            if previous in _TERMINAL:
                return f"event {index}: {previous} -> {state} (a terminal state is final)"
        previous = state
    return ""


def _ms(since: float) -> int:
    return int((time.monotonic() - since) * 1000)


def run_binding(
    tests: list[Test],
    transport: str,
    url: str,
    card: Mapping[str, Any],
    card_url: str,
    spec_version: str,
    options: RunOptions,
) -> BindingRun:
    """Every test on one binding (a binding a2a-lab does not speak here: every test skipped, with the reason)."""
    started = time.monotonic()
    results: list[TestResult] = []
    target = Target(
        options.server.rstrip("/"), card_url, url, BINDINGS[transport], spec_version, options.token, options.timeout
    )
    with httpx.Client(follow_redirects=False) as http:
        grpc = transport == "grpc" and grpcwire.missing() is None
        exchanger: Exchanger | GrpcExchanger = GrpcExchanger(http, target) if grpc else Exchanger(http, target)
        try:
            for test in tests:
                reason = skip_reason(test, transport, card, options)
                if not reason and transport == "grpc" and grpcwire.missing():
                    reason = f"gRPC: {grpcwire.missing()}"
                if not reason and transport == "grpc" and any(step.kind == "raw" for step in test.steps):
                    reason = "raw steps are HTTP requests: not sent over gRPC"
                if reason:
                    results.append(TestResult(test, "skip", skip_reason=reason))
                    continue
                results.append(TestRun(test, exchanger, options).run())
        finally:
            if isinstance(exchanger, GrpcExchanger):
                exchanger.close()
    return BindingRun(transport, url, results, _ms(started))
