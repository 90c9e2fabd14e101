"""Every documented scenario option, loaded and served.

docs/reference/scenario-format.md documents the format section by section. These tests keep three things equal: the
options it lists, the options the loader accepts (`loader.FIELDS`, `loader.CHOICES`), and the options the scenarios
below use, each served by the real server (uvicorn on loopback port 0) and checked against what its row says. Adding an
option to the loader without documenting it, or documenting one without serving it here, fails."""

from __future__ import annotations

import json
import re
import ssl
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from a2a_lab.contract.catalogue import builtin_root
from a2a_lab.contract.loader import CHOICES, FIELDS, load_file, load_scenarios, options_used
from a2a_lab.contract.scenario import Conclusion, PushDelivery, Returns, ServerCertificate
from a2a_lab.contract.style import express_etag
from a2a_lab.protocol import signing
from a2a_lab.protocol.states import TaskState
from a2a_lab.server import tls
from a2a_lab.server.push import PROBE_CREDENTIALS

from .helpers import (
    REST_PATH,
    RPC_PATH,
    Lab,
    Receiver,
    client,
    message,
    message03,
    scenario_text,
    sse_events,
    write_scenario,
)
from .test_limits import connect, parse, post_head, read_to_close
from .test_stream_edits import EDITS

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "reference" / "scenario-format.md"
V1 = {"A2A-Version": "1.0"}

CARD = """\
  object:
    name: every-option agent
    description: "Served from {base_url}."
    version: "1.0.0"
    supportedInterfaces:
      - {url: "{base_url}/rpc", protocolBinding: JSONRPC, protocolVersion: "1.0"}
      - {url: "{base_url}/rest", protocolBinding: HTTP+JSON, protocolVersion: "1.0"}
    capabilities: {streaming: true, pushNotifications: true, extendedAgentCard: true}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills:
      - {id: s, name: s, description: s, tags: [t]}
"""

#: Uses every option except the ones the smaller scenarios below take (raw cards, signatures, other choices).
MAIN = (
    """\
title: Every option
description: |
  A scenario that uses every documented option.
spec: A2A 1.0 (test)
observed: {where: a test, when: "2026-11", note: every option}
recorded: {from: nowhere, at: "2026-11-30"}
spec_revision: "1.0.0"
seed: 11
timeout: 7.5
client:
  message: "hello there"
  action:
    follow_up: Paris
    stream: true
    webhook: true
    token: secret-token
    credentials: {apiKey: k}
    extended_card: true
    resubscribe: true
card:
"""
    + CARD
    + """\
  content_type: application/json; charset=utf-8
  cache_control: no-store
  etag: true
  well_known: serve
  legacy: {status: 410, body: gone, content_type: text/plain, headers: {X-Gone: "since 2026"}}
  pad_to: 6000
extended_card: {name: "extended agent at {base_url}", version: "2.0.0"}
endpoints:
  - {path: /rpc, binding: JSONRPC, versions: ["1.0", "0.3"]}
  - {path: /rest, binding: HTTP+JSON, versions: ["1.0", "0.3"]}
task:
  steps: [SUBMITTED, {state: WORKING, message: "working on {text}"}, COMPLETED]
  artifacts:
    - artifactId: a1
      name: result
      description: the result
      metadata: {k: v}
      chunked: true
      parts:
        - {text: "echo: {text}"}
        - {raw: aGk=, mediaType: text/plain, filename: hi.txt}
        - {url: "https://example.com/x.pdf"}
        - {data: {ok: true}, metadata: {m: 1}}
  returns: stop
  advance: get_task
  history: false
  history_length: honour
behaviour:
  SendMessage:
    - when: {version: "1.0", binding: JSONRPC, method: SendMessage, message_id_prefix: dm-, text_contains: direct}
      reply:
        message: {parts: [{text: "direct {text}"}]}
        headers: {X-Lab: "on"}
        delay_ms: 1
        unknown_fields: {futureField: 1}
    - when: {version: "0.3", text_contains: v03}
      reply: {message: "v03 answer"}
    - when: {binding: HTTP+JSON, text_contains: rest}
      reply: {message: [{text: rest answer}]}
    - when: {header: {x-lab-rule: "yes", x-present: null}}
      reply: {error: {code: UnsupportedOperation, message: header matched}}
    - when: {has_task_id: true}
      reply: {error: {code: -31999, message: custom failure, http_status: 503}}
    - when: {text_contains: modes, lacks: configuration.acceptedOutputModes}
      reply: {error: {code: InvalidParams, message: say the modes}}
    - when: {text_contains: tenancy, lacks: [tenant, metadata.team]}
      reply: {error: {code: InvalidParams, message: say the tenant and team}}
    - when: {text_contains: error-name}
      reply: {error: TaskNotFound}
    - when: {text_contains: error-code}
      reply: {error: -32004}
    - when: {text_contains: raw}
      reply:
        raw:
          status: 200
          content_type: application/json
          body: >-
            {"jsonrpc":"2.0", "id":"recorded","result":{"message":{"messageId":"r1",
            "role":"ROLE_AGENT","parts":[{"text":"recorded"}]}}}
          echo_id: true
    - when: {text_contains: fault-reset}
      reply: {fault: reset}
    - when: {text_contains: fault-truncate}
      reply: {fault: {kind: truncate, after_bytes: 5}}
    - when: {text_contains: fault-drip}
      reply: {fault: {kind: drip, chunk_bytes: 100, interval_ms: 0}}
    - when: {text_contains: fault-stall}
      reply: {fault: stall}
    - when: {text_contains: env-wrong}
      reply: {envelope: {id: wrong}}
    - when: {text_contains: env-null}
      reply: {envelope: {id: "null"}}
    - when: {text_contains: env-omit-both}
      reply: {envelope: {id: omit, both: true}}
    - when: {text_contains: env-echo-neither}
      reply: {envelope: {id: echo, neither: true}}
    - when: {text_contains: task-first}
      reply:
        task:
          steps: [SUBMITTED, {state: WORKING, artifacts: [{artifactId: mid, text: "partial {text}"}]}, COMPLETED]
          returns: first
          advance: {get_task: 2}
          history: true
    - when: {text_contains: task-never}
      reply: {task: {returns: first, advance: never, history: true, history_length: ignore}}
    - when: {text_contains: task-followed}
      reply: {task: {returns: first, advance: {get_task: 1, follow_ms: 1}}}
  ListTasks:
    - when: {call: 1}
      reply: {error: InternalError}
    - when: {calls: {from: 2, to: 3}}
      reply: {error: {code: UnsupportedOperation}}
  SendStreamingMessage:
    - when: {text_contains: stream-a}
      reply:
        stream:
          interval_ms: 30
          omit_terminal: true
          first_event: status
          duplicate_events: true
          comments: [hello]
          ping_ms: 5
          framing: sse
    - when: {text_contains: stream-ndjson}
      reply: {stream: {framing: ndjson}}
    - when: {text_contains: stream-pretty}
      reply: {stream: {framing: sse-multiline, bare_events: true}}
    - when: {text_contains: stream-b}
      reply:
        task: {steps: [SUBMITTED, {state: INPUT_REQUIRED, message: {parts: [{data: {ask: city}}]}}, COMPLETED]}
        stream: {first_event: task, close_at_interrupted: false, final_snapshot: true}
    - when: {text_contains: stream-timed}
      reply: {task: {advance: {after_ms: 1}}}
    - when: {text_contains: stream-error}
      reply: {stream: {error_after: 1, error: {code: -31999, message: boom}}}
    - when: {text_contains: stream-drop}
      reply: {stream: {drop_after: 1}}
leniency: {missing_kind: true, unknown_fields: ignore}
auth: {bearer: secret-token, scope: extended_card}
push: {allow: [0.0.0.0], probe_bad_credentials: true}
limits:
  body_bytes: 4096
  body_seconds: 0.5
  json_depth: 8
  journal_entries: 500
  streams: 1
  stream_idle_seconds: 1
  stream_ping_seconds: 0.2
  push_deliveries_per_task: 2
  tasks: 3
  journal_bytes: 400000
  task_bytes: 7000
  push_configs_per_task: 3
  push_config_bytes: 1000
  parts_per_message: 4
  card_cache_bytes: 100000
checks: [RESULT-EXPECTED]
expect: {result: [task, error], state: COMPLETED, text_contains: echo}
"""
)

