"""The one reader of ACTS files (A2A Conformance Test Specification, version 0.1.0, its Appendix A grammar).

    grammar.py   the grammar as data: field names, choices, operators, aliases (a later ACTS version: a change here)
    records.py   the typed records everything else reads
    fields.py    typed field access, and ActsError
    reader.py    files, include, variables; load(), load_behaviors()
    suites.py    suites and tests (§3)
    steps.py     steps and their expect blocks (§4, §6, §7, §9)
    checks.py    the assertion grammar (§5) and dot-paths
 Files are YAML or JSON (§1.4), read within bounds
(`contract.userfile.ACTS`); a suite file's `include` list is followed relative to the including file (§16), each file
once. Every refusal is an `ActsError` naming the file, the path in it (`suites[0].tests[2].steps[1].expect`), what is
wrong and how to fix it (did-you-mean for a misspelt field or choice).

Where the official files (a2aproject/A2A, branch conformance-spec) spell a construct otherwise than the 0.1.0 text,
the reader accepts their spelling as an alias and says so in docs/how-to/acts.md:

- operations `set_push_notification_config`, `get_push_notification_config`, `list_push_notification_configs`,
  `delete_push_notification_config` for `create_push_config`, `get_push_config`, `list_push_configs`,
  `delete_push_config`;
- `expect_error.code` for `expect_error.error_type` (an error name, a JSON-RPC code, or an assertion on either);
- `get_agent_card` with `params: {extended: true}` for `get_extended_agent_card`;
- `expect: {status: error, error: ASSERTION}`, and on an abstract operation `expect: {error: ASSERTION}`, for an
  expect-error of any error type (`error` asserts on the error object: code, message, data or details);
- an `expect_error` without `error_type` (or `code`) for an error of any type;
- `expect_stream` on a raw step, judged on the raw answer's SSE events (their `data`, envelopes kept);
- the operator `items: {...}` (every element of an array matches);
- an empty list where the grammar says `[+ ...]` (`requires_behaviors: []`) reads as the field left out.
"""

from __future__ import annotations

from a2a_lab.harness.acts.document.checks import (
    check_assertion,
    check_assertion_map,
    is_operator_map,
    suggest_operator,
)
from a2a_lab.harness.acts.document.fields import ActsError, Fields
from a2a_lab.harness.acts.document.grammar import (
    ACTS_MAJORS,
    ACTS_SPEC,
    BACKOFFS,
    ERROR_TYPES,
    EVENT_KINDS,
    LEVELS,
    MAX_ATTEMPTS,
    MAX_WAIT_MS,
    OPERATION_ALIASES,
    OPERATIONS,
    OPERATORS,
    ORDERINGS,
    RAW_METHODS,
    RESOLVED_CHARS,
    RESOLVED_REFERENCES,
    RUNNER_REQUIREMENTS,
    STREAMING_OPERATIONS,
    TRANSPORTS,
    TYPES,
    VARIABLE_DEPTH,
)
from a2a_lab.harness.acts.document.reader import check_unique, load, load_behaviors
from a2a_lab.harness.acts.document.records import (
    CollectionMatch,
    Document,
    Expect,
    ExpectError,
    ExpectStream,
    NamedAssertion,
    Preconditions,
    RawRequest,
    Repeat,
    Step,
    Suite,
    Test,
    Until,
    Where,
)
from a2a_lab.harness.acts.document.steps import parse_until

__all__ = [
    "ACTS_MAJORS",
    "ACTS_SPEC",
    "BACKOFFS",
    "ERROR_TYPES",
    "EVENT_KINDS",
    "LEVELS",
    "MAX_ATTEMPTS",
    "MAX_WAIT_MS",
    "OPERATIONS",
    "OPERATION_ALIASES",
    "OPERATORS",
    "ORDERINGS",
    "RAW_METHODS",
    "RESOLVED_CHARS",
    "RESOLVED_REFERENCES",
    "RUNNER_REQUIREMENTS",
    "STREAMING_OPERATIONS",
    "TRANSPORTS",
    "TYPES",
    "VARIABLE_DEPTH",
    "ActsError",
    "CollectionMatch",
    "Document",
    "Expect",
    "ExpectError",
    "ExpectStream",
    "Fields",
    "NamedAssertion",
    "Preconditions",
    "RawRequest",
    "Repeat",
    "Step",
    "Suite",
    "Test",
    "Until",
    "Where",
    "check_assertion",
    "check_assertion_map",
    "check_unique",
    "is_operator_map",
    "load",
    "load_behaviors",
    "parse_until",
    "suggest_operator",
]
