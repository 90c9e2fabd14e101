"""Persona fidelity of the official Python servers: personas/a2a-sdk-python-1.3 against the real a2a-sdk 1.3.0
server (in this process, its default app with the 0.3 compat on) and personas/a2a-sdk-python-0.3 against the real
a2a-sdk 0.3.26 (a subprocess of the sdk03 peer venv; skipped when that is not installed).

The same request set (tests/personas/fidelity.py) goes to both; every difference that remains is named below with
why it stays. A new difference, or an allowance pattern that covers nothing any more, fails the test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest

from . import fidelity
from .fidelity import Accepted, Peer
from .sdk03 import BINDINGS as SDK03_BINDINGS
from .sdk03 import sdk03_server
from .sdk13 import BINDINGS as SDK13_BINDINGS
from .sdk13 import sdk13_server

#: Starlette's own answers where no route matches. The personas' `not_found` gives its plain-text 404 page; what stays
#: different: a wrong method on the card path on 0.3.26 (405 `Method Not Allowed` with `Allow: GET, HEAD`; 1.3's 404
#: page is the persona's `not_found`), the 1.3 app's 307 to an unknown path plus a slash (its JSON-RPC route is `/`),
#: and the 1.3 0.3-compat's missing DELETE push-config route (a2a-lab's endpoints serve that DELETE).
FRAMEWORK_PAGES = "framework 404/405 pages"

ACCEPTED_13 = [
    Accepted(
        FRAMEWORK_PAGES,
        "Starlette's own answers the persona's `not_found` page does not cover (see FRAMEWORK_PAGES).",
        ("unknown path", "rest0.3 push-delete"),
    ),
    Accepted(
        "card Last-Modified",
        "a2a-lab sends Last-Modified beside the card's ETag (conditional requests by date); the SDK a weak ETag only.",
        ("card agent-card.json",),
        ("header last-modified",),
    ),
    Accepted(
        "validation details",
        "the SDK validates the whole message against the proto and lists every field (message_id, role, parts: "
        "'Field is required.') in ErrorInfo metadata and a BadRequest; a2a-lab names the first problem. Same code "
        "and message.",
        ("jsonrpc1.0 wrong-params", "jsonrpc1.0 send-0.3-role", "rest1.0 wrong-params"),
        ("body",),
    ),
    Accepted(
        "missing params",
        "params absent: the SDK answers -32602 'Invalid params' with Python's TypeError text; a2a-lab -32600 (a "
        "request without params is not a valid A2A request object).",
        ("jsonrpc*.* missing-params",),
        ("body",),
    ),
    Accepted(
        "parse error text",
        "a body that is not JSON: both answer -32700 / 400 INVALID_ARGUMENT; the message is each JSON decoder's text "
        "(the SDK: 'Expecting value: ...' or 'Failed to load JSON: ...'; a2a-lab: 'Invalid JSON payload: ...').",
        ("* bad-json",),
        ("body",),
    ),
    Accepted(
        "envelope refusals",
        "a batch or a request without `jsonrpc`: both -32600 'Invalid Request'; the SDK adds an ErrorInfo with its "
        "parser's text in metadata.parseError, a2a-lab none.",
        ("jsonrpc*.* not-an-object", "jsonrpc*.* no-jsonrpc-member"),
        ("body",),
    ),
    Accepted(
        "terminal subscribe wording",
        "SubscribeToTask on a finished task: same code (-32004 / 400); the SDK's message names the task "
        "('Task <id> is in terminal state: TASK_STATE_COMPLETED'), which error_messages cannot template.",
        ("jsonrpc1.0 subscribe-terminal", "rest1.0 subscribe-terminal"),
        ("body",),
    ),
    Accepted(
        "ListTasks proto defaults",
        "the SDK's ListTasks writes proto defaults in the history it returns (parts with filename '' and mediaType "
        "'', extensions [], referenceTaskIds []); a2a-lab leaves unset fields out, as the other operations do.",
        ("rest1.0 list", "jsonrpc1.0 list"),
        ("body",),
    ),
    Accepted(
        "0.3 compat validation",
        "a 0.3 message that is not an object: the compat layer answers -32600 'Invalid Request' with pydantic's "
        "error text as `data`; a2a-lab -32602 (worded 'Validation failed').",
        ("jsonrpc0.3 wrong-params",),
        ("body",),
    ),
    Accepted(
        "0.3 compat stream flags",
        "the 0.3 compat stream writes `append: false` on every artifact update (JSON-RPC) and leaves `final` off "
        "non-final status updates (REST); a2a-lab writes only the flags that are set (JSON-RPC) and `final: false` "
        "(REST).",
        ("jsonrpc0.3 stream", "rest0.3 stream"),
        ("body",),
    ),
    Accepted(
        "0.3 compat terminal subscribe",
        "tasks/resubscribe on a finished task: the SDK opens an SSE stream and sends the -32004 error as its one "
        "event (JSON-RPC), or opens it and breaks it off (REST: the chunked body ends early); a2a-lab answers the "
        "error as a plain JSON answer.",
        ("jsonrpc0.3 subscribe-terminal", "rest0.3 subscribe-terminal"),
    ),
    Accepted(
        "0.3 compat under a 1.0 header",
        "message/send with A2A-Version: 1.0: the SDK -32603 'A2A version '1.0' is not supported by this handler'; "
        "a2a-lab -32601 (a 0.3 method under a 1.0 header does not exist).",
        ("jsonrpc0.3 send-version-1.0",),
        ("body",),
    ),
    Accepted(
        "0.3 REST compat errors",
        "the SDK's 0.3 REST compat answers errors in the 1.0 form (google.rpc.Status, 400/404) and 400 for a "
        "wrong body; a2a-lab's 0.3 REST answers them as the 0.3 SDKs do ({message, code} with 0.3 statuses). The "
        "push-set wording differs too (the SDK: 'No task for ' from its proto name parser).",
        (
            "rest0.3 get-unknown",
            "rest0.3 cancel-terminal",
            "rest0.3 push-set",
            "rest0.3 push-get",
            "rest0.3 push-list",
            "rest0.3 wrong-params",
            "rest0.3 extended-card",
        ),
    ),
]

ACCEPTED_03 = [
    Accepted(
        FRAMEWORK_PAGES,
        "Starlette's 405 page for a wrong method on the card path (see FRAMEWORK_PAGES).",
        ("card agent-card.json POST",),
    ),
    Accepted(
        "terminal subscribe answered as a stream",
        "tasks/resubscribe on a finished task: the SDK opens an SSE stream whose one event is -32602 'Task <id> is "
        "in terminal state: completed'; a2a-lab answers -32004 as a plain JSON answer.",
        ("jsonrpc0.3 subscribe-terminal",),
    ),
    Accepted(
        "pydantic validation errors",
        "a malformed request: the SDK answers with pydantic's error list in `data` (type, loc, msg, input, url); "
        "a2a-lab names the first problem (-32602, or -32600 for params missing and for a batch).",
        ("jsonrpc0.3 wrong-params", "jsonrpc0.3 missing-params", "jsonrpc0.3 not-an-object"),
        ("body",),
    ),
    Accepted(
        "parse error without id",
        "a body that is not JSON: the SDK's -32700 answer has no `id` member at all and the decoder's bare text; "
        "a2a-lab's has `id: null` (JSON-RPC 2.0 §5) and prefixes 'Invalid JSON payload:'.",
        ("jsonrpc0.3 bad-json",),
        ("body",),
    ),
    Accepted(
        "jsonrpc member not checked",
        "a request without `jsonrpc: 2.0`: the SDK serves it anyway (here: tasks/get of an unknown id, -32001); "
        "a2a-lab refuses it with -32600 (JSON-RPC 2.0 §4: the member MUST be there).",
        ("jsonrpc0.3 no-jsonrpc-member",),
        ("body",),
    ),
]


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10, trust_env=False) as client:
        yield client


def _check(http: httpx.Client, real: Peer, persona: Peer, accepted: list[Accepted]) -> fidelity.Outcome:
    outcome = fidelity.run(http, real, persona)
    left, stale = fidelity.unexplained(outcome.differences, accepted)
    assert not left and not stale, fidelity.report(left, stale)
    return outcome


def test_persona_a2a_sdk_python_13_answers_as_the_real_server(serve: Callable, http: httpx.Client) -> None:
    served = serve("personas/a2a-sdk-python-1.3")
    with sdk13_server() as real:
        outcome = _check(http, real, Peer("persona", served.url, SDK13_BINDINGS), ACCEPTED_13)
    assert outcome.requests == len(fidelity.request_set(real)) > 80
    # no fewer answers match than today (identical; the same JSON, members in another order)
    assert outcome.identical >= 60 and outcome.same_content >= 60, (outcome.identical, outcome.same_content)


def test_persona_a2a_sdk_python_03_answers_as_the_real_server(serve: Callable, http: httpx.Client) -> None:
    served = serve("personas/a2a-sdk-python-0.3")
    with sdk03_server() as real:
        outcome = _check(http, real, Peer("persona", served.url, SDK03_BINDINGS), ACCEPTED_03)
    assert outcome.requests == len(fidelity.request_set(real)) > 25
    assert outcome.identical >= 21, outcome.identical  # no fewer answers match than today