#: A raw card, the other card paths and the other auth scope and conclusion.
OTHER = """\
title: Other options
description: The card as raw bytes.
spec: A2A 1.0 (test)
spec_revision: "1.0.1"
card:
  raw: '{"name": "raw agent", "url": "{base_url}/rpc"}'
  substitute_raw: false
  etag: false
  well_known: {status: 503, body: try the legacy path, content_type: text/plain}
  legacy: serve
endpoints:
  - {path: /rpc, binding: JSONRPC, versions: ["1.0"]}
auth:
  bearer: other-token
  scope: all
  token_uses: 3
  tasks_per_user: true
  credentials: {apiKey: k, username: u, password: p, client_id: c, client_secret: s}
client:
  action: {webhook: true, webhook_auth: Basic, push_configs: true}
push: {redeliver: true, reorder: true, foreign_task: true}
leniency: {unknown_fields: refuse}
gzip_min_bytes: 40
expect: {result: message, text: "the whole text", survives: true}
"""

#: The card paths' other choices.
PATHS = """\
title: No card
description: Both well-known paths answer 404.
spec: A2A 1.0 (test)
card: {object: {name: hidden}, well_known: 404, legacy: missing}
"""


def _signed_key() -> dict[str, Any]:
    data = yaml.safe_load((builtin_root() / "auth" / "signed-card.yaml").read_text(encoding="utf-8"))
    return data["card"]["sign"]["key"]


def signed(tamper: str) -> str:
    key = json.dumps(_signed_key())
    return f"""\
title: A signed card
description: Signed with a test key.
spec: A2A 1.0 (test)
client: {{action: {{verify_signature: true}}}}
card:
{CARD}  sign: {{key: {key}, kid: k1, tamper: {tamper}}}
expect: {{result: none}}
"""


SIGNED = {tamper: signed(tamper) for tamper in ("none", "payload", "unknown-kid")}
GRPC = """\
title: gRPC deviations
description: Every reply.grpc option.
spec: A2A 1.0 (test)
spec_revision: "1.0.2"
card:
  object:
    name: grpc
    supportedInterfaces: [{url: "{grpc_address}", protocolBinding: GRPC, protocolVersion: "1.0"}]
endpoints: [{path: /unused, binding: GRPC, versions: ["1.0"]}]
behaviour:
  GetTask:
    - reply: {error: TaskNotFound, grpc: {status: UNIMPLEMENTED, details: false}}
  SendMessage:
    - reply: {grpc: {empty: true}}
  CancelTask:
    - reply: {raw: {body_base64: CgNhYmMaAggF}}
"""


def served_over_tls(certificate: str, client_certificate: bool = False) -> str:
    ask = "client: {action: {client_certificate: true}}\n" if client_certificate else ""
    return f"""\
title: Served over TLS
description: A {certificate} certificate.
spec: A2A 1.0 (test)
{ask}card:
  object:
    name: tls
    supportedInterfaces:
      - {{url: "{{base_url}}/rpc", protocolBinding: JSONRPC, protocolVersion: "1.0"}}
      - {{url: "{{http_base_url}}/rpc", protocolBinding: JSONRPC, protocolVersion: "1.0"}}
tls: {{certificate: {certificate}, client_certificate: {str(client_certificate).lower()}}}
"""


TLS = {kind.value: served_over_tls(kind.value) for kind in ServerCertificate}
MUTUAL_TLS = served_over_tls("valid", client_certificate=True)
#: A family: the `matrix` options.
FAMILY = """\
title: A family
description: Answers over {binding} in A2A {version}.
spec: A2A 1.0 (test)
matrix:
  version: ["1.0", "0.3"]
  binding: [JSONRPC, HTTP+JSON]
  exclude: [{version: "0.3", binding: HTTP+JSON}]
  let:
    binding:
      JSONRPC: {path: /rpc}
      HTTP+JSON: {path: /rest}
  overlay:
    version:
      "1.0":
        card:
          object:
            supportedInterfaces: [{url: "{base_url}{path}", protocolBinding: "{binding}", protocolVersion: "1.0"}]
      "0.3":
        card: {object: {protocolVersion: "0.3.0", url: "{base_url}{path}", preferredTransport: "{binding}"}}
card:
  object: {name: "family agent", version: "1.0.0"}
behaviour:
  SendMessage: {reply: {message: "over {binding} in {version}"}}
"""
#: A framework's wording of errors (the personas' `error_messages`).
WORDED = (
    """\
title: Worded errors
description: Errors in another framework's words.
spec: A2A 1.0 (test)
card:
"""
    + CARD
    + """\
error_messages:
  TaskNotFound: Task not found
  -32009: "A2A version '{version}' is not supported by this handler. Expected version '1.0'."
style: {offset_timestamps: true, sort_keys: true, json_errors: true}
leniency: {any_content_type: true, minor_versions: true}
not_found: {status: 404, body: "Not Found: {method} {path}", content_type: text/plain; charset=utf-8}
"""
)
#: A server that predates A2A-Version (a2a-sdk 0.3.26).
UNVERSIONED = """\
title: No version header
description: A 0.3 server that never reads A2A-Version.
spec: A2A 0.3 (test)
card:
  object:
    {name: old, description: old, url: "{base_url}/rpc", version: "1", protocolVersion: "0.3.0",
     capabilities: {streaming: true}}
endpoints:
  - {path: /rpc, binding: JSONRPC, versions: ["0.3"]}
leniency: {ignore_version: true}
style:
  member_order: [[result, error, id, jsonrpc]]
  interfaces:
    JSONRPC 0.3:
      python_json_events: true
      null_error_data: true
      member_order: [[jsonrpc, id, error], [timestamp, state]]
"""
#: A persona's style, leniency and error_messages entries (the options the @a2a-js/sdk persona needs), a card
#: negotiated on A2A-Version, and a 201 answer.
DIALECT = """\
title: A persona's options
description: The other style, leniency and error_messages options.
spec: A2A 1.0 (test)
card:
  raw: '{"name": "the 0.3 view", "url": "{base_url}/rpc", "capabilities": {"streaming": true}}'
  versions:
    "1.0": '{"name": "the 1.0 view", "supportedInterfaces": [{"url": "{base_url}/rpc"}], "capabilities": {}}'
  last_modified: false

endpoints:
  - {path: /rpc, binding: JSONRPC, versions: ["1.0", "0.3"]}
  - {path: /rest, binding: HTTP+JSON, versions: ["1.0", "0.3"]}
behaviour:
  SendMessage: {when: {binding: HTTP+JSON}, reply: {http_status: 201}}
style:
  media_types:
    JSONRPC: application/json; charset=utf-8
    HTTP+JSON: application/a2a+json; charset=utf-8
    HTTP+JSON 0.3: application/json; charset=utf-8
    event-stream: text/event-stream
  error_metadata: false
  sse_line_end: lf
  sse_cache_control: no-cache
  headers: {X-Powered-By: Express}
  body_etag: true
  member_order: [[status, history, artifacts, contextId, id]]
  explicit_artifact_flags: true
  omit_final_false: true
not_found:
  status: 404
  content_type: text/html; charset=utf-8
  body: "<pre>Cannot {method} {path}</pre>"
  headers: {X-Content-Type-Options: nosniff}
leniency: {route_version: true, notifications: true}
error_messages:
  - code: VersionNotSupported
    operation: SendMessage
    binding: JSONRPC
    version: "1.0"
    requested: "0.3"
    answer: MethodNotFound
    message: "Method not found: {method}"
  - {code: TaskNotFound, message: "No task {taskId}", reason: GONE, http_status: 410}
  - {code: UnsupportedOperation, operation: SubscribeToTask, version: "0.3", sse: true, message: "done: {taskId}"}
  - {code: ContentTypeNotSupported, message: "not {contentType}"}
  - {code: InvalidRequest, field: params, message: "params, asked {requestedVersion}"}
"""
#: The other SSE line end.
DIALECT_CRLF = """\
title: CRLF
description: SSE lines end in CRLF.
spec: A2A 1.0 (test)
card:
  object:
    name: crlf
    supportedInterfaces: [{url: "{base_url}/rpc", protocolBinding: JSONRPC, protocolVersion: "1.0"}]
    capabilities: {streaming: true}
style: {sse_line_end: crlf}
"""


#: Stream edits, `unterminated`, `hold_open`, the stream error's form and `byte_exact`: served by test_stream_edits.py.
STREAM_EDITS = scenario_text(EDITS)

