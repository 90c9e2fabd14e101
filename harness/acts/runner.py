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

from a2a_lab.contract.redaction import Redaction
from a2a_lab.harness.acts import assertions as A
from a2a_lab.harness.acts import identity, streams
from a2a_lab.harness.acts.defaults import STANDARD_BEHAVIORS, TEST_DEADLINE_S
from a2a_lab.harness.acts.document import (
    EVENT_KINDS,
    MAX_WAIT_MS,
    OPERATORS,
    ExpectError,
    ExpectStream,
    NamedAssertion,
    Step,
    Test,
)
from a2a_lab.harness.acts.exchange import BINDINGS, Exchanger, GrpcExchanger, Reply, Target, acts_error
from a2a_lab.harness.acts.webhook import Receiver, judge_deliveries
from a2a_lab.protocol import cards, grpcwire
from a2a_lab.protocol import security_schemes as ss
from a2a_lab.protocol.exceptions import LabError
from a2a_lab.protocol.states import TaskState

#: The runner requirements (§3.2) this runner can provide, and how a user makes it (a test that declares one the run
#: does not provide is skipped saying so).
HOW_TO_PROVIDE = {
    "webhook_endpoint": "run with --server: the runner's webhook (--webhook-host: where the server reaches this host)",
    "auth_credentials": identity.HOW,
}
#: How long the runner waits for a push delivery to its webhook after a test's steps.
DELIVERY_WAIT_S = 10.0
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
    #: A skip's kind (SKIP_KINDS), "" for a test that ran.
    skip_kind: str = ""


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
    #: How long one test may run; when the whole run must end (a time.monotonic() value; None: no end).
    test_deadline: float = TEST_DEADLINE_S
    run_ends: float | None = None
    #: The runner's webhook receiver (`{{webhookUrl}}`, runner requirement webhook_endpoint); None: not provided.
    webhook: Receiver | None = None
    #: A second user's credentials (`--credentials`, identity.KEYS); empty: none.
    credentials: Mapping[str, str] = field(default_factory=dict)

    @property
    def provided(self) -> frozenset[str]:
        """The runner requirements (§3.2) this run provides."""
        return (
            frozenset({"webhook_endpoint"} if self.webhook is not None else ())
            | frozenset({"auth_credentials"} if self.credentials else ())
            | frozenset(streams.PROVIDED)
        )


