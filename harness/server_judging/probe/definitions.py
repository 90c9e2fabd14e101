"""The probe's checks: stable ids, a level, the spec text each stands on, and how a miss is graded.

These judge a *server* (the client checks in harness/checks judge clients); they share the result model
(CheckResult, Outcome, Level) and so every report format, but not the list of client checks.

Throughout: a call the server refuses for want of credentials (HTTP 401/403, §3.3.2) leaves its check SKIPPED
("not judged"), never FAIL; the probe presents credentials only when given some. AUTH-ENFORCED alone judges the
refusal itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from a2a_lab.harness.common.model import CheckResult, Level, Outcome

_MISS = {
    Level.MUST: Outcome.FAIL,
    Level.SHOULD: Outcome.NON_STRICT,
    Level.MAY: Outcome.INFORMATIONAL,
    Level.INFO: Outcome.INFORMATIONAL,
}


@dataclass(frozen=True)
class ProbeCheck:
    id: str
    level: Level
    section: str
    title: str
    requirement: str
    #: Why an outcome differs from the level's usual one, when it can.
    grading: str = ""
    #: What a correct server does, in one sentence in a server author's terms (reports lead with it).
    rule: str = ""
    #: How to change the server (or its card) when it misses.
    fix: str = ""

    def result(
        self, outcome: Outcome, message: str, expected: str = "", actual: str = "", evidence: list[int] | None = None
    ) -> CheckResult:
        return CheckResult(
            self.id,
            self.level,
            outcome,
            message,
            self.section,
            self.requirement,
            expected,
            actual,
            evidence or [],
            rule=self.rule,
            fix=self.fix,
        )

    def passed(self, message: str, evidence: list[int] | None = None) -> CheckResult:
        return self.result(Outcome.PASS, message, evidence=evidence)

    def skipped(self, message: str) -> CheckResult:
        return self.result(Outcome.SKIPPED, message)

    def broken(self, message: str, expected: str, actual: str, evidence: list[int] | None = None) -> CheckResult:
        """The outcome a miss earns at this check's level (FAIL for a MUST)."""
        return self.result(_MISS[self.level], message, expected, actual, evidence)

    def lenient(self, message: str, expected: str, actual: str, evidence: list[int] | None = None) -> CheckResult:
        """A miss of a SHOULD inside a MUST check (see `grading`)."""
        return self.result(Outcome.NON_STRICT, message, expected, actual, evidence)