#: Issue 29's client actions (new_message, cancel), a choice of expected states, a status message with no parts.
ACTIONS_V2 = (
    """\
title: Actions and races
description: |
  An unrelated new message after the stop, a cancel, and the states a race allows.
spec: A2A 1.0 (test)
client:
  action: {new_message: "something else", cancel: true}
card:
"""
    + CARD
    + """\
task:
  steps: [{state: SUBMITTED, message: {parts: []}}, {state: WORKING, message: {parts: [{data: {step: 2}}]}}, COMPLETED]
  artifacts: [{artifactId: late, text: "appended to nothing", append: true, lastChunk: false}]
  returns: first
expect: {result: task, state: [CANCELED, COMPLETED]}
"""
)

#: Spec revision 1.1 (the dev-1.1 draft): tasks carry generations.
GENERATIONS = """\
title: Generations
description: A server of the 1.1 draft.
spec: A2A 1.1 (test)
spec_revision: "1.1"
card:
  object:
    name: generations
    supportedInterfaces: [{url: "{base_url}/rpc", protocolBinding: JSONRPC, protocolVersion: "1.0"}]
"""


def tenant_routes(mode: str) -> str:
    """A card whose HTTP+JSON interface declares the tenant `acme`, served with `tenant_routes: mode`."""
    return f"""\
title: Tenant routes {mode}
description: The HTTP+JSON interface declares the tenant acme.
spec: A2A 1.0 (test)
tenant_routes: {mode}
card:
  object:
    name: tenant agent
    description: d
    version: "1.0.0"
    supportedInterfaces:
      - {{url: "{{base_url}}/rest", protocolBinding: HTTP+JSON, protocolVersion: "1.0", tenant: acme}}
    capabilities: {{}}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills: [{{id: s, name: s, description: s, tags: [t]}}]
"""


TENANT_ROUTES = {mode: tenant_routes(mode) for mode in ("any", "declared", "none")}


def prefixed(name: str, origin_root: str) -> str:
    """Everything served under `base_path: /agents/demo`; the origin's card path answers `card.origin_root`."""
    return f"""\
title: Under a prefix, origin root {name}
description: The card and the endpoint are under /agents/demo.
spec: A2A 1.0 (test)
base_path: /agents/demo
card:
{CARD}  origin_root: {origin_root}
"""


#: `card.origin_root`'s choices, and the status the origin's card path answers with each.
PREFIXED = {
    "serve": (prefixed("serve", "serve"), 200),
    "missing": (prefixed("missing", "missing"), 404),
    "raw": (prefixed("raw", "{status: 405, body: Method Not Allowed, content_type: text/plain}"), 405),
}

#: Structured edits of every kind of generated answer (section `reply.edit[]`).
EDITED = f"""\
title: Edited answers
description: Shape quirks written as edits of what the server generates.
spec: A2A 1.0 (test)
card:
{CARD}  edit:
    - {{at: version, set: 2}}
task: {{steps: [SUBMITTED, WORKING, COMPLETED], returns: first, advance: get_task}}
behaviour:
  SendMessage:
    - reply:
        edit:
          - {{at: result, unwrap: true}}
          - {{at: result.status.state, set: submitted}}
          - {{at: result.contextId, rename: context_id}}
          - {{at: result.history, delete: true}}
  GetTask:
    - when: {{binding: JSONRPC}}
      reply: {{edit: [{{at: result, wrap: task}}]}}
  SendStreamingMessage:
    - reply: {{stream: {{events: [{{at: 2, edit: [{{at: result.statusUpdate, rename: status_update}}]}}]}}}}
push:
  allow: ["0.0.0.0"]
  edit: [{{at: statusUpdate, rename: status_update}}]
"""

ALL_SCENARIOS = [
    *TENANT_ROUTES.values(),
    *(text for text, _ in PREFIXED.values()),
    EDITED,
    MAIN,
    ACTIONS_V2,
    OTHER,
    PATHS,
    GRPC,
    WORDED,
    UNVERSIONED,
    *SIGNED.values(),
    *TLS.values(),
    MUTUAL_TLS,
    DIALECT,
    DIALECT_CRLF,
    FAMILY,
    STREAM_EDITS,
    GENERATIONS,
]


# ==================================================================================== the documentation


def documented() -> dict[str, dict[str, str]]:
    """section -> option -> the text of its row, from docs/reference/scenario-format.md."""
    out: dict[str, dict[str, str]] = {}
    section: dict[str, str] | None = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^### `([^`]+)`\s*$", line)
        if heading:
            section = out.setdefault(heading.group(1), {})
            continue
        row = re.match(r"^\| `([^`]+)` \|(.*)$", line)
        if row and section is not None:
            assert row.group(1) not in section, f"{row.group(1)} documented twice"
            section[row.group(1)] = row.group(2)
    return out


def test_the_documented_options_are_exactly_the_accepted_ones() -> None:
    doc = documented()
    assert set(doc) == set(FIELDS), "a section of docs/reference/scenario-format.md per FIELDS entry, and no other"
    for section, options in FIELDS.items():
        assert set(doc[section]) == set(options), f"section `{section}`"


def test_every_named_value_is_documented() -> None:
    doc = documented()
    for option, kind in CHOICES.items():
        section, name = option.rsplit(".", 1)
        for member in kind:
            assert f"`{member.value}`" in doc[section][name], f"{option}: {member.value}"


def test_the_guides_examples_use_documented_options_and_point_to_the_reference() -> None:
    """docs/how-to/write-a-quirk.md shows whole scenario files: each uses only documented top-level options."""
    guide = (ROOT / "docs" / "how-to" / "write-a-quirk.md").read_text(encoding="utf-8")
    assert "](../reference/scenario-format.md)" in guide
    examples = re.findall(r"^```yaml\n(.*?)^```", guide, flags=re.M | re.S)
    assert len(examples) >= 2, "the guide shows a small scenario and the common options"
    for example in examples:
        top = set(re.findall(r"^([a-z_]+):", example, flags=re.M))
        assert top and top <= set(FIELDS["scenario"]), top - set(FIELDS["scenario"])


def test_the_guides_own_scenario_loads() -> None:
    """The small scenario docs/how-to/write-a-quirk.md writes by hand (`# my-quirk.yaml`) is a valid scenario; its
    shell examples run it (tests/test_readme_examples.py)."""
    guide = (ROOT / "docs" / "how-to" / "write-a-quirk.md").read_text(encoding="utf-8")
    [example] = re.findall(r"^```yaml\n# my-quirk\.yaml\n(.*?)^```", guide, flags=re.M | re.S)
    loaded = yaml.safe_load(example)
    assert {"title", "description", "card", "behaviour", "expect"} <= set(loaded)


def test_every_documented_option_and_value_is_used_by_the_scenarios_here() -> None:
    used: set[tuple[str, str]] = set()
    for text in ALL_SCENARIOS:
        used |= options_used(yaml.safe_load(text))
    wanted = {(section, option) for section, options in FIELDS.items() for option in options}
    wanted |= {(option, member.value) for option, kind in CHOICES.items() for member in kind}
    assert wanted - used == set(), "options documented and accepted, but not served by a test here"


# ==================================================================================== serving them


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[[str], Lab]]:
    started: list[Lab] = []

    def _serve(text: str) -> Lab:
        path = write_scenario(tmp_path, text, f"s{len(started)}.yaml")
        started.append(Lab(load_file(path, f"format/{path.stem}")))
        return started[-1]

    yield _serve
    for lab in started:
        lab.close()


def call(s: Lab, method: str, params: dict[str, Any], **headers: str) -> httpx.Response:
    """A JSON-RPC 1.0 call with extra headers."""
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return s.http.post(RPC_PATH, json=body, headers={**V1, **headers})


def result(r: httpx.Response) -> Any:
    assert r.status_code == 200, r.text
    body = r.json()
    assert "error" not in body, body
    return body["result"]


