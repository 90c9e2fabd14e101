"""Every check the harness scores, proven by a client that passes it and one that fails it.

The client is tests/harness/clients/fake_client.py (correct by default, one `--defect` per mistake), run through
the real runner against catalogue scenarios or the small scenario files in conftest.SCENARIOS. A new check
without a proof here fails test_every_check_has_both_proofs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest

from a2a_lab.harness.client_judging.checks import client_checks
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.versions import Version

from .proofs import UNJUDGED, explain, verify

JSONRPC = ((Binding.JSONRPC, Version.V1_0), (Binding.JSONRPC, Version.V0_3))
REST = ((Binding.HTTP_JSON, Version.V1_0),)
REST_ARGS = ("--binding", "http+json")
BOTH_1_0 = ((Binding.JSONRPC, Version.V1_0), (Binding.HTTP_JSON, Version.V1_0))

CONFORMANT, SUBMITTED = "spec/conformant", "spec/task/submitted-needs-get-task"
ENDED_EARLY, ENDED_EARLY_03 = "spec/task/ended-before-follow-up", "spec/task/ended-before-follow-up-0.3"
WRONG_ID, NEVER_ANSWERS = "errors/wrong-response-id", "faults/never-answers"
API_KEY_QUERY, OTHER_ORIGIN = "auth/api-key-query", "auth/token-endpoint-other-origin"
EXPIRING, KEYED_ELSEWHERE = "auth/token-expires-mid-task", "auth/interface-on-other-origin"
LONG_POLL, GENERATIONS_UNKNOWN = "spec/v1.1-long-poll", "spec/generations-unknown"
IF_MATCH = "spec/v1.1-if-generation-match"
MIXED, METHOD_NOT_FOUND, V03_TASK = (
    "quirks/mixed-version-direct-message",
    "quirks/advertised-method-not-found",
    "quirks/v03-completed-task-artifacts",
)


@dataclass(frozen=True)
class Case:
    """One client run: a scenario (catalogue id or conftest.SCENARIOS name), fake-client arguments, declared support."""

    scenario: str
    args: tuple[str, ...] = ()
    supports: tuple[tuple[Binding, Version], ...] = JSONRPC
    #: Seconds before the harness stops the client (short where the proof is a hang).
    timeout: float = 15

    def __str__(self) -> str:
        return f"{self.scenario} {' '.join(self.args)}".strip()


def case(
    scenario: str, *args: str, supports: tuple[tuple[Binding, Version], ...] = JSONRPC, timeout: float = 15
) -> Case:
    return Case(scenario, args, supports, timeout)


def defect(
    scenario: str, name: str, *args: str, supports: tuple[tuple[Binding, Version], ...] = JSONRPC, timeout: float = 15
) -> Case:
    return Case(scenario, ("--defect", name, *args), supports, timeout)


@dataclass(frozen=True)
class Proof:
    check: str
    name: str
    case: Case
    #: The check's outcome.
    outcome: Outcome
    #: The scenario's outcome (a MUST miss fails the scenario, a SHOULD miss makes it NON_STRICT).
    scenario: Outcome | None = None
    #: Text the check's message or actual value must contain.
    says: str = ""


# A correct client passes every check (and so the whole scenario); each defect fails the check it targets.
PASSES = [
    Proof("CARD-DISCOVERY", "card-first", case(CONFORMANT), Outcome.PASS),
    Proof("INTERFACE-SELECTION", "first-of-mixed-versions", case(MIXED), Outcome.PASS, says="#0 JSONRPC 1.0"),
    Proof("INTERFACE-SELECTION", "0.3-card", case(V03_TASK), Outcome.PASS),
    Proof("URL-FROM-CARD", "declared-url", case(CONFORMANT), Outcome.PASS),
    Proof(
        "STREAM-READ-TO-END",
        "skips-an-unknown-event",
        case("unknown-event", "--stream"),
        Outcome.PASS,
        says="read on past an event of an unknown kind (futureEvent)",
    ),
    Proof(
        "URL-FROM-CARD",
        "declared-url-plus-route-the-server-does-not-answer",
        case("method-path", "--binding", "http+json", supports=REST),
        Outcome.PASS,
    ),
    *(
        Proof(
            check_id,
            "declared-url-plus-route-read-as-declared",
            case("method-path-served", *REST_ARGS, supports=REST),
            Outcome.PASS,
        )
        for check_id in ("INTERFACE-SELECTION", "URL-FROM-CARD", "TENANT")
    ),
    Proof(
        "INTERFACE-SELECTION",
        "declared-url-plus-route-the-server-does-not-answer",
        case("method-path", "--binding", "http+json", supports=REST),
        Outcome.PASS,
        says="as declared",
    ),
    Proof("TENANT", "jsonrpc-copies-tenant", case("tenant"), Outcome.PASS, says="tenant copied exactly"),
    Proof(
        "TENANT",
        "http-json-copies-tenant",
        case("tenant", "--binding", "http+json", supports=REST),
        Outcome.PASS,
        says="tenant copied exactly",
    ),
    Proof("TENANT", "none-declared-none-sent", case("tenantless"), Outcome.PASS),
    Proof("VERSION-HEADER", "major-minor", case(CONFORMANT), Outcome.PASS, says="A2A-Version: 1.0"),
    Proof("VERSION-MATCHES-METHOD", "1.0-header", case(CONFORMANT), Outcome.PASS),
    Proof("VERSION-MATCHES-METHOD", "0.3-without-header", case(V03_TASK), Outcome.PASS),
    Proof("METHOD-MATCHES-INTERFACE", "0.3-method-on-0.3", case(V03_TASK), Outcome.PASS),
    Proof("JSONRPC-ENVELOPE", "well-formed", case(SUBMITTED), Outcome.PASS, says="3 well-formed"),
    Proof(
        "HTTP-JSON-REQUEST", "a2a-json-body", case(CONFORMANT, "--binding", "http+json", supports=REST), Outcome.PASS
    ),
    Proof("BODY-SHAPE", "1.0-message", case(CONFORMANT), Outcome.PASS),
    Proof("BODY-SHAPE", "0.3-message", case(V03_TASK), Outcome.PASS),
    Proof(
        "MESSAGE-ID-UNIQUE",
        "two-messages-two-ids",
        case(CONFORMANT, "--messages", "2"),
        Outcome.PASS,
        says="2 distinct",
    ),
    # Regression: a retry resends the same message under a new JSON-RPC id; that is not reuse for a different message.
    Proof(
        "MESSAGE-ID-UNIQUE",
        "retry-resends-the-same-message",
        case("transient-error", "--retries", "1"),
        Outcome.PASS,
        says="1 distinct",
    ),
    Proof("NO-POLL-AFTER-MESSAGE", "message-is-the-answer", case(MIXED), Outcome.PASS),
    Proof(
        "INVALID-ANSWER-IGNORED",
        "goes-on-without-the-wrong-ids-task",
        case(WRONG_ID, "--messages", "2"),
        Outcome.PASS,
        says="without following",
    ),
    Proof("GIVES-UP", "read-timeout", case(NEVER_ANSWERS), Outcome.PASS, says="by itself"),
    Proof("POLL-BOUNDED", "polite-until-completed", case(SUBMITTED), Outcome.PASS),
    Proof("POLL-BOUNDED", "gives-up-on-a-stuck-task", case("working-forever"), Outcome.PASS),
    Proof("FOLLOW-UP-TO-END", "polls-submitted-task", case(SUBMITTED), Outcome.PASS),
    # The task ends before the first follow-up: a refused subscription, then GetTask (1.0 and 0.3 forms).
    Proof("FOLLOW-UP-TO-END", "subscribe-refused-then-get-task", case(ENDED_EARLY, "--subscribe"), Outcome.PASS),
    Proof(
        "FOLLOW-UP-TO-END", "resubscribe-refused-then-tasks-get-0.3", case(ENDED_EARLY_03, "--subscribe"), Outcome.PASS
    ),
    Proof("FOLLOW-UP-TO-END", "polls-a-task-that-ended-early", case(ENDED_EARLY), Outcome.PASS),
    Proof(
        "CONTEXT-ID-INVENTED", "no-context-id-of-its-own", case(CONFORMANT), Outcome.PASS, says="without a contextId"
    ),
    Proof("CONTEXT-ID-INVENTED", "0.3-no-context-id-of-its-own", case(V03_TASK), Outcome.PASS),
    # A follow-up sends the task's own contextId back: issued by the server, so not invented.
    Proof(
        "CONTEXT-ID-INVENTED", "follow-up-with-the-tasks-context", case("responses/multi-turn-follow-up"), Outcome.PASS
    ),
    Proof("INTERRUPTED-HANDLED", "reports-input-required", case("interrupted"), Outcome.PASS, says="INPUT_REQUIRED"),
    Proof("NO-RETRY-LOOP", "gives-up-once", case(METHOD_NOT_FOUND), Outcome.PASS),
    Proof(
        "FALLBACK",
        "jsonrpc-to-http-json",
        case("fallback", "--binding", "jsonrpc", "--binding", "http+json", supports=BOTH_1_0),
        Outcome.PASS,
    ),
    Proof("CAPABILITIES-RESPECTED", "streams-where-offered", case(CONFORMANT, "--stream"), Outcome.PASS),
    # Asked to stream (A2A_LAB_ACTION) by an agent whose card does not offer it, the client keeps to SendMessage.
    Proof(
        "CAPABILITIES-RESPECTED",
        "keeps-to-the-card-when-asked",
        case("streaming/not-advertised", "--stream"),
        Outcome.PASS,
        says="kept to",
    ),
    Proof("CLIENT-SURVIVES", "ended-by-itself", case("survives"), Outcome.PASS, says="ended by itself"),
    Proof("RESULT-MATCHES", "completed-task", case(CONFORMANT), Outcome.PASS, says="COMPLETED"),
    Proof("RESULT-MATCHES", "direct-message", case(MIXED), Outcome.PASS),
    Proof("RESULT-MATCHES", "reported-error", case(METHOD_NOT_FOUND), Outcome.PASS, says="error"),
    Proof("RESULT-MATCHES", "message-without-text", case("data-message"), Outcome.PASS),
    Proof("RESULT-MATCHES", "no-result-written", case(CONFORMANT, "--no-result"), Outcome.UNIMPLEMENTED),
    Proof("CLIENT-INFO", "correct-client", case(CONFORMANT), Outcome.INFORMATIONAL, says="a2a-lab-fake-client/1.0"),
    # RESULT-EXPECTED and MULTI-TURN (the catalogue's `expect` and A2A_LAB_ACTION follow_up).
    Proof(
        "RESULT-EXPECTED",
        "reports-the-garbage-as-error",
        case("errors/html-500-page"),
        Outcome.PASS,
        says="expected conclusion",
    ),
    Proof(
        "RESULT-EXPECTED", "leaves-a-cardless-agent-alone", case("discovery/no-card"), Outcome.PASS, says="no A2A call"
    ),
    Proof(
        "RESULT-EXPECTED",
        "either-refuses-or-uses-a-big-card",
        case("discovery/oversize-card"),
        Outcome.PASS,
        says="left the agent alone",
    ),
    Proof("RESULT-EXPECTED", "interrupted-state", case("responses/input-required"), Outcome.PASS),
    Proof(
        "MULTI-TURN",
        "answers-on-the-same-task",
        case("responses/multi-turn-follow-up"),
        Outcome.PASS,
        says="continued task",
    ),
    Proof("MULTI-TURN", "writes-to-the-finished-task", case("errors/message-to-terminal-task"), Outcome.PASS),
    # NEW-TASK and CANCEL-TASK (A2A_LAB_ACTION new_message and cancel; more in tests/scenarios/test_action_quirks.py).
    Proof(
        "NEW-TASK",
        "new-message-names-no-task",
        case("quirks/input-required-then-unrelated-message"),
        Outcome.PASS,
        says="named no task",
    ),
    Proof(
        "CANCEL-TASK", "cancels-the-open-task", case("quirks/cancel-races-completion"), Outcome.PASS, says="canceled"
    ),
    Proof("AUTH-SCHEME-HONOURED", "api-key-in-the-query", case(API_KEY_QUERY), Outcome.PASS, says="API key"),
    Proof("AUTH-SCHEME-HONOURED", "basic", case("auth/basic"), Outcome.PASS, says="HTTP basic"),
    Proof("NO-CREDENTIAL-LEAK", "each-credential-to-its-origin", case(OTHER_ORIGIN), Outcome.PASS, says="where"),
    Proof("TOKEN-LIFECYCLE", "renews-after-401", case(EXPIRING), Outcome.PASS, says="token 2"),
    Proof("NO-CREDENTIAL-LEAK", "key-only-to-the-agents-origin", case(KEYED_ELSEWHERE), Outcome.PASS, says="where"),
    # A client that long-polls from generation 1 uses a generation the 1.1 agent gave (the same defect FAILs against
    # a server without generations, below).
    Proof(
        "GENERATION-UNKNOWN-NOT-USED",
        "used-where-given",
        defect(LONG_POLL, "assume-generations"),
        Outcome.PASS,
        says="the agent had given 1",
    ),
    Proof("GENERATION-LONG-POLL", "from-generation-1", defect(LONG_POLL, "assume-generations"), Outcome.PASS),
    # A stale precondition stands for a task another client moved: refused, re-read, answered again.
    Proof(
        "GENERATION-MISMATCH-REFETCH",
        "re-reads-then-answers",
        defect(IF_MATCH, "stale-generation"),
        Outcome.PASS,
        says="followed by a GetTask",
    ),
]

FAILS = [
    Proof(
        "GENERATION-MISMATCH-REFETCH",
        "sends-again-blind",
        defect(IF_MATCH, "stale-generation", "--defect", "mismatch-blind-retry"),
        Outcome.NON_STRICT,
        Outcome.FAIL,
        "without re-reading",
    ),
    Proof(
        "GENERATION-UNKNOWN-NOT-USED",
        "long-polls-a-server-without-generations",
        defect(GENERATIONS_UNKNOWN, "assume-generations"),
        Outcome.FAIL,
        Outcome.FAIL,
        "gave no generation",
    ),
    Proof(
        "GENERATION-LONG-POLL",
        "plain-polling",
        case(LONG_POLL),
        Outcome.UNIMPLEMENTED,
        says="none with currentGeneration",
    ),
    Proof(
        "CARD-DISCOVERY", "no-card", defect(MIXED, "no-card"), Outcome.FAIL, Outcome.FAIL, "without reading its card"
    ),
    # Regression: a 404 on a card path the client guessed used to count as reading the card.
    Proof(
        "CARD-DISCOVERY",
        "only-a-404-card",
        defect(MIXED, "legacy-card-path"),
        Outcome.FAIL,
        Outcome.FAIL,
        "agent.json (404)",
    ),
    Proof(
        "INTERFACE-SELECTION",
        "last-interface",
        defect(MIXED, "ignore-interfaces"),
        Outcome.FAIL,
        Outcome.FAIL,
        "JSONRPC 0.3",
    ),
    Proof(
        "INTERFACE-SELECTION",
        "last-interface-other-binding",
        defect(CONFORMANT, "ignore-interfaces"),
        Outcome.FAIL,
        Outcome.FAIL,
        "GRPC 1.0",
    ),
    Proof("URL-FROM-CARD", "wrong-url", defect(CONFORMANT, "wrong-url"), Outcome.FAIL, Outcome.FAIL, "POST /wrong"),
    Proof("TENANT", "jsonrpc-drops-tenant", case("tenant", "--drop-tenant"), Outcome.FAIL, Outcome.FAIL),
    Proof(
        "TENANT",
        "http-json-drops-tenant",
        case("tenant", "--binding", "http+json", "--drop-tenant", supports=REST),
        Outcome.FAIL,
        Outcome.FAIL,
    ),
    Proof(
        "TENANT", "jsonrpc-invents-tenant", case("tenantless", "--send-tenant"), Outcome.FAIL, Outcome.FAIL, "intruder"
    ),
    Proof(
        "TENANT",
        "http-json-invents-tenant",
        case("tenantless", "--binding", "http+json", "--send-tenant", supports=REST),
        Outcome.FAIL,
        Outcome.FAIL,
        "intruder",
    ),
    Proof("VERSION-HEADER", "no-header", defect(CONFORMANT, "no-header"), Outcome.FAIL, Outcome.FAIL, "header absent"),
    Proof(
        "VERSION-HEADER",
        "patch-version",
        defect(CONFORMANT, "patch-header"),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "1.0.1",
    ),
    # An absent header is quoted as absent, never as a Python None.
    Proof(
        "VERSION-MATCHES-METHOD",
        "no-header-on-1.0-method",
        defect(CONFORMANT, "no-header"),
        Outcome.FAIL,
        Outcome.FAIL,
        "A2A-Version: absent",
    ),
    Proof(
        "VERSION-MATCHES-METHOD",
        "0.3-header-on-1.0-method",
        defect(CONFORMANT, "wrong-header"),
        Outcome.FAIL,
        Outcome.FAIL,
        "'0.3'",
    ),
    Proof(
        "METHOD-MATCHES-INTERFACE",
        "1.0-method-on-0.3",
        defect(V03_TASK, "v1-method-on-v03"),
        Outcome.FAIL,
        Outcome.FAIL,
        "SendMessage (A2A 1.0)",
    ),
    Proof(
        "JSONRPC-ENVELOPE", "jsonrpc-1.0", defect(CONFORMANT, "bad-envelope"), Outcome.FAIL, Outcome.FAIL, '"jsonrpc"'
    ),
    # A Request without id is a Notification (JSON-RPC 2.0 §4.1): legal, discouraged for calls that need an answer.
    Proof(
        "JSONRPC-ENVELOPE", "no-id", defect(CONFORMANT, "no-id"), Outcome.NON_STRICT, Outcome.NON_STRICT, "Notification"
    ),
    Proof(
        "JSONRPC-ENVELOPE",
        "null-id",
        defect(CONFORMANT, "null-id"),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "SHOULD NOT be NULL",
    ),
    Proof(
        "JSONRPC-ENVELOPE",
        "text-plain",
        defect(CONFORMANT, "wrong-content-type"),
        Outcome.FAIL,
        Outcome.FAIL,
        "text/plain",
    ),
    # §11.1: application/a2a+json SHOULD be used (1.0); 0.3 §3.2.3 says MUST use application/json.
    Proof(
        "HTTP-JSON-REQUEST",
        "text-plain",
        defect(CONFORMANT, "wrong-content-type", "--binding", "http+json", supports=REST),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "text/plain",
    ),
    Proof(
        "HTTP-JSON-REQUEST",
        "get-with-a-body",
        defect(SUBMITTED, "get-with-body", "--binding", "http+json", supports=REST),
        Outcome.FAIL,
        Outcome.FAIL,
        "GET with a body",
    ),
    Proof(
        "BODY-SHAPE",
        "0.3-body-under-1.0",
        defect(CONFORMANT, "v03-body-under-v1"),
        Outcome.FAIL,
        Outcome.FAIL,
        "ROLE_USER",
    ),
    Proof(
        "MESSAGE-ID-UNIQUE",
        "reused-id",
        defect(CONFORMANT, "duplicate-message-id"),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "twice",
    ),
    Proof(
        "MESSAGE-ID-UNIQUE",
        "no-message-id",
        defect(CONFORMANT, "no-message-id"),
        Outcome.FAIL,
        Outcome.FAIL,
        "without messageId",
    ),
    Proof(
        "NO-POLL-AFTER-MESSAGE",
        "polls-after-message",
        defect(MIXED, "poll-after-message"),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "GetTask",
    ),
    Proof(
        "POLL-BOUNDED",
        "polls-past-completed",
        defect(SUBMITTED, "get-task-loop"),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "after it",
    ),
    Proof(
        "POLL-BOUNDED",
        "unbounded",
        defect("working-forever", "get-task-loop"),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "50 calls",
    ),
    Proof(
        "POLL-BOUNDED",
        "too-fast",
        case("working-forever", "--polls", "20", "--poll-gap", "0"),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "over 20 calls",
    ),
    Proof(
        "FOLLOW-UP-TO-END",
        "no-follow-up",
        defect(SUBMITTED, "no-follow-up"),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "nothing for task",
    ),
    Proof(
        "FOLLOW-UP-TO-END",
        "gives-up-when-subscribe-is-refused",
        defect(ENDED_EARLY, "subscribe-no-fallback"),
        Outcome.NON_STRICT,
        Outcome.FAIL,
        "answered error -32004",
    ),
    Proof(
        "FOLLOW-UP-TO-END",
        "gives-up-when-resubscribe-is-refused-0.3",
        defect(ENDED_EARLY_03, "subscribe-no-fallback"),
        Outcome.NON_STRICT,
        Outcome.FAIL,
        "answered error -32004",
    ),
    Proof(
        "CONTEXT-ID-INVENTED",
        "own-context-id-1.0",
        defect(CONFORMANT, "invent-context-id"),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "fake-client-own-context",
    ),
    Proof(
        "CONTEXT-ID-INVENTED",
        "own-context-id-0.3",
        defect(V03_TASK, "invent-context-id"),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "fake-client-own-context",
    ),
    Proof(
        "INTERRUPTED-HANDLED",
        "reported-as-failure",
        defect("interrupted", "interrupted-as-failure"),
        Outcome.NON_STRICT,
        Outcome.FAIL,
        "'failed'",
    ),
    Proof(
        "NO-RETRY-LOOP",
        "retries-five-times",
        defect(METHOD_NOT_FOUND, "retry-loop"),
        Outcome.FAIL,
        Outcome.FAIL,
        "5 repeats",
    ),
    Proof(
        "FALLBACK",
        "gives-up",
        defect("fallback", "no-fallback", "--binding", "jsonrpc", "--binding", "http+json", supports=BOTH_1_0),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "no other interface tried",
    ),
    Proof(
        "CAPABILITIES-RESPECTED",
        "streams-without-capability",
        defect(MIXED, "stream-without-capability"),
        Outcome.NON_STRICT,
        None,
        "capabilities.streaming",
    ),
    Proof("CLIENT-SURVIVES", "stack-trace", defect("survives", "crash"), Outcome.FAIL, says="Traceback"),
    Proof("RESULT-MATCHES", "wrong-state", defect(CONFORMANT, "wrong-result"), Outcome.FAIL, Outcome.FAIL, "'failed'"),
    Proof("RESULT-MATCHES", "wrong-text", defect(MIXED, "wrong-result"), Outcome.FAIL, Outcome.FAIL, "never gave"),
    # Regression: a server answer without text used to excuse any text the client claimed (empty string is "in"
    # everything).
    Proof(
        "RESULT-MATCHES",
        "text-the-server-never-sent",
        defect("data-message", "wrong-result"),
        Outcome.FAIL,
        Outcome.FAIL,
        "never gave",
    ),
    # Regression: an unreadable result file used to be scored as if none had been written (UNIMPLEMENTED).
    Proof(
        "RESULT-MATCHES",
        "unreadable-result",
        defect(CONFORMANT, "garbled-result"),
        Outcome.FAIL,
        Outcome.FAIL,
        "not JSON",
    ),
    # Issue 13: a result nested 500 000 levels deep, or a directory where the file should be, ended the scenario as a
    # harness ERROR (RecursionError, IsADirectoryError); now it is unreadable like any other.
    Proof(
        "RESULT-MATCHES",
        "deeply-nested-result",
        defect(CONFORMANT, "nested-result"),
        Outcome.FAIL,
        Outcome.FAIL,
        "nested deeper than 32 levels",
    ),
    Proof(
        "RESULT-MATCHES",
        "result-is-a-directory",
        defect(CONFORMANT, "directory-result"),
        Outcome.FAIL,
        Outcome.FAIL,
        "not a regular file",
    ),
    # INFORMATIONAL never fails: a thoroughly broken client is still only described.
    Proof(
        "CLIENT-INFO",
        "defective-client",
        defect(CONFORMANT, "wrong-url"),
        Outcome.INFORMATIONAL,
        Outcome.FAIL,
        "a2a-lab-fake-client/1.0",
    ),
    Proof(
        "CLIENT-INFO",
        "crashing-client",
        defect(CONFORMANT, "crash"),
        Outcome.INFORMATIONAL,
        Outcome.NO_CONTACT,
        "exit code 3",
    ),
    # RESULT-EXPECTED and MULTI-TURN.
    Proof(
        "RESULT-EXPECTED",
        "garbage-taken-as-an-answer",
        defect("errors/html-500-page", "assume-success"),
        Outcome.FAIL,
        Outcome.FAIL,
        "kind: error",
    ),
    Proof(
        "RESULT-EXPECTED",
        "guesses-without-a-card",
        defect("discovery/no-card", "guess-without-card"),
        Outcome.FAIL,
        Outcome.FAIL,
        "no A2A call",
    ),
    Proof(
        "RESULT-EXPECTED",
        "interrupted-reported-as-failed",
        defect("responses/input-required", "interrupted-as-failure"),
        Outcome.FAIL,
        Outcome.FAIL,
        "INPUT_REQUIRED",
    ),
    Proof(
        "RESULT-EXPECTED",
        "no-result-written",
        case("errors/html-500-page", "--no-result"),
        Outcome.UNIMPLEMENTED,
        Outcome.UNIMPLEMENTED,  # the scenario's point is not on the wire: not judged, never PASS
    ),
    # Taking the task of a JSON-RPC response that is not one shows when the client follows that task up.
    Proof(
        "INVALID-ANSWER-IGNORED",
        "follows-the-task-of-a-wrong-id",
        defect(WRONG_ID, "lax-response", "--no-result"),
        Outcome.FAIL,
        Outcome.FAIL,
        "only an invalid answer named",
    ),
    Proof(
        "INVALID-ANSWER-IGNORED",
        "follows-the-task-of-result-and-error",
        defect("errors/result-and-error", "lax-response", "--no-result"),
        Outcome.FAIL,
        Outcome.FAIL,
        "both `result` and `error`",
    ),
    Proof(
        "INVALID-ANSWER-IGNORED",
        "stops-after-the-answer",
        case(WRONG_ID, "--no-result"),
        Outcome.UNIMPLEMENTED,
        Outcome.UNIMPLEMENTED,
        "is not shown",
    ),
    Proof(
        "GIVES-UP",
        "waits-forever",
        defect(NEVER_ANSWERS, "no-timeout", timeout=3),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,  # the hang is the scenario's subject: judged, not TIMEOUT
        "still waiting",
    ),
    # A result that leaves the state out (many libraries never tell their caller a task's state) is judged on what it
    # gives: the state is not reported, never a mismatch, and no message shows Python's None.
    Proof(
        "RESULT-EXPECTED",
        "result-without-state",
        defect("responses/input-required", "result-without-state"),
        Outcome.UNIMPLEMENTED,
        None,
        "does not report the task's state",
    ),
    Proof(
        "RESULT-MATCHES",
        "result-without-state",
        defect("responses/input-required", "result-without-state"),
        Outcome.PASS,
        None,
        "its state is not reported",
    ),
    Proof(
        "STREAM-READ-TO-END",
        "abandons-the-stream-at-an-unknown-event",
        defect("unknown-event", "abandon-unknown-event", "--stream"),
        Outcome.NON_STRICT,
        Outcome.FAIL,  # and so it cannot tell the outcome: RESULT-EXPECTED
        "before its terminal event",
    ),
    # The lab's own contract, graded no stronger than the misunderstanding: right kind and state, no text.
    Proof(
        "RESULT-EXPECTED",
        "right-state-without-the-text",
        defect("responses/input-required", "result-without-text"),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "kind and state are right",
    ),
    Proof(
        "MULTI-TURN",
        "follow-up-starts-a-new-task",
        defect("responses/multi-turn-follow-up", "follow-up-new-task"),
        Outcome.NON_STRICT,
        None,
        "no taskId",
    ),
    Proof(
        "NEW-TASK",
        "new-message-bound-to-the-waiting-task",
        defect("quirks/input-required-then-unrelated-message", "new-message-bound"),
        Outcome.FAIL,
        Outcome.FAIL,
        "INPUT_REQUIRED",
    ),
    Proof(
        "CANCEL-TASK",
        "cancels-an-invented-task",
        defect("quirks/cancel-races-completion", "cancel-unknown-task"),
        Outcome.FAIL,
        Outcome.FAIL,
        "never created",
    ),
    Proof(
        "MULTI-TURN",
        "invented-task-id",
        defect("responses/multi-turn-follow-up", "follow-up-unknown-task"),
        Outcome.FAIL,
        Outcome.FAIL,
        "never created",
    ),
    Proof(
        "MULTI-TURN",
        "foreign-context-id",
        defect("responses/multi-turn-follow-up", "follow-up-wrong-context"),
        Outcome.FAIL,
        Outcome.FAIL,
        "contextId",
    ),
    Proof(
        "AUTH-SCHEME-HONOURED",
        "api-key-wrong-place",
        defect(API_KEY_QUERY, "api-key-wrong-place"),
        Outcome.FAIL,
        Outcome.FAIL,
        "came in the header",
    ),
    Proof(
        "NO-CREDENTIAL-LEAK",
        "token-to-wrong-origin",
        defect(OTHER_ORIGIN, "token-to-wrong-origin"),
        Outcome.FAIL,
        Outcome.FAIL,
        "authorization server",
    ),
    Proof(
        "NO-CREDENTIAL-LEAK",
        "credentials-to-card-origin",
        defect(KEYED_ELSEWHERE, "credentials-to-card-origin"),
        Outcome.FAIL,
        Outcome.FAIL,
        "no interface of the card is on that origin",
    ),
    Proof(
        "NO-CREDENTIAL-LEAK",
        "api-key-on-another-origins-card-fetch",
        defect(KEYED_ELSEWHERE, "token-to-wrong-origin"),
        Outcome.FAIL,
        Outcome.FAIL,
        "card fetch",
    ),
    Proof(
        "TOKEN-LIFECYCLE",
        "token-per-request",
        defect(EXPIRING, "token-per-request"),
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "still worked",
    ),
    Proof(
        "TOKEN-LIFECYCLE",
        "token-without-scope",
        defect("auth/oauth2-client-credentials", "token-without-scope"),
        Outcome.FAIL,
        Outcome.FAIL,
        "scope",
    ),
    # Not acting on the request is not a mistake in itself (the conclusion then is: RESULT-EXPECTED fails it).
    Proof(
        "MULTI-TURN",
        "ignores-the-request",
        case("responses/multi-turn-follow-up", "--ignore-action"),
        Outcome.UNIMPLEMENTED,
        Outcome.PASS,
        "no follow-up",
    ),
]


@pytest.fixture(scope="module")
def outcomes(run_client: Callable[..., list[ScenarioResult]]) -> dict[Case, ScenarioResult]:
    """Every distinct case run once, in parallel (each with its own server and process)."""
    cases = sorted({p.case for p in PASSES + FAILS}, key=str)

    def one(c: Case) -> ScenarioResult:
        return run_client(c.scenario, *c.args, supports=c.supports, timeout=c.timeout)[0]

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(cases, pool.map(one, cases), strict=True))


@pytest.mark.parametrize("proof", PASSES, ids=lambda p: f"{p.check}:{p.name}")
def test_a_correct_client_passes(proof: Proof, outcomes: dict[Case, ScenarioResult]) -> None:
    verify(proof, outcomes)
    result = outcomes[proof.case]
    # The fake client is correct by default: nothing else in the scenario may be judged against it.
    assert result.outcome is Outcome.PASS, (
        explain(result, None)
        + "\n"
        + "\n".join(
            f"{c.id} {c.outcome.value}: {c.message} / {c.actual}" for c in result.checks if c.outcome not in UNJUDGED
        )
    )


@pytest.mark.parametrize("proof", FAILS, ids=lambda p: f"{p.check}:{p.name}")
def test_a_defective_client_fails(proof: Proof, outcomes: dict[Case, ScenarioResult]) -> None:
    verify(proof, outcomes)
    check = outcomes[proof.case].check(proof.check)
    assert check is not None
    if check.outcome in (Outcome.FAIL, Outcome.NON_STRICT):
        assert check.expected and check.actual, "a miss states what was expected and what was seen"


def test_every_check_has_both_proofs() -> None:
    """Every check in the catalogue is proven here or in test_checks_actions.py (the action checks)."""
    from .test_checks_actions import FAILS as ACTION_FAILS
    from .test_checks_actions import PASSES as ACTION_PASSES
    from .test_checks_tls import FAILS as TLS_FAILS
    from .test_checks_tls import PASSES as TLS_PASSES

    # Proof types (run in-process here, through the runner there) with the same check/outcome fields.
    passes: list[Any] = [*PASSES, *ACTION_PASSES, *TLS_PASSES]
    fails: list[Any] = [*FAILS, *ACTION_FAILS, *TLS_FAILS]
    ids = {c.id for c in client_checks()}
    assert {p.check for p in passes} == ids
    assert {p.check for p in fails} == ids
    for check in client_checks():
        # A judged check is proven by a miss at its own level; an INFO check by staying INFORMATIONAL; a MAY (an
        # opt-in the client may decline) by UNIMPLEMENTED.
        wanted = {
            "MUST": Outcome.FAIL,
            "SHOULD": Outcome.NON_STRICT,
            "INFO": Outcome.INFORMATIONAL,
            "MAY": Outcome.UNIMPLEMENTED,
        }[check.level.value]
        assert any(p.check == check.id and p.outcome is wanted for p in fails), check.id


def test_checks_that_do_not_apply_are_skipped(outcomes: dict[Case, ScenarioResult]) -> None:
    """The other side of a proof: a check that judges a situation says SKIPPED when the situation never arises."""
    mixed = outcomes[case(MIXED)]
    for check_id in (
        "POLL-BOUNDED",
        "FOLLOW-UP-TO-END",
        "INTERRUPTED-HANDLED",
        "NO-RETRY-LOOP",
        "FALLBACK",
        "CAPABILITIES-RESPECTED",
        "HTTP-JSON-REQUEST",
    ):
        checked = mixed.check(check_id)
        assert checked is not None and checked.outcome is Outcome.SKIPPED, check_id
    v03 = outcomes[case(V03_TASK)]
    checked = v03.check("VERSION-HEADER")  # 0.3 clients send no header
    assert checked is not None and checked.outcome is Outcome.SKIPPED


def test_a_failure_quotes_the_offending_request(outcomes: dict[Case, ScenarioResult]) -> None:
    result = outcomes[defect(CONFORMANT, "no-header")]
    check = result.check("VERSION-HEADER")
    assert check is not None and check.evidence
    assert check.quote.startswith("POST /a2a/jsonrpc") and "SendMessage" in check.quote
    assert check.requirement and check.section


def test_client_info_records_the_user_agent_and_exit_code(outcomes: dict[Case, ScenarioResult]) -> None:
    info = outcomes[case(CONFORMANT)].check("CLIENT-INFO")
    assert info is not None and info.outcome is Outcome.INFORMATIONAL
    assert (
        "user-agent a2a-lab-fake-client/1.0" in info.message
        and "exit code 0" in info.message
        and "JSONRPC 1.0" in info.message
    )
    crashed = outcomes[defect(CONFORMANT, "crash")].check("CLIENT-INFO")
    assert crashed is not None and "(no request)" in crashed.message


def test_the_retry_proof_really_retried(outcomes: dict[Case, ScenarioResult]) -> None:
    result = outcomes[case("transient-error", "--retries", "1")]
    sends = [json.loads(e["body"]["text"]) for e in result.journal if e.get("operation") == "SendMessage"]
    assert len(sends) == 2 and sends[0]["id"] != sends[1]["id"]
    assert sends[0]["params"]["message"] == sends[1]["params"]["message"]