CARD_VALID = ProbeCheck(
    "CARD-VALID",
    Level.MUST,
    "A2A 1.0 §4.4.1, §8.2, §8.3; 0.3 §5.5 (`a2a-lab card check`)",
    "The agent card is usable",
    "The card at the well-known URI is a JSON object with the required fields of its shape (1.0, 0.3 or dual), "
    "interfaces with a binding, a URL and a Major.Minor version, and security requirements that name defined schemes.",
    "Lint errors are FAIL; warnings alone (a version mix, a patch digit, a non-JSON content type, the legacy card "
    "path) are NON_STRICT: clients cope with them (field note S1). The URL policy is lenient for a loopback target, "
    "else strict.",
    rule=(
        "A server publishes at the well-known URI a JSON card with every required field of its shape, "
        "interfaces with a binding, a URL and a Major.Minor version, and security requirements that name "
        "defined schemes."
    ),
    fix=(
        "Run `a2a-lab card check` on the card and mend each error it names; serve it as application/json at "
        "/.well-known/agent-card.json."
    ),
)
SEND_MESSAGE = ProbeCheck(
    "SEND-MESSAGE",
    Level.MUST,
    "A2A 1.0 §3.1.1, §5.3, §9.4.1, §11.3; 0.3 §7.1 message/send",
    "SendMessage is answered",
    "One message in the interface's version and binding (the method or route the card advertises) gets a Message or a "
    'Task. "Method not found" (-32601, or HTTP 404/405) for an advertised method means the card claims what the server '
    "does not do.",
    "When the advertised method is not found, the probe tries the other version's method at the same URL once, to name "
    "what the wire really speaks. A refusal for want of credentials (HTTP 401/403) is SKIPPED, not judged.",
    rule="A server answers SendMessage, in the version and binding each interface declares, with a Message or a Task.",
    fix=(
        "Serve the method or route the card advertises at the URL it declares, in that interface's version, "
        "or stop advertising the interface."
    ),
)
RESPONSE_SHAPE = ProbeCheck(
    "RESPONSE-SHAPE",
    Level.MUST,
    "A2A 1.0 §5.5, §9.4.1, §11 (ProtoJSON); 0.3 §6, T03 (kind discriminators)",
    "Answers have the version's shape",
    'The SendMessage and GetTask answers are in the interface\'s form: 1.0 wraps the SendMessage result ({"task"} or '
    '{"message"}), spells enums TASK_STATE_* / ROLE_* and has no `kind`; 0.3 JSON-RPC answers a bare Task or Message '
    "whose objects name their `kind`, with lowercase states; 0.3 HTTP+JSON is the ProtoJSON of the 0.3 proto.",
    rule=(
        "A server writes its SendMessage and GetTask answers in the form of the interface's version: 1.0 "
        "wraps the SendMessage result and spells enums in full without `kind`; 0.3 JSON-RPC names every "
        "object's `kind`."
    ),
    fix=(
        "Serialize answers with the proto of the version the interface declares (an SDK's own serializer for "
        "that version), not another version's models."
    ),
)
TASK_FOLLOW_UP = ProbeCheck(
    "TASK-FOLLOW-UP",
    Level.MUST,
    "A2A 1.0 §3.1.3 GetTask, §4.1.3 TaskState (the lifecycle); 0.3 §7.3 tasks/get",
    "A returned task can be fetched",
    "A task SendMessage returned can be fetched with GetTask: the answer is that task (the same id); a terminal task "
    "keeps its state. A task still moving is followed a few times (politely) to show it move on.",
    rule="A server answers GetTask on a task it returned with that task, and a terminal task keeps its state.",
    fix=(
        "Keep every task you return fetchable by its id for as long as a client may follow it up, and never "
        "change a terminal task's state."
    ),
)
UNKNOWN_TASK = ProbeCheck(
    "UNKNOWN-TASK",
    Level.MUST,
    "A2A 1.0 §3.1.3, §3.1.5, §3.3.2, §5.4, §11.6; 0.3 §8.2",
    "Unknown task ids answer TaskNotFound",
    "GetTask and CancelTask on an id the server never issued answer TaskNotFoundError: JSON-RPC -32001, or HTTP 404 "
    'with ErrorInfo reason TASK_NOT_FOUND (1.0); not "method not found", and not a task.',
    "Harmless by construction: the id is a fresh one no server issued, so nothing real is cancelled.",
    rule="A server answers GetTask and CancelTask on an id it never issued with TaskNotFoundError.",
    fix=(
        "Look the id up and answer -32001 (HTTP+JSON: 404 with ErrorInfo reason TASK_NOT_FOUND) when there is"
        " no such task."
    ),
)
STREAMING = ProbeCheck(
    "STREAMING",
    Level.MUST,
    "A2A 1.0 §3.1.2, §9.4.2, §11.7; 0.3 §7.2 message/stream",
    "Streams are well-formed and end",
    "When the card declares capabilities.streaming, SendStreamingMessage answers a text/event-stream whose first event "
    "is a task or a message, whose events have the version's form, and which the server closes after a terminal state "
    "(or after the one message; closing at INPUT_REQUIRED / AUTH_REQUIRED is accepted, notes D2; one final task "
    "snapshot after the terminal state is allowed, §11.7).",
    "SKIPPED when the card does not declare streaming.",
    rule=(
        "A server that declares streaming answers SendStreamingMessage with an event stream whose first event"
        " is a task or a message and which it closes after the terminal state."
    ),
    fix=(
        "Send the task snapshot first, each event in the interface's form, and close the stream once the task"
        " is terminal (or after the one message)."
    ),
)
VERSION_NEGOTIATION = ProbeCheck(
    "VERSION-NEGOTIATION",
    Level.MUST,
    "A2A 1.0 §3.6.1, §3.6.2 (absent means 0.3), §3.3.2 VersionNotSupportedError",
    "Unsupported versions are refused",
    "On a 1.0 interface, a request without A2A-Version (which means 0.3) and one with A2A-Version: 9.9 are refused "
    "with VersionNotSupportedError: JSON-RPC -32009, or HTTP 400 with ErrorInfo reason VERSION_NOT_SUPPORTED. (The "
    "probe asks GetTask for an unknown id, so a server that serves the request anyway answers TaskNotFound.)",
    "Served anyway is FAIL; refused with another error (-32601, a 404, no reason) is NON_STRICT: the request was not "
    "served, but a client cannot tell why. SKIPPED on 0.3 interfaces (0.3 has no version header).",
    rule=(
        "A 1.0 server refuses a request whose A2A-Version it does not speak (an absent header means 0.3) with"
        " VersionNotSupportedError."
    ),
    fix=(
        "Read A2A-Version on every request and answer -32009 (HTTP+JSON: 400 with reason "
        "VERSION_NOT_SUPPORTED) for a version the interface does not declare."
    ),
)
ERROR_ENVELOPE = ProbeCheck(
    "ERROR-ENVELOPE",
    Level.MUST,
    "JSON-RPC 2.0 §5, §5.1; A2A 1.0 §9.5, §11.6 (google.rpc.Status); notes D4, D5",
    "Error answers are well-formed",
    "Every error answer seen during the probe is well-formed: JSON-RPC errors are {code: integer, message: string} "
    "with the request's id (or null), and in 1.0 `data` is a list of objects with @type (ErrorInfo for A2A errors); "
    "1.0 HTTP+JSON errors are google.rpc.Status bodies {error: {code, status, message, details}} sent as "
    "application/a2a+json.",
    "SHOULDs of v1.0.1 (ErrorInfo in JSON-RPC data, the application/a2a+json content type on HTTP+JSON errors) are "
    "NON_STRICT; v1.0.0 said application/json (D5). SKIPPED when no error answer was seen.",
    rule=(
        "A server's error answers are well-formed: JSON-RPC {code, message} with the request's id, and in 1.0"
        " google.rpc.Status bodies on HTTP+JSON."
    ),
    fix=(
        "Build every error answer with the binding's error helper of your SDK: an integer code, a string "
        "message, the request's id, ErrorInfo details in 1.0."
    ),
)

