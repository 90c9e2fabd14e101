"""Reacting to errors (spec §5.2 fallback, §3.6 VersionNotSupported): no blind retries, fallback across interfaces,
no use of an answer that is not one."""

from __future__ import annotations

import re

from a2a_lab.contract.journal_record import EntryKind, ResultKind
from a2a_lab.contract.scenario import FaultKind
from a2a_lab.harness.client_judging.checks.base import Check, check
from a2a_lab.harness.client_judging.checks.tasks import message_ids, task_param
from a2a_lab.harness.client_judging.journal_view import Call, RunView, observe
from a2a_lab.harness.common.model import CheckResult, Level, Outcome
from a2a_lab.harness.common.outcome import GIVES_UP
from a2a_lab.protocol import wire
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.jsonrpc import rpc_response_problem

#: Errors that say "this interface does not do that": retrying the same call cannot help.
_DEAD_END = {ErrorType.METHOD_NOT_FOUND.code, ErrorType.VERSION_NOT_SUPPORTED.code}
#: Repeats of a dead-end call tolerated before it counts as a loop.
MAX_REPEATS = 1


def _key(call: Call) -> tuple[object, ...]:
    return (call.endpoint_path, call.binding, call.operation, call.version)


def _dead_ends(view: RunView) -> list[Call]:
    return [c for c in view.a2a_calls if c.error_code in _DEAD_END]


@check(
    "NO-RETRY-LOOP",
    Level.MUST,
    "A2A 1.0 §5.4 (MethodNotFound, VersionNotSupported are not transient); 0.3 §11.2.2 (MUST properly handle all A2A "
    "error codes)",
    "No blind retry after method not found",
    f"After -32601 (method not found) or -32009 (version not supported) the same call to the same interface cannot "
    f"succeed; "
    f"a client may repeat it at most {MAX_REPEATS} time(s), never in a loop.",
    'graded MUST by 0.3 §11.2.2 ("MUST properly handle all A2A error codes"): a retry loop against a dead end '
    "never ends and floods the agent",
    rule=(
        "A client repeats a call answered method-not-found (-32601) or version-not-supported (-32009) on "
        "the same interface at most once."
    ),
    fix=(
        "Treat -32601 and -32009 as final for that interface: fall back to another declared interface or "
        "report the error, instead of retrying the same call."
    ),
)
def no_retry_loop(view: RunView, c: Check) -> CheckResult:
    dead = _dead_ends(view)
    if not dead:
        return c.skipped("no method-not-found or version-not-supported answer")
    first = dead[0]
    repeats = [call for call in view.a2a_calls if call.seq > first.seq and _key(call) == _key(first)]
    if len(repeats) > MAX_REPEATS:
        return c.broken(
            "the client retried a call that had answered method-not-found / version-not-supported",
            f"at most {MAX_REPEATS} repeat(s)",
            f"{len(repeats)} repeats of {first.rpc_method or first.entry.path}",
            [first, *repeats],
        )
    return c.passed("no retry loop after the error")


@check(
    "FALLBACK",
    Level.SHOULD,
    "A2A 1.0 §5.2 (C20), §3.6; 0.3 §5.6.3",
    "Falls back to another declared interface",
    "Clients SHOULD implement fallback across the protocols the card declares: when an interface answers "
    "method-not-found or version-not-supported, try the next declared interface.",
    rule=(
        "A client whose interface answers method-not-found or version-not-supported tries the next "
        "interface the card declares that it speaks."
    ),
    fix=(
        "Keep the card's other supported interfaces as candidates and, on -32601 or -32009 (HTTP+JSON: "
        "404 or 405 for the route, or VERSION_NOT_SUPPORTED), repeat the call on the next one in card "
        "order."
    ),
)
def fallback(view: RunView, c: Check) -> CheckResult:
    dead = _dead_ends(view)
    if not dead:
        return c.skipped("no method-not-found or version-not-supported answer")
    first = dead[0]
    # "another interface" is another declared one: not the one the dead end was sent to, as the card declares it
    went = [i for i in view.declared(first) if i.accepts(first.version)]
    alternatives = [
        i
        for i in view.interfaces
        if i.core_binding is not None
        and i.known_version is not None
        and view.interface_path(i) is not None
        and i not in went
    ]
    if not alternatives:
        return c.skipped("the card declares no other interface to fall back to")
    # A client can only fall back to what it speaks (declared, or seen anywhere in the run).
    alternatives = [i for i in alternatives if (i.core_binding, i.known_version) in view.supports]
    if not alternatives:
        return c.skipped("the card's other interfaces use bindings or versions this client is not known to support")
    moved = [call for call in view.a2a_calls if call.seq > first.seq and _key(call) != _key(first)]
    if not moved:
        return c.broken(
            "the client gave up without trying the other declared interface(s)",
            f"a call to {alternatives[0].label}",
            "no other interface tried",
            [first],
        )
    return c.passed(f"fell back from {first.rpc_method or first.entry.path} to another interface", moved[:1])