class StepFailed(LabError):
    """A step's failure (internal to the runner)."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


# ------------------------------------------------------------------------------------------------ applicability


#: Why a test is skipped, in four kinds a reader can compare with other runners: the SUT's declared preconditions
#: (its card, the behaviours its contract serves), a runner requirement this run does not provide (saying how to
#: provide it), a transport limit (another binding, raw HTTP steps over gRPC), and a defect of the draft (a
#: precondition on a capability A2A does not define; docs/reference/conformance.md names each).
SKIP_KINDS = ("precondition", "runner", "transport", "draft")


def skip_reason(test: Test, transport: str, card: Mapping[str, Any], options: RunOptions) -> str:
    """Why `test` does not run on this binding against this card ("" when it runs)."""
    return skip_of(test, transport, card, options)[1]


def skip_of(test: Test, transport: str, card: Mapping[str, Any], options: RunOptions) -> tuple[str, str]:
    """(one of SKIP_KINDS, why) when `test` does not run on this binding against this card; ("", "") when it runs."""
    if test.is_client and not options.client:
        return "runner", "a client test (client_response): run it with --client CMD"
    for listed, what in ((test.transport, "test"), (test.preconditions.transport, "preconditions")):
        if listed and transport not in listed:
            return "transport", f"the {what} lists transport {', '.join(listed)}, this run is {transport}"
    caps: dict[str, Any] = card["capabilities"] if isinstance(card.get("capabilities"), dict) else {}
    for name, wanted in test.preconditions.capabilities.items():
        have = caps.get(name, False if isinstance(wanted, bool) else A.MISSING)
        if name == AUTHENTICATION and isinstance(wanted, bool):
            have = declares_security(card)
            if have != wanted:
                said = "declares" if have else "declares no"
                return "precondition", f"precondition: the card {said} security requirements ({AUTHENTICATION_READ})"
            continue
        if A.check(wanted, have) is not None:
            said = f"precondition: the card's capabilities.{name} is {A.shown(have)}, the test needs {A.shown(wanted)}"
            if name not in cards.CAPABILITY_FLAGS and name != "extensions":
                return "draft", f"{said} (a defect of the draft: AgentCapabilities has no {name})"
            return "precondition", said
    skills = {s.get("id") for s in card.get("skills") or [] if isinstance(s, dict)}
    for skill in test.preconditions.skills:
        if skill not in skills:
            return "precondition", f"precondition: the card declares no skill {skill!r}"
    declared = {e.get("uri") for e in caps.get("extensions") or [] if isinstance(e, dict)}
    for uri in test.preconditions.extensions:
        if uri not in declared:
            return "precondition", f"precondition: the card declares no extension {uri}"
    missing = [b for b in test.requires_behaviors if b not in options.behaviors]
    if missing:
        return "precondition", (
            f"requires SUT behaviour {', '.join(missing)}, which the SUT contract given does not serve (§11)"
        )
    lacking = identity.missing(identity.referenced(test), options.credentials, card)
    if lacking:
        return "runner", lacking
    needs = [r for r in streams.requirements(test) if r not in options.provided]
    if needs:
        how = "; ".join(f"{r}: {HOW_TO_PROVIDE.get(r, 'a2a-lab does not provide it yet')}" for r in needs)
        return "runner", f"needs runner requirement {', '.join(needs)}, which this run does not provide ({how})"
    return "", ""


#: The draft's precondition `capabilities.authentication` (no AgentCapabilities field: a defect of the draft), read as
#: the card declaring security requirements (securitySchemes with securityRequirements, A2A 1.0 §4.5).
AUTHENTICATION = "authentication"
AUTHENTICATION_READ = "the draft's capabilities.authentication, read as securitySchemes with securityRequirements"


def declares_security(card: Mapping[str, Any]) -> bool:
    """Whether the card requires authentication: a security requirement naming a declared scheme."""
    security = ss.read(card)
    return any(set(r.schemes) & set(security.schemes) for r in security.requirements)


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

    def __init__(
        self,
        test: Test,
        exchanger: Exchanger | GrpcExchanger,
        options: RunOptions,
        provided: Mapping[str, str] | None = None,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.test, self.exchanger, self.options = test, exchanger, options
        runner = {"SUT_BASE_URL": options.server.rstrip("/"), "baseUrl": options.server.rstrip("/"), **(provided or {})}
        #: This test's webhook URL, and the push configs its steps pointed at it (their `authentication`).
        self.webhook_url = options.webhook.url_for() if options.webhook is not None else ""
        self.pushed: list[Mapping[str, Any]] = []
        if self.webhook_url:
            runner["webhookUrl"] = self.webhook_url
        self.scope = A.Scope(test.variables, runner)
        for secret in (options.token, *secrets):
            if secret and len(secret) >= A.SECRET_MIN_CHARS:
                self.scope.secrets.add(secret)
        self.ends = time.monotonic() + options.test_deadline
        if options.run_ends is not None:
            self.ends = min(self.ends, options.run_ends)
        exchanger.deadline = self.ends

    def run(self) -> TestResult:
        """The test's verdict, with every secret its references read hidden in what it says."""
        result = self._run()
        for failure in [result.failure, *(s.failure for s in result.steps)]:
            if failure is not None:
                failure.message, failure.expected, failure.actual = (
                    self.scope.scrub(failure.message),
                    self.scope.scrub(failure.expected),
                    self.scope.scrub(failure.actual),
                )
        result.quote = self.scope.scrub(result.quote)
        for step in result.steps:
            step.quote = self.scope.scrub(step.quote)
        return result

    def _deadline(self, step: Step, what: str) -> StepFailed:
        said = f"{self.options.test_deadline:g} s, --test-deadline"
        if self.options.run_ends is not None and self.ends >= self.options.run_ends:
            said = "the run's, --run-deadline"
        return StepFailed(Failure(f"step {step.id}: {what} would pass the test's deadline ({said})", step.id))

    def _sleep(self, step: Step, seconds: float) -> None:
        """Wait `seconds`, or until the deadline and fail the step when it comes first."""
        left = self.ends - time.monotonic()
        if seconds > left:
            self.options.sleep(max(0.0, left))
            raise self._deadline(step, f"waiting {seconds:g} s")
        self.options.sleep(seconds)

    def _run(self) -> TestResult:
        started = time.monotonic()
        result = TestResult(self.test, "pass")
        for step in self.test.steps:
            begun = time.monotonic()
            quote = ""
            try:
                if begun >= self.ends:
                    raise self._deadline(step, "starting it")
                quote = self.step(step)
                result.steps.append(StepResult(step.id, "pass", _ms(begun), quote=quote))
            except StepFailed as failed:
                return self._end(result, started, StepResult(step.id, "fail", _ms(begun), failed.failure))
            except A.Unresolved as exc:
                failure = Failure(f"step {step.id}: {exc}", step.id)
                return self._end(result, started, StepResult(step.id, "fail", _ms(begun), failure))
            except streams.NotJudged as exc:  # the runner's own streams could not test their requirement
                failure = Failure(f"step {step.id}: not judged: {exc}", step.id)
                return self._end(result, started, StepResult(step.id, "error", _ms(begun), failure))
            except Exception as exc:  # a runner fault is an `error`, never a fail
                failure = Failure(f"step {step.id}: runner error {type(exc).__name__}: {exc}", step.id)
                return self._end(result, started, StepResult(step.id, "error", _ms(begun), failure))
        try:
            for named in self.test.assertions:
                self._named(named, "(test assertions)")
            self._judge_deliveries()
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
        self._judge_streams(step)
        return self._last_quote

    _outcome: streams.Outcome | None = None

    def _judge_streams(self, step: Step) -> None:
        """The verdict on the runner's own streams of this step (streams.py), once its expectations have held."""
        outcome, self._outcome = self._outcome, None
        if outcome is not None and outcome.miss is not None:
            miss = outcome.miss
            raise StepFailed(Failure(f"step {step.id}: {miss.message}", step.id, miss.expected, miss.actual))
        if outcome is not None and outcome.not_judged:
            raise streams.NotJudged(outcome.not_judged)

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
            self._sleep(step, step.delay_ms / 1000)
        params = self.scope.resolve(dict(step.params))
        if step.operation == "create_push_config" and self.webhook_url:
            config = params.get("pushNotificationConfig", params)
            if isinstance(config, dict) and config.get("url") == self.webhook_url:
                self.pushed.append(config)
        timeout = step.expect_stream.timeout_ms / 1000 if step.expect_stream and step.expect_stream.timeout_ms else None
        special = {streams.CONCURRENT: streams.concurrent, streams.DISCONNECT: streams.disconnect}
        how = special.get(streams.applies(self.test, step.operation))
        if how is not None and step.repeat is None:
            self._outcome = how(self.exchanger, step.operation, params, timeout)
            return self._outcome.reply
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
            self._sleep(step, delay)
            if repeat.backoff == "linear":
                delay += repeat.delay_ms / 1000
            elif repeat.backoff == "exponential":
                delay *= 2
            delay = min(delay, MAX_WAIT_MS / 1000)
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

    def _judge_deliveries(self) -> None:
        """When a step pointed a push config at this test's webhook: the deliveries it got, judged (webhook.judge)."""
        if not self.pushed or self.options.webhook is None:
            return
        wait = max(0.0, min(DELIVERY_WAIT_S, self.ends - time.monotonic()))
        miss = judge_deliveries(self.options.webhook.deliveries(self.webhook_url, wait), self.pushed, wait)
        if miss is not None:
            raise StepFailed(Failure(miss.message, "(test deliveries)", miss.expected, miss.actual))

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