AUTH_ENFORCED = ProbeCheck(
    "AUTH-ENFORCED",
    Level.MUST,
    "A2A 1.0 §7.4, §13.1, §3.3.2 (authentication errors: HTTP 401, gRPC UNAUTHENTICATED), §4.5, §8.5; "
    "RFC 9110 §11.6.1, §15.5.2 (a 401 carries WWW-Authenticate)",
    "The card's security is enforced as declared",
    "Where the card requires credentials (securityRequirements without an anonymous `{}` alternative), a call without "
    "any is refused for want of them: HTTP 401 with a WWW-Authenticate challenge (gRPC UNAUTHENTICATED), not served "
    "and not answered with another error. Given credentials (--token, --api-key, --client-credentials), the probe "
    "presents them as a requirement of the card states, and the server accepts them.",
    "Harmless: the call without credentials is GetTask for an id no server issued. 401 without WWW-Authenticate FAILs "
    "(RFC 9110 MUST); 403 for absent credentials, or a challenge naming none of the card's HTTP schemes, is "
    "NON_STRICT. Over gRPC a `www-authenticate` trailer is reported, not required (A2A defines none). SKIPPED when "
    "the card requires nothing; the declared scheme is judged only when the probe holds credentials for it.",
    rule=(
        "A server whose card requires credentials refuses a call without them with HTTP 401 and a "
        "WWW-Authenticate challenge, and accepts the credentials its card declares."
    ),
    fix=(
        "Check credentials before serving any A2A call and answer 401 with WWW-Authenticate naming the card's"
        " scheme; accept exactly what the card's securityRequirements declare."
    ),
)

PUSH_DELIVERY = ProbeCheck(
    "PUSH-DELIVERY",
    Level.MUST,
    "A2A 1.0 §4.3.3 (the payload is a StreamResponse), §13.2 (agents MUST include the credentials from "
    "`authentication`); 0.3 §9.5 (the Task object, the token SHOULD be sent, e.g. X-A2A-Notification-Token)",
    "Push notifications are well-formed and authenticated",
    "Each notification the server sends to a webhook the client registered is a POST whose JSON body is one "
    "StreamResponse (exactly one of task, message, statusUpdate, artifactUpdate, in the HTTP+JSON form; 0.3: the Task "
    "as its JSON-RPC results spell it) about the task the webhook was registered for, carrying the `Authorization` "
    "its config's `authentication` asked for and its `token` in X-A2A-Notification-Token.",
    "Judged only from a live pair (`a2a-lab proxy`): the probe registers no webhook. A missing or wrong token is "
    "NON_STRICT (a SHOULD of 0.3; 1.0 defines no token header). SKIPPED when no notification passed.",
    rule=(
        "A server POSTs each push notification as one StreamResponse about the webhook's task, with the "
        "credentials and token its config asked for."
    ),
    fix=(
        "Send one StreamResponse per notification in the HTTP+JSON form (0.3: the Task), with "
        "`authentication`'s Authorization and the config's token in X-A2A-Notification-Token."
    ),
)

#: Per interface, in report order (CARD-VALID is judged once, in its own `probe/card` result).
INTERFACE_CHECKS = (
    SEND_MESSAGE,
    RESPONSE_SHAPE,
    TASK_FOLLOW_UP,
    UNKNOWN_TASK,
    STREAMING,
    VERSION_NEGOTIATION,
    AUTH_ENFORCED,
    ERROR_ENVELOPE,
)
#: Every probe check, in report order (the `checks` list of the probe's JSON report).
PROBE_CHECKS = (CARD_VALID, *INTERFACE_CHECKS)
#: Checks of the server that only a live pair can judge (`a2a-lab proxy`), after the probe's.
LIVE_CHECKS = (PUSH_DELIVERY,)