def _invalid_answers(view: RunView) -> list[tuple[Call, set[str], str]]:
    """The JSON-RPC calls answered with a body that is no valid response to them (another id, both or neither of
    `result` and `error`), with the task ids that body named and what is wrong with it."""
    out = []
    for call in view.a2a_calls:
        if call.entry.kind is not EntryKind.JSONRPC or call.answer_failed or call.form is None:
            continue
        request_id = call.entry.rpc.id if call.entry.rpc else None
        for body in call.responses():
            wrong = rpc_response_problem(body, request_id)
            if wrong is None or not isinstance(body, dict):
                continue
            said = wire.result_in(call.operation, body.get("result"), call.form) if "result" in body else None
            named = {
                inner.get("id") or inner.get("taskId") for inner in (said or {}).values() if isinstance(inner, dict)
            }
            out.append((call, {t for t in named if isinstance(t, str) and t}, wrong))
    return out


def _names_task(call: Call, task_ids: set[str]) -> str | None:
    named = task_param(call) or message_ids(call)[0]
    return named if named in task_ids else None


@check(
    "INVALID-ANSWER-IGNORED",
    Level.MUST,
    "JSON-RPC 2.0 §5 (a response's id MUST be the request's; result and error: exactly one); A2A 1.0 §9; 0.3 §6.11",
    "Does not act on an answer that is not one",
    "A JSON-RPC response with another id than the request's, or with both or neither of `result` and `error`, answers "
    "nothing: the client does not take the task it names as its own. Seen on the wire when the client follows that "
    "task up (GetTask, SubscribeToTask, a push config, a message on it); off the wire when its output names what only "
    "that answer carried (the marker a scenario puts in it: its task id, its text) on stdout, in A2A_LAB_RESULT, or on "
    "stderr when it exits 0, outside a line that reports an error. A client that shows neither: UNIMPLEMENTED.",
    "the obligation is the server's (JSON-RPC 2.0 §5); a client that accepts the broken response takes an answer "
    "that was never given to its request, so the lab grades it at the same keyword",
    rule=(
        "A client ignores a JSON-RPC response whose `id` is not its request's, or that has both or "
        "neither of `result` and `error`, and never adopts the task it names."
    ),
    fix=(
        "Validate each response before using it: its `id` must be the request's and it must hold exactly "
        "one of `result` and `error`. Otherwise report an invalid response, and neither show nor follow "
        "up its task."
    ),
)
def invalid_answer_ignored(view: RunView, c: Check) -> CheckResult:
    """On the wire: a follow-up of the task only the invalid answer named. Off the wire: the client's output or result
    naming what only that answer carried (its task id, its text): the output is evidence too."""
    invalid = _invalid_answers(view)
    if not invalid:
        return c.skipped("every JSON-RPC answer was a valid response to its request")
    obs = view.observations()
    for answer, named, wrong in invalid:
        for later in (call for call in view.a2a_calls if call.seq > answer.seq):
            # A task a valid answer had named before this request is the client's to follow, whatever else named it.
            trusted = {o.task_id for o in obs if o.task_id and o.seq < later.seq}
            task_id = _names_task(later, named - trusted)
            if task_id:
                return c.broken(
                    f"the client followed up task {task_id}, which only an invalid answer named ({wrong})",
                    f"no request about a task that only an invalid response to {answer.label()} named",
                    f"{later.label()} about task {task_id}",
                    [later, answer],
                )
    first = invalid[0][0]
    if not any(named for _, named, _ in invalid):
        return c.skipped("the invalid answers named no task the client could have followed")
    went_on = [call for call in view.a2a_calls if call.seq > first.seq]
    if went_on:
        return c.passed(
            f"the client went on ({went_on[0].label()}) without following the task the invalid answer named",
            went_on[:1],
        )
    shown = _shows_marker(view, [m for call, named, _ in invalid for m in (*sorted(named), *_answer_texts(call))])
    if shown is not None:
        marker, where, line = shown
        return c.broken(
            f"the client took the invalid answer to {first.label()} ({invalid[0][2]}): its {where} names {marker!r}, "
            "which only that answer carried",
            "an error reported (a response with another id answers nothing), nothing of the invalid answer used",
            f"{where}: {line!r}",
            [first],
        )
    return c.result(
        Outcome.UNIMPLEMENTED,
        f"the client made no request after the invalid answer to {first.label()} and its output names nothing that "
        "answer carried, so whether it took it is not shown (a client that writes A2A_LAB_RESULT is judged by "
        "RESULT-EXPECTED)",
    )