def error(r: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert r.status_code == status, r.text
    return r.json()["error"]


def test_provenance_client_expect_and_checks(serve: Callable[[str], Lab]) -> None:
    s = serve(MAIN)
    facts = s.http.get("/_lab/scenario", headers=s.admin).json()
    assert facts["title"] == "Every option" and facts["description"] == "A scenario that uses every documented option."
    assert facts["spec"] == "A2A 1.0 (test)" and facts["observed"]["note"] == "every option"
    assert facts["seed"] == 11 and facts["timeout"] == 7.5 and facts["checks"] == ["RESULT-EXPECTED"]
    assert facts["message"] == "hello there"
    assert facts["action"] == {
        "follow_up": "Paris",
        "stream": True,
        "webhook": True,
        "token": "secret-token",
        "credentials": {"apiKey": "k"},
        "extended_card": True,
        "resubscribe": True,
    }
    assert facts["expect"] == {"result": None, "state": "TASK_STATE_COMPLETED", "text_contains": "echo", "text": None}
    assert s.scenario.expect.results == (Conclusion.TASK, Conclusion.ERROR)
    assert s.scenario.recorded == {"from": "nowhere", "at": "2026-11-30"}
    other = serve(OTHER)
    other_facts = other.http.get("/_lab/scenario", headers=other.admin).json()
    assert other_facts["expect"]["result"] == "message" and other_facts["expect"]["text"] == "the whole text"
    assert other_facts["action"] == {"webhook": True, "webhook_auth": "Basic", "push_configs": True}
    assert other.scenario.push_delivery == PushDelivery(redeliver=True, reorder=True, foreign_task=True)


def test_actions_expected_states_and_an_empty_status_message(serve: Callable[[str], Lab]) -> None:
    """`client.action` `new_message` and `cancel` reach the client as given; `expect.state` as a list is every state
    a race allows; `task.steps[].message: {parts: []}` serves a status message with an empty parts list."""
    s = serve(ACTIONS_V2)
    facts = s.http.get("/_lab/scenario", headers=s.admin).json()
    assert facts["action"] == {"new_message": "something else", "cancel": True}
    assert facts["expect"]["state"] == ["TASK_STATE_CANCELED", "TASK_STATE_COMPLETED"]
    assert s.scenario.expect.states == (TaskState.CANCELED, TaskState.COMPLETED) and s.scenario.expect.state is None
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message("hi")}}
    task = s.http.post("/rpc", json=body, headers=V1).json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED" and task["status"]["message"]["parts"] == []
    got = {"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": task["id"]}}
    working = s.http.post("/rpc", json=got, headers=V1).json()["result"]
    assert working["status"]["message"]["parts"] == [{"data": {"step": 2}}]


def test_spec_revision(serve: Callable[[str], Lab]) -> None:
    """`1.0.0`: HTTP+JSON answers application/json and v1.0.0's statuses; `1.0.1`: application/a2a+json and 400.
    JSON-RPC is the same in both."""
    old = serve(MAIN)
    assert s_facts(old)["spec_revision"] == "1.0.0"
    ok = old.http.post(f"{REST_PATH}/message:send", json={"message": message("plain")}, headers=V1)
    assert (ok.status_code, ok.headers["content-type"]) == (200, "application/json")
    refused = old.http.post(f"{REST_PATH}/message:send", content=b"{}", headers={**V1, "content-type": "text/plain"})
    assert (refused.status_code, refused.headers["content-type"]) == (415, "application/json")
    assert refused.json()["error"]["details"][0]["reason"] == "CONTENT_TYPE_NOT_SUPPORTED"
    assert call(old, "SendMessage", {"message": message("plain")}).headers["content-type"] == "application/json"
    other = serve(OTHER)
    assert s_facts(other)["spec_revision"] == "1.0.1"
    rpc = call(other, "SendMessage", {"message": message("hi")}, authorization="Bearer other-token")
    assert rpc.headers["content-type"] == "application/json" and result(rpc)
    assert "generation" not in result(rpc)["task"]
    draft = serve(GENERATIONS)
    assert s_facts(draft)["spec_revision"] == "1.1"
    # The default task: created SUBMITTED (1), WORKING (2), its artifact (3), COMPLETED (4).
    assert result(call(draft, "SendMessage", {"message": message("hi")}))["task"]["generation"] == "4"