def _run_one(
    test: Test, exchanger: Exchanger | GrpcExchanger, options: RunOptions, second: identity.SecondUser
) -> TestResult:
    """One test, with the second user's variables it refers to (an error, not judged, when they cannot be made)."""
    try:
        provided = second.variables(identity.referenced(test))
    except identity.IdentityError as exc:
        return TestResult(test, "error", failure=Failure(f"runner error: the second identity (--credentials): {exc}"))
    return TestRun(test, exchanger, options, provided, tuple(second.secrets())).run()


def past_run_deadline(test: Test) -> TestResult:
    """A test the run had no time left for: an error (not judged), never a skip that would count as conformant."""
    return TestResult(test, "error", failure=Failure("not run: the run's deadline (--run-deadline) had passed"))


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
        options.server.rstrip("/"),
        card_url,
        url,
        BINDINGS[transport],
        spec_version,
        options.token,
        options.timeout,
        Redaction.for_cards(card),
    )
    with httpx.Client(follow_redirects=False) as http:
        grpc = transport == "grpc" and grpcwire.missing() is None
        exchanger: Exchanger | GrpcExchanger = GrpcExchanger(http, target) if grpc else Exchanger(http, target)
        second = identity.SecondUser(http, target, options.credentials, card)
        try:
            for test in tests:
                if options.run_ends is not None and time.monotonic() >= options.run_ends:
                    results.append(past_run_deadline(test))
                    continue
                kind, reason = skip_of(test, transport, card, options)
                if not reason and transport == "grpc" and grpcwire.missing():
                    kind, reason = "runner", f"gRPC: {grpcwire.missing()}"
                if not reason and transport == "grpc" and any(step.kind == "raw" for step in test.steps):
                    kind, reason = "transport", "raw steps are HTTP requests: not sent over gRPC"
                if reason:
                    results.append(TestResult(test, "skip", skip_reason=reason, skip_kind=kind))
                    continue
                results.append(_run_one(test, exchanger, options, second))
        finally:
            if isinstance(exchanger, GrpcExchanger):
                exchanger.close()
    return BindingRun(transport, url, results, _ms(started))