#: The shortest text of an invalid answer that counts as its marker in the client's output (a word like "done" could
#: come from anywhere).
MARKER_CHARS = 12


def _answer_texts(call: Call) -> list[str]:
    """The texts an answer carried (the artifact and status texts of the task it named), long enough to be its own."""
    return [o.text.strip() for o in observe(call, invalid_too=True) if len(o.text.strip()) >= MARKER_CHARS]


def _shows_marker(view: RunView, markers: list[str]) -> tuple[str, str, str] | None:
    """The first marker the client's own account of the run names as something it took: its result file's text, a line
    of its stdout, or of its stderr when it exited 0. (marker, where, line.) A client that reports an error may quote
    the bad response in doing so: a result of kind error, or a line that says error, invalid or mismatch, is no
    acceptance."""
    result = view.client_result or {}
    if result.get("kind") == ResultKind.ERROR:
        return None  # the client's own account: it refused the answer (RESULT-EXPECTED judges the rest)
    places = [("A2A_LAB_RESULT", " ".join(str(result.get(k) or "") for k in ("text", "taskId", "task_id")))]
    places.append(("stdout", view.client_stdout))
    if view.client_exit == 0:
        places.append(("stderr", view.client_stderr))
    for where, text in places:
        for line in text.splitlines():
            if _REPORTS_ERROR.search(line):
                continue
            marker = next((m for m in markers if m and m in line), None)
            if marker is not None:
                return marker, where, line.strip()[:300]
    return None


#: A line of a client's output that reports an error: it may quote the invalid answer it refused.
_REPORTS_ERROR = re.compile(r"error|invalid|mismatch|not a json-rpc response|refus|reject", re.I)


#: GIVES-UP's id lives with the rule that reads it (common/outcome.py: a timeout it judged is a verdict).


#: The spec's advice for a call to a remote party: a 10-30 s timeout (A2A 1.0 §13.2, §4.3.3). A client that gives up
#: within the upper bound (and a second's slack for its own start and exit) follows it.
ADVISED_WAIT_S = (10.0, 30.0)
WAIT_SLACK_S = 1.0


@check(
    GIVES_UP,
    Level.SHOULD,
    "A2A 1.0 §4.3.3, §13.2 (a 10-30 s timeout: the spec's advice for a call to a remote party); A2A 1.0 §3.3.2",
    "Gives up on an agent that never answers",
    "When the agent takes a request and never answers it, the client stops waiting by itself (a read timeout) within "
    "the 10-30 s the spec advises for a call to a remote party, and ends the exchange, instead of hanging until it is "
    "killed. Judged by how long it waited, which `--timeout` cannot shorten here (the scenario's own time is the "
    "least it gets).",
    "no rule binds a client's patience: graded SHOULD by the spec's advice to agents for the same situation, so a "
    "client that hangs on a silent agent is NON_STRICT here, not TIMEOUT (which would gate)",
    rule=(
        "A client stops waiting for an agent that never answers after a read timeout of 10-30 s, and ends"
        " the exchange with an error."
    ),
    fix=(
        "Set a read timeout of 10-30 s on every call and, when it fires, report a timeout error and end "
        "instead of waiting to be killed."
    ),
)
def gives_up(view: RunView, c: Check) -> CheckResult:
    unanswered = [
        call for call in view.calls if call.entry.response is not None and call.entry.response.fault == FaultKind.STALL
    ]
    if not unanswered:
        return c.skipped("every request was answered")
    last = unanswered[-1]
    advice = f"the spec advises giving up after {ADVISED_WAIT_S[0]:.0f}-{ADVISED_WAIT_S[1]:.0f} s"
    # The server measured it: how long it held the unanswered request until the client went away (None when the
    # client was stopped first, or the journal was read before the server saw the connection close).
    held = last.entry.response.held_ms if last.entry.response is not None else None
    waited = None if held is None else held / 1000
    took = "" if waited is None else f" {waited:.1f} s"
    if view.client_timed_out:
        return c.broken(
            f"the client waited{took} for an answer that never came, until a2a-lab stopped it ({advice})",
            f"the client gives up by itself within {ADVISED_WAIT_S[1]:.0f} s (a read timeout) and ends the exchange",
            f"still waiting on {last.label()}{took and ' after' + took} when the scenario's time ran out",
            unanswered[-1:],
        )
    if waited is not None and waited > ADVISED_WAIT_S[1] + WAIT_SLACK_S:
        return c.broken(
            f"the client gave up by itself, but only after{took} ({advice})",
            f"the client gives up within {ADVISED_WAIT_S[1]:.0f} s",
            f"waited{took} on {last.label()}",
            unanswered[-1:],
        )
    return c.passed(f"the client gave up on the unanswered {last.label()} by itself{took and ' after' + took}", [last])