def test_gzip_min_bytes(serve: Callable[[str], Lab]) -> None:
    """`gzip_min_bytes`: a body of at least that many bytes goes out gzip-compressed where the request accepts gzip;
    a smaller one, or one to a request that does not, goes out as it is."""
    other = serve(OTHER)
    card = other.http.get("/.well-known/agent.json", headers={"Accept-Encoding": "gzip"})
    assert card.headers["content-encoding"] == "gzip" and card.json()["name"] == "raw agent"
    assert card.headers["vary"] == "Accept-Encoding" and int(card.headers["content-length"]) != len(card.content)
    plain = other.http.get("/.well-known/agent.json", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == card.content
    small = other.http.get("/.well-known/agent-card.json", headers={"Accept-Encoding": "gzip"})
    assert small.status_code == 503 and "content-encoding" not in small.headers, "under 40 bytes"
    assert "content-encoding" not in serve(MAIN).http.get("/.well-known/agent-card.json").headers, "not set: never"


def test_unknown_request_fields(serve: Callable[[str], Lab]) -> None:
    """`leniency.unknown_fields`: `ignore` lets a member no 1.0 proto message defines pass (§5.7); `refuse` answers
    -32602 worded as protobuf's strict ProtoJSON parser words it, naming the member and where it is."""
    extra = {"message": {**message("hi"), "parts": [{"text": "hi", "kind": "text"}]}, "futureField": 1}
    assert "task" in result(serve(MAIN).rpc("SendMessage", extra)), "ignore"
    other = serve(OTHER)
    top = {"message": message("hi"), "futureField": 1}
    refused = error(call(other, "SendMessage", top, authorization="Bearer other-token"))
    assert refused["code"] == -32602 and 'has no field named "futureField"' in refused["message"], "refuse"
    parts = error(call(other, "SendMessage", {"message": extra["message"]}, authorization="Bearer other-token"))
    assert 'has no field named "kind" at "SendMessageRequest.message.parts[0]"' in parts["message"]
    v03 = other.rpc("message/send", {"message": message03("hi"), "futureField": 1}, version=None)
    assert v03.json()["error"]["code"] == -32601, "a 0.3 request is not judged by the 1.0 proto (this agent is 1.0)"


def s_facts(s: Lab) -> dict[str, Any]:
    facts: dict[str, Any] = s.http.get("/_lab/scenario", headers=s.admin).json()
    return facts


def test_error_messages(serve: Callable[[str], Lab]) -> None:
    """Every answer of a listed error carries the scenario's message, on either binding; others keep a2a-lab's."""
    s = serve(WORDED)
    missing = error(call(s, "GetTask", {"id": "nope"}))
    assert (missing["code"], missing["message"]) == (-32001, "Task not found")
    assert missing["data"][0]["reason"] == "TASK_NOT_FOUND"  # the ErrorInfo stays
    on_rest = s.http.get(f"{REST_PATH}/tasks/nope", headers=V1)
    assert (on_rest.status_code, on_rest.json()["error"]["message"]) == (404, "Task not found")
    version = error(call(s, "GetTask", {"id": "nope"}, **{"A2A-Version": "2.0"}))
    assert version["message"] == "A2A version '2.0' is not supported by this handler. Expected version '1.0'."
    unlisted = error(call(s, "NoSuchMethod", {}))
    assert unlisted["code"] == -32601 and "NoSuchMethod" in unlisted["message"]


def test_ignore_version(serve: Callable[[str], Lab]) -> None:
    """`leniency.ignore_version`: a 0.3 method with `A2A-Version: 1.0` is served as 0.3, not refused."""
    s = serve(UNVERSIONED)
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message03("old")}}
    answered = s.http.post(RPC_PATH, json=body, headers=V1)
    assert answered.json()["result"]["kind"] == "task", answered.text
    # style.interfaces: the 0.3 JSON-RPC answers have their own style. Its member_order: an object whose members
    # all appear in a list is written in that list's order; others keep a2a-lab's.
    assert list(answered.json()["result"]["status"]) == ["timestamp", "state"]
    assert next(iter(answered.json()["result"])) == "kind"
    missing = s.http.post(RPC_PATH, json={"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"id": "x"}})
    assert list(missing.json()) == ["jsonrpc", "id", "error"] and missing.json()["error"]["data"] is None
    # a request that cannot be read has no interface yet: the outer style
    unread = s.http.post(RPC_PATH, content=b"{", headers={"content-type": "application/json"})
    assert list(unread.json()) == ["error", "id", "jsonrpc"] and "data" not in unread.json()["error"]
    body["method"] = "message/stream"
    with s.http.stream("POST", RPC_PATH, json=body, headers={"Accept": "text/event-stream"}) as streamed:
        text = streamed.read().decode()
    # style.python_json_events: `, ` and `: ` separators (json.dumps defaults)
    assert 'data: {"jsonrpc": "2.0", "id": 1, "result": {' in text, text


def test_style_and_version_leniency(serve: Callable[[str], Lab]) -> None:
    """`style`: offset timestamps, sorted members, HTTP+JSON errors as application/json; `leniency`: any
    Content-Type read as JSON, A2A-Version 1.1 read as 1.0."""
    s = serve(WORDED)
    sent = call(s, "SendMessage", {"message": message("styled")}, **{"A2A-Version": "1.1"})
    assert sent.status_code == 200 and "error" not in sent.json(), sent.text
    assert list(sent.json()) == ["id", "jsonrpc", "result"]
    task = sent.json()["result"]["task"]
    assert list(task) == sorted(task) and task["status"]["timestamp"].endswith("+00:00")
    plain = s.http.post(
        RPC_PATH,
        content=json.dumps({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": task["id"]}}),
        headers={**V1, "content-type": "text/plain"},
    )
    assert plain.json()["result"]["id"] == task["id"]
    refused = s.http.get(f"{REST_PATH}/tasks/nope", headers=V1)
    assert (refused.status_code, refused.headers["content-type"]) == (404, "application/json")
    ok = s.http.get(f"{REST_PATH}/tasks/{task['id']}", headers=V1)
    assert ok.headers["content-type"] == "application/a2a+json"
    # not_found: the framework's page for an unknown path, an unknown HTTP+JSON route and a wrong method
    for method, path in (("GET", "/nowhere"), ("GET", f"{REST_PATH}/nowhere"), ("GET", f"{REST_PATH}/message:send")):
        page = s.http.request(method, path, headers=V1)
        assert (page.status_code, page.headers["content-type"], page.text) == (
            404,
            "text/plain; charset=utf-8",
            f"Not Found: {method} {path}",
        ), path


def test_card_options(serve: Callable[[str], Lab]) -> None:
    s = serve(MAIN)
    r = s.http.get("/.well-known/agent-card.json")
    assert r.status_code == 200 and r.headers["content-type"] == "application/json; charset=utf-8"
    assert r.headers["cache-control"] == "no-store" and len(r.content) == 6000
    assert r.json()["description"] == f"Served from {s.url}."
    again = s.http.get("/.well-known/agent-card.json", headers={"if-none-match": r.headers["etag"]})
    assert again.status_code == 304
    legacy = s.http.get("/.well-known/agent.json")
    assert (legacy.status_code, legacy.text, legacy.headers["content-type"]) == (410, "gone", "text/plain")
    assert legacy.headers["x-gone"] == "since 2026", "card path headers"

    other = serve(OTHER)
    elsewhere = other.http.get("/.well-known/agent-card.json")
    assert (elsewhere.status_code, elsewhere.text) == (503, "try the legacy path")
    raw = other.http.get("/.well-known/agent.json")
    assert raw.content == b'{"name": "raw agent", "url": "{base_url}/rpc"}', "raw bytes, {base_url} untouched"
    assert "etag" not in raw.headers
    hidden = serve(PATHS)
    assert [hidden.http.get(p).status_code for p in ("/.well-known/agent-card.json", "/.well-known/agent.json")] == [
        404,
        404,
    ]


@pytest.mark.parametrize("tamper", list(SIGNED))
def test_signed_card(serve: Callable[[str], Lab], tamper: str) -> None:
    s = serve(SIGNED[tamper])
    card = s.http.get("/.well-known/agent-card.json").json()
    jwks = s.scenario.client.action["jwks"]
    assert jwks == signing.public_jwks([{**_signed_key(), "kid": "k1"}])
    assert s.scenario.expect.results == (Conclusion.NONE,)
    verdicts = signing.verify(card, jwks)
    assert len(verdicts) == 1 and verdicts[0].valid is (tamper == "none")


def test_extended_card_and_auth_scopes(serve: Callable[[str], Lab]) -> None:
    s = serve(MAIN)
    assert error(s.rpc("GetExtendedAgentCard", {}), 401)["code"] == -32010
    card = result(call(s, "GetExtendedAgentCard", {}, authorization="Bearer secret-token"))
    assert card["name"] == f"extended agent at {s.url}"
    assert result(s.send("no token needed"))["task"], "scope extended_card: other operations need no token"
    other = serve(OTHER)
    assert error(other.send("hi"), 401)["code"] == -32010
    assert result(call(other, "SendMessage", {"message": message()}, authorization="Bearer other-token"))


def test_endpoints_task_script_and_leniency(serve: Callable[[str], Lab]) -> None:
    s = serve(MAIN)
    task = result(s.send("plain"))["task"]  # returns: stop
    assert task["status"]["state"] == "TASK_STATE_COMPLETED" and "history" not in task
    (artifact,) = task["artifacts"]
    assert artifact == {
        "artifactId": "a1",
        "name": "result",
        "description": "the result",
        "metadata": {"k": "v"},
        "parts": [
            {"text": "echo: plain"},
            {"raw": "aGk=", "mediaType": "text/plain", "filename": "hi.txt"},
            {"url": "https://example.com/x.pdf"},
            {"data": {"ok": True}, "metadata": {"m": 1}},
        ],
    }
    later = result(s.rpc("SendMessage", {"message": message("later"), "configuration": {"returnImmediately": True}}))
    states = [result(s.rpc("GetTask", {"id": later["task"]["id"]}))["status"]["state"] for _ in range(2)]
    assert states == ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"], "advance: get_task"
    events = [e.data["result"] for e in sse_events(s.rpc("SendStreamingMessage", {"message": message("go")}).text)]
    working = events[1]["statusUpdate"]["status"]
    assert working["message"]["parts"] == [{"text": "working on go"}]
    chunks = [e["artifactUpdate"] for e in events if "artifactUpdate" in e]
    assert [(len(c["artifact"]["parts"]), c.get("append", False), c["lastChunk"]) for c in chunks] == [
        (1, False, False),
        (1, True, False),
        (1, True, False),
        (1, True, True),
    ], "chunked: one part per update"
    on_rest = s.http.post(f"{REST_PATH}/message:send", json={"message": message("plain")}, headers=V1)
    assert on_rest.status_code == 200 and on_rest.json()["task"]
    no_kind = {k: v for k, v in message03("no kind").items() if k != "kind"}
    assert result(s.rpc("message/send", {"message": no_kind}, version=None))["kind"] == "task", "missing_kind"


def test_reply_tasks(serve: Callable[[str], Lab]) -> None:
    s = serve(MAIN)
    first = result(s.send("task-first"))["task"]
    assert first["status"]["state"] == "TASK_STATE_SUBMITTED" and first["history"], "returns: first; history: true"
    get = [result(s.rpc("GetTask", {"id": first["id"]})) for _ in range(2)]
    assert [t["status"]["state"] for t in get] == ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"], "advance.get_task 2"
    assert get[1]["artifacts"] == [{"artifactId": "mid", "parts": [{"text": "partial task-first"}]}]
    assert "history" not in result(s.rpc("GetTask", {"id": first["id"], "historyLength": 0})), "history_length: honour"
    never = result(s.rpc("SendMessage", {"message": message("task-never"), "configuration": {"historyLength": 0}}))[
        "task"
    ]
    assert [m["role"] for m in never["history"]] == ["ROLE_USER"], "history_length: ignore (0 asked, all sent)"
    ignored = result(s.rpc("GetTask", {"id": never["id"], "historyLength": 0}))
    assert len(ignored["history"]) == 1, "history_length: ignore on GetTask too"
    assert [result(s.rpc("GetTask", {"id": never["id"]}))["status"]["state"] for _ in range(3)] == [
        "TASK_STATE_SUBMITTED"
    ] * 3
    followed = result(s.send("task-followed"))["task"]
    subscribed = [e.data["result"] for e in sse_events(s.rpc("SubscribeToTask", {"id": followed["id"]}).text)]
    assert subscribed[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED", "advance.follow_ms"
    replies = [rule.reply.task for rules in s.scenario.rules.values() for rule in rules if rule.reply.task]
    assert [t.returns for t in replies][:2] == [Returns.FIRST, Returns.FIRST]


def test_when_conditions_and_messages(serve: Callable[[str], Lab]) -> None:
    s = serve(MAIN)
    r = s.rpc("SendMessage", {"message": message("direct", message_id="dm-1")})
    direct = result(r)
    assert direct["message"]["parts"] == [{"text": "direct direct", "futureField": 1}]
    assert direct["futureField"] == 1 and direct["message"]["futureField"] == 1
    assert r.headers["x-lab"] == "on" and s.journal[-1]["response"]["delay_ms"] == 1
    assert "task" in result(s.rpc("SendMessage", {"message": message("direct", message_id="m-1")})), "prefix"
    v03_direct = result(s.rpc("message/send", {"message": message03("direct", message_id="dm-2")}, version=None))
    assert v03_direct["kind"] == "task", "version"
    v03 = result(s.rpc("message/send", {"message": message03("v03")}, version=None))
    assert v03["kind"] == "message" and v03["parts"] == [{"kind": "text", "text": "v03 answer"}]
    rest = s.http.post(f"{REST_PATH}/message:send", json={"message": message("rest")}, headers=V1)
    assert rest.json()["message"]["parts"] == [{"text": "rest answer"}]
    assert "task" in result(s.send("rest")), "binding"
    matched = error(call(s, "SendMessage", {"message": message("h")}, **{"x-lab-rule": "yes", "x-present": ""}))
    assert (matched["code"], matched["message"]) == (-32004, "header matched")
    assert "task" in result(call(s, "SendMessage", {"message": message("h")}, **{"x-lab-rule": "no", "x-present": "1"}))
    modes = error(s.send("modes"))
    assert modes["message"] == "say the modes", "lacks: a member absent"
    told = s.rpc("SendMessage", {"message": message("modes"), "configuration": {"acceptedOutputModes": ["text/plain"]}})
    assert "task" in result(told), "lacks: the member present"
    assert error(s.rpc("SendMessage", {"message": message("tenancy"), "tenant": "t"}))["message"].endswith("team")
    both = {"message": message("tenancy"), "tenant": "t", "metadata": {"team": "blue"}}
    assert "task" in result(s.rpc("SendMessage", both)), "lacks: every member of the list present"
    follow = s.rpc("SendMessage", {"message": message("again", taskId="t-1")})
    assert error(follow, 503) == {"code": -31999, "message": "custom failure"}, "has_task_id; a code as written"
    named = error(s.send("error-name"))
    assert (named["code"], named["message"]) == (-32001, "Task not found")
    assert error(s.send("error-code"))["code"] == -32004
    codes = [s.rpc("ListTasks", {}).json().get("error", {}).get("code") for _ in range(4)]
    assert codes == [-32603, -32004, -32004, None], "call 1, calls 2 to 3, then the default"


def test_raw_faults_and_envelopes(serve: Callable[[str], Lab]) -> None:
    s = serve(MAIN)
    raw = s.rpc("SendMessage", {"message": message("raw")}, req_id=42)
    assert raw.content == (
        b'{"jsonrpc":"2.0", "id":42,"result":{"message":{"messageId":"r1", "role":"ROLE_AGENT",'
        b'"parts":[{"text":"recorded"}]}}}'
    )
    with pytest.raises(httpx.TransportError):
        s.send("fault-reset")
    with pytest.raises(httpx.TransportError):
        s.send("fault-truncate")
    assert result(s.send("fault-drip"))["task"]
    with client(s.url, timeout=0.3) as impatient, pytest.raises(httpx.ReadTimeout):
        impatient.post(
            RPC_PATH,
            json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message("fault-stall")}},
            headers=V1,
        )
    faults = [e["response"].get("fault") for e in s.journal if e["kind"] == "jsonrpc"]
    assert faults == [None, "reset", "truncate", "drip", "stall"]
    assert s.send("env-wrong").json()["id"] == "a2a-lab-wrong-id-1"
    assert s.send("env-null").json()["id"] is None
    both = s.send("env-omit-both").json()
    assert "id" not in both and "result" in both and "error" in both
    neither = s.send("env-echo-neither").json()
    assert neither["id"] == 1 and "result" not in neither and "error" not in neither


def test_stream_options(serve: Callable[[str], Lab]) -> None:
    s = serve(MAIN)
    a = sse_events(s.rpc("SendStreamingMessage", {"message": message("stream-a")}).text)
    assert a[0].comments == ("hello",), "comments first"
    assert any("ping" in c for e in a for c in e.comments), "ping_ms: keep-alive comments"
    states = [
        e.data["result"]["statusUpdate"]["status"]["state"] for e in a if e.data and "statusUpdate" in e.data["result"]
    ]
    assert states[:2] == ["TASK_STATE_SUBMITTED"] * 2, "first_event: status; duplicate_events"
    assert "TASK_STATE_COMPLETED" not in states, "omit_terminal"
    b = [e.data["result"] for e in sse_events(s.rpc("SendStreamingMessage", {"message": message("stream-b")}).text)]
    assert next(iter(b[0])) == "task", "first_event: task"
    b_states = [e["statusUpdate"]["status"]["state"] for e in b if "statusUpdate" in e]
    assert b_states == ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"], "close_at_interrupted: false"
    assert b[-1]["task"]["status"]["state"] == "TASK_STATE_COMPLETED", "final_snapshot"
    timed = [
        e.data["result"] for e in sse_events(s.rpc("SendStreamingMessage", {"message": message("stream-timed")}).text)
    ]
    assert timed[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED", "advance.after_ms: time moves it"
    err = sse_events(s.rpc("SendStreamingMessage", {"message": message("stream-error")}).text)[-1].data["error"]
    assert (err["code"], err["message"]) == (-31999, "boom")
    nd = s.rpc("SendStreamingMessage", {"message": message("stream-ndjson")})
    assert nd.headers["content-type"] == "application/x-ndjson", "framing: ndjson"
    nd_states = [json.loads(line)["result"] for line in nd.text.splitlines()]
    assert "task" in nd_states[0] and nd_states[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    pretty = s.rpc("SendStreamingMessage", {"message": message("stream-pretty")})
    pretty_events = [e.data for e in sse_events(pretty.text) if e.data is not None]
    assert pretty.text.count("data:") > 3 * len(pretty_events), "framing: sse-multiline"
    assert "task" in pretty_events[0] and "jsonrpc" not in pretty_events[0], "bare_events"
    with pytest.raises(httpx.TransportError):
        s.rpc("SendStreamingMessage", {"message": message("stream-drop")})
    assert s.journal[-1]["response"]["closed"] == "dropped"


def test_push_options(serve: Callable[[str], Lab], receiver: Callable[..., Receiver]) -> None:
    hook = receiver()
    s = serve(MAIN)
    port = hook.server.url.rsplit(":", 1)[1]
    config = {"url": f"http://0.0.0.0:{port}/hook", "authentication": {"scheme": "Bearer", "credentials": "good"}}
    elsewhere = {"url": "http://elsewhere.invalid/hook"}
    task = result(s.rpc("SendMessage", {"message": message("push"), "configuration": {"returnImmediately": True}}))
    task_id = task["task"]["id"]
    for cfg in (config, elsewhere):
        result(s.rpc("CreateTaskPushNotificationConfig", {"taskId": task_id, **cfg}))
    for _ in range(2):
        result(s.rpc("GetTask", {"id": task_id}))
    credentials = [headers["authorization"] for _, headers, _ in hook.wait(2)]
    assert credentials == [f"Bearer {PROBE_CREDENTIALS}", "Bearer good"], "probe first; 0.0.0.0 is on the allow-list"
    journal = s.journal
    assert any(
        "elsewhere.invalid" in str(e.get("response", {}).get("refused", "")) for e in journal if e["kind"] == "push"
    )
    assert any(e["kind"] == "push-limit" for e in journal), "push_deliveries_per_task: 2"


def test_limits(serve: Callable[[str], Lab]) -> None:
    s = serve(MAIN)
    assert s.rpc("SendMessage", {"message": message("x" * 5000)}).status_code == 413, "body_bytes"
    deep: Any = "x"
    for _ in range(10):
        deep = {"d": deep}
    too_deep = error(s.rpc("SendMessage", {"message": message("deep", metadata=deep)}))
    assert too_deep["code"] == -32600 and "deeper than 8" in too_deep["message"], "json_depth"
    ids = [result(s.send(f"t{i}"))["task"]["id"] for i in range(4)]
    assert error(s.rpc("GetTask", {"id": ids[0]}))["code"] == -32001, "tasks: the oldest of 4 is forgotten"
    assert s.app.state.journal.snapshot()["cap"] == 500, "journal_entries"
    with connect(s.url) as sock:
        sock.sendall(post_head(RPC_PATH, 1000) + b'{"jsonrpc"')
        status, _, _ = parse(read_to_close(sock))
    assert status == 408, "body_seconds"
    held = result(s.send("task-never"))["task"]["id"]
    with s.http.stream(
        "POST",
        RPC_PATH,
        json={"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask", "params": {"id": held}},
        headers=V1,
    ) as open_stream:
        assert open_stream.status_code == 200
        lines = open_stream.iter_lines()  # kept: a dropped line iterator closes the stream
        assert next(lines).startswith("data:"), "the task snapshot: the subscription is open"
        opened = time.monotonic()
        refused = error(s.rpc("SendStreamingMessage", {"message": message("one too many")}))
        rest = list(lines)  # until the server closes the stream
        idle_for = time.monotonic() - opened
    assert refused["code"] == -32004 and "limit 1" in refused["message"], "streams"
    comments = [line for line in rest if line.startswith(":")]
    assert len(comments) >= 3 and all("ping" in c for c in comments[:-1]), "stream_ping_seconds: 0.2"
    assert "after 1 s without an event" in comments[-1] and not any(line.startswith("data:") for line in rest)
    # the server's idle clock starts when it writes the snapshot, a moment before this side has read it
    assert 0.9 <= idle_for < 2.5, "stream_idle_seconds: 1"
    idle = [e for e in s.journal if e.get("response", {}).get("closed") == "idle"]
    assert [e["operation"] for e in idle] == ["SubscribeToTask"], "journaled as closed for idleness"
    many = message("parts", parts=[{"text": str(i)} for i in range(5)])
    too_many = error(s.rpc("SendMessage", {"message": many}))
    assert too_many["code"] == -32602 and "limits.parts_per_message" in too_many["message"], "parts_per_message"
    too_big = error(s.rpc("SendMessage", {"message": message("x" * 2500)}))
    assert too_big["code"] == -32602 and "limits.task_bytes is 7,000 bytes" in too_big["message"], "task_bytes"
    hooked = result(s.send("hooks"))["task"]["id"]
    for i in range(3):
        result(s.rpc("CreateTaskPushNotificationConfig", {"taskId": hooked, "url": f"http://127.0.0.1:9/{i}"}))
    fourth = error(s.rpc("CreateTaskPushNotificationConfig", {"taskId": hooked, "url": "http://127.0.0.1:9/4"}))
    assert fourth["code"] == -32004 and "limits.push_configs_per_task is 3" in fourth["message"]
    large = {"taskId": hooked, "url": "http://127.0.0.1:9/big", "token": "t" * 1000}
    assert "limits.push_config_bytes" in error(s.rpc("CreateTaskPushNotificationConfig", large))["message"]
    assert s.http.get("/.well-known/agent-card.json").status_code == 200
    assert 0 < s.app.state.cached_card_bytes <= 100_000, "card_cache_bytes"
    journal = s.http.get("/_lab/journal", headers=s.admin).json()
    assert journal["cap_bytes"] == 400_000 and 0 < journal["bytes"] <= 400_000, "journal_bytes"


def test_grpc_replies(serve: Callable[[str], Lab]) -> None:
    """reply.grpc over a real gRPC call: another status without details; OK without a message; and reply.raw's
    body_base64 as the answer message, byte for byte."""
    grpc = pytest.importorskip("grpc", reason="the grpc extra (grpcio) is not installed")
    from a2a_lab.protocol import grpcwire, protobuf
    from a2a_lab.protocol.operations import Operation

    s = serve(GRPC)
    card = s.http.get("/.well-known/agent-card.json").json()
    address = card["supportedInterfaces"][0]["url"]
    with grpc.insecure_channel(address) as channel:
        get = channel.unary_unary(grpcwire.method_path(Operation.GET_TASK))
        with pytest.raises(grpc.RpcError) as refused:
            get(protobuf.encode_request(Operation.GET_TASK, {"id": "t"}), metadata=[("a2a-version", "1.0")], timeout=5)
        assert refused.value.code() is grpc.StatusCode.UNIMPLEMENTED
        assert grpcwire.STATUS_DETAILS_KEY not in dict(refused.value.trailing_metadata() or ())
        send = channel.unary_unary(grpcwire.method_path(Operation.SEND_MESSAGE))
        message = {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
        answer = send(
            protobuf.encode_request(Operation.SEND_MESSAGE, message), metadata=[("a2a-version", "1.0")], timeout=5
        )
        assert answer is None  # grpcio's sync client returns None for a unary call that ended OK with no message
        cancel = channel.unary_unary(grpcwire.method_path(Operation.CANCEL_TASK))
        task = cancel(protobuf.encode_request(Operation.CANCEL_TASK, {"id": "abc"}), metadata=[("a2a-version", "1.0")])
        assert task == b"\n\x03abc\x1a\x02\x08\x05"  # Task{id: abc, status: {state: TASK_STATE_CANCELED}}


@pytest.mark.parametrize("certificate", list(TLS))
def test_tls(serve: Callable[[str], Lab], certificate: str) -> None:
    """`tls.certificate`: served over https with that certificate, which a client trusting the lab CA accepts only
    when valid; `{http_base_url}` is the same server's plain-HTTP listener."""
    s = serve(TLS[certificate])
    assert s.url.startswith("https://")
    if certificate != "valid":
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            s.http.get("/.well-known/agent-card.json")
        return
    card = s.http.get("/.well-known/agent-card.json").json()
    secure, plain = (i["url"] for i in card["supportedInterfaces"])
    assert secure.startswith("https://") and plain.startswith("http://127.0.0.1:") and plain != secure
    reached = httpx.post(
        plain, json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}, headers=V1
    )
    assert error(reached)["code"] == -32001  # TaskNotFound: the plain listener answers A2A
    kinds = [(e["kind"], "tls" in e) for e in s.journal]
    assert ("tls", True) in kinds and ("card", True) in kinds and ("jsonrpc", False) in kinds


def test_tls_client_certificate(serve: Callable[[str], Lab]) -> None:
    """`tls.client_certificate` (and the action `client_certificate`): A2A calls need a verified client
    certificate; without one they are refused as unauthenticated."""
    s = serve(MUTUAL_TLS)
    assert s.scenario.client.action == {"client_certificate": True}
    assert error(call(s, "GetTask", {"id": "x"}), 401)["code"] == -32010
    made = tls.pki()
    with_cert = ssl.create_default_context(cafile=made.ca_file)
    with_cert.load_cert_chain(made.client_cert_file, made.client_key_file)
    with httpx.Client(base_url=s.url, verify=with_cert, trust_env=False) as http:
        answer = http.post(
            RPC_PATH, json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}, headers=V1
        )
    assert answer.json()["error"]["code"] == -32001  # TaskNotFound: past the certificate check
    presented = [e["tls"]["client_certificate"] for e in s.journal if e["kind"] == "jsonrpc"]
    assert presented == ["absent", "verified"]


def test_matrix(tmp_path: Path) -> None:
    """`matrix`: one scenario per combination not excluded, ids `<file>/<version>-<binding>`; `let` names filled per
    value, `overlay` merged per value; each member served as an ordinary scenario."""
    members = load_scenarios(write_scenario(tmp_path, FAMILY, "fam.yaml"), "format/fam")
    assert sorted(members) == ["format/fam/0.3-jsonrpc", "format/fam/1.0-http-json", "format/fam/1.0-jsonrpc"]
    lab = Lab(members["format/fam/0.3-jsonrpc"])
    try:
        card = lab.http.get("/.well-known/agent-card.json").json()
        assert (card["url"], card["preferredTransport"]) == (lab.url + "/rpc", "JSONRPC")
        sent = lab.http.post(
            "/rpc", json={"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message03()}}
        )
        assert sent.json()["result"]["parts"][0]["text"] == "over JSONRPC in 0.3"
    finally:
        lab.close()
    lab = Lab(members["format/fam/1.0-http-json"])
    try:
        (iface,) = lab.http.get("/.well-known/agent-card.json").json()["supportedInterfaces"]
        assert iface == {"url": lab.url + "/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
        sent = lab.http.post("/rest/message:send", json={"message": message()}, headers=V1)
        assert sent.json()["message"]["parts"][0]["text"] == "over HTTP+JSON in 1.0"
    finally:
        lab.close()


def test_style_leniency_and_error_message_entries(serve: Callable[[str], Lab]) -> None:
    s = serve(DIALECT)
    legacy, current = s.http.get("/.well-known/agent-card.json"), s.http.get("/.well-known/agent-card.json", headers=V1)
    assert legacy.json()["name"] == "the 0.3 view" and current.json()["name"] == "the 1.0 view", "card.versions"
    assert legacy.headers["vary"] == current.headers["vary"] == "A2A-Version"
    assert "etag" in legacy.headers and "last-modified" not in legacy.headers, "card.last_modified: false"
    assert current.json()["supportedInterfaces"] == [{"url": f"{s.url}/rpc"}], "{base_url} filled in"
    refused = s.send("no header", version=None)
    assert refused.headers["content-type"] == "application/json; charset=utf-8", "media_types.JSONRPC"
    assert error(refused) == {"code": -32601, "message": "Method not found: SendMessage"}, (
        "error_messages[]: answer, requested"
    )
    gone = s.rpc("GetTask", {"id": "nope"})
    info = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "GONE", "domain": "a2a-protocol.org"}
    assert error(gone, 410) == {"code": -32001, "message": "No task nope", "data": [info]}, "message, reason, status"
    task = result(s.send("done"))["task"]
    refusal = error(s.rpc("CancelTask", {"id": task["id"]}))
    assert "metadata" not in refusal["data"][0], "error_metadata: false"
    plain = s.http.post(RPC_PATH, content=b"{}", headers={**V1, "Content-Type": "text/plain"})
    assert error(plain)["message"] == "not text/plain", "{contentType}"
    sse = s.rpc("tasks/resubscribe", {"id": task["id"]}, version=None)
    assert sse.headers["content-type"] == "text/event-stream" and sse.headers["cache-control"] == "no-cache"
    assert sse.text == json.dumps(
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32004, "message": f"done: {task['id']}"}},
        separators=(",", ":"),
    ).join(("event: error\ndata: ", "\n\n")), "error_messages[].sse"
    stream = s.send("go", method="SendStreamingMessage")
    assert stream.headers["content-type"] == "text/event-stream" and stream.headers["cache-control"] == "no-cache"
    assert "\r" not in stream.text and stream.text.count("\n\ndata: ") == 3, "sse_line_end: lf, four events"
    sent = {"message": {**message03("v03"), "messageId": "m-v03"}}
    events03 = [e.data["result"] for e in sse_events(s.rpc("message/stream", sent, version=None).text)]
    (update,) = [e for e in events03 if e["kind"] == "artifact-update"]
    assert update["append"] is False and update["lastChunk"] is True, "explicit_artifact_flags"
    rest03 = {"message": {"messageId": "m-r03", "role": "ROLE_USER", "content": [{"text": "r"}]}}
    status03 = [
        e.data["statusUpdate"]
        for e in sse_events(s.http.post(f"{REST_PATH}/v1/message:stream", json=rest03).text)
        if "statusUpdate" in e.data
    ]
    assert "final" not in status03[0] and status03[-1]["final"] is True, "omit_final_false"
    notification = {"jsonrpc": "2.0", "method": "GetTask", "params": {"id": task["id"]}}
    notified = s.http.post(RPC_PATH, json=notification, headers=V1)
    assert notified.json()["id"] is None and notified.json()["result"]["id"] == task["id"], "leniency.notifications"
    created = s.http.post(f"{REST_PATH}/message:send", json={"message": message("rest")})
    assert created.status_code == 201 and created.json()["task"], (
        "leniency.route_version (no header: 1.0), reply.http_status"
    )
    assert created.headers["content-type"] == "application/a2a+json; charset=utf-8"
    v03 = s.http.get(f"{REST_PATH}/v1/tasks/{task['id']}")
    assert v03.headers["content-type"] == "application/json; charset=utf-8", "media_types: HTTP+JSON 0.3"
    for verb, path in (("GET", "/nope"), ("GET", RPC_PATH), ("GET", f"{REST_PATH}/nope")):
        page = s.http.request(verb, path)
        assert (page.status_code, page.headers["content-type"]) == (404, "text/html; charset=utf-8"), path
        assert page.text == f"<pre>Cannot {verb} {path}</pre>", "not_found"
    assert page.headers["x-content-type-options"] == "nosniff" and page.headers["x-powered-by"] == "Express"
    assert "etag" not in page.headers, "a page is not an answer of the A2A endpoints"
    assert created.headers["x-powered-by"] == "Express", "style.headers"
    assert created.headers["etag"] == express_etag(created.content), "style.body_etag"
    assert list(created.json()["task"]) == ["status", "history", "artifacts", "contextId", "id"], "member_order"
    assert legacy.headers["x-powered-by"] == stream.headers["x-powered-by"] == "Express", "on the card and streams"
    no_params = s.http.post(RPC_PATH, json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": 7}, headers=V1)
    assert error(no_params)["message"] == "params, asked 1.0", "error_messages[].field"
    crlf = serve(DIALECT_CRLF)
    assert "\r\n\r\n" in crlf.send("go", method="SendStreamingMessage").text, "sse_line_end: crlf"


@pytest.mark.parametrize(
    ("mode", "served"),
    [("any", {"acme", "message:send", "other"}), ("declared", {"acme"}), ("none", set())],
)
def test_tenant_routes_are_data(serve: Callable[[str], Lab], mode: str, served: set[str]) -> None:
    """`tenant_routes`: which first path segments a 1.0 HTTP+JSON route may take as its tenant. `none` is a server
    without tenants: a client that doubles a method path (`/message:send/message:send`) is not served there."""
    s = serve(TENANT_ROUTES[mode])
    body = {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
    assert s.http.post(f"{REST_PATH}/message:send", json=body, headers=V1).status_code == 200
    for tenant in ("acme", "message:send", "other"):
        answered = s.http.post(f"{REST_PATH}/{tenant}/message:send", json=body, headers=V1)
        assert (answered.status_code == 200) is (tenant in served), (tenant, answered.status_code, answered.text)


def test_edits_change_what_the_server_generates_and_keep_its_ids(
    serve: Callable[[str], Lab], receiver: Callable[..., Receiver]
) -> None:
    """`reply.edit`, a stream event's `edit`, `push.edit` and `card.edit`: the generated ids stay, and the journal keeps
    what was sent."""
    s = serve(EDITED)
    card = s.http.get("/.well-known/agent-card.json").json()
    assert card["version"] == 2 and card["name"] == "every-option agent", "card.edit: a number, on purpose"
    task = result(s.rpc("SendMessage", {"message": message("edit me")}))
    assert task["status"]["state"] == "submitted" and "context_id" in task and "contextId" not in task
    assert "history" not in task and list(task)[:2] == ["id", "context_id"], "unwrap, set, rename in place, delete"
    wrapped = result(s.rpc("GetTask", {"id": task["id"]}))
    assert list(wrapped) == ["task"] and wrapped["task"]["id"] == task["id"], "wrap: the generated id kept"
    bare = s.http.get(f"{REST_PATH}/tasks/{task['id']}", headers=V1).json()
    assert bare["id"] == task["id"], "the rule applies to JSON-RPC only"
    sent = next(e for e in s.journal if e.get("rpc", {}).get("method") == "GetTask")
    assert json.loads(sent["response"]["body"]["text"])["result"]["task"]["id"] == task["id"], "journaled as sent"
    with s.http.stream(
        "POST",
        RPC_PATH,
        json={"jsonrpc": "2.0", "id": 9, "method": "SendStreamingMessage", "params": {"message": message("s")}},
        headers=V1,
    ) as streamed:
        events = [json.loads(line[5:]) for line in streamed.iter_lines() if line.startswith("data:")]
    assert "status_update" in events[1]["result"] and all("status_update" not in e["result"] for e in events[2:])
    hook = receiver()
    port = hook.server.url.rsplit(":", 1)[1]
    pushed = result(s.rpc("SendMessage", {"message": message("push", message_id="m-2")}))
    result(s.rpc("CreateTaskPushNotificationConfig", {"taskId": pushed["id"], "url": f"http://0.0.0.0:{port}/hook"}))
    result(s.rpc("GetTask", {"id": pushed["id"]}))
    [(_, _, body)] = hook.wait(1)
    assert "status_update" in body and "statusUpdate" not in body, body


@pytest.mark.parametrize("origin_root", list(PREFIXED))
def test_base_path_serves_everything_under_the_prefix(serve: Callable[[str], Lab], origin_root: str) -> None:
    """`base_path`: the card, `{base_url}` and the endpoints under the prefix; `card.origin_root`: what the origin's
    own card path answers (`serve`: the card, naming the prefixed endpoints)."""
    text, status = PREFIXED[origin_root]
    s = serve(text)
    card = s.http.get("/agents/demo/.well-known/agent-card.json").json()
    assert card["description"] == f"Served from {s.url}/agents/demo."
    send = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message()}}
    assert result(s.http.post("/agents/demo" + RPC_PATH, json=send, headers=V1))["task"]["id"]
    assert s.http.post(RPC_PATH, json=send, headers=V1).status_code == 404, "nothing outside the prefix"
    root = s.http.get("/.well-known/agent-card.json")
    assert root.status_code == status, root.text
    if origin_root == "serve":
        assert root.json() == card
    elif origin_root == "raw":
        assert (root.text, root.headers["content-type"]) == ("Method Not Allowed", "text/plain")
