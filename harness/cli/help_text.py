"""What `a2a-lab COMMAND --help` says beyond the options: what the command is for, examples, and its exit codes
(README: "The CLI"). The codes are Exit's (exit_codes.py); each command says what they mean for it."""

from __future__ import annotations

from .exit_codes import ClientExit, Exit

_SCORING = f"""exit codes:
  {Exit.OK:<3}  the gate passed
  {Exit.FAILED:<3}  checks failed: FAIL, TIMEOUT or NO_CONTACT (with --strict also NON_STRICT)
  {Exit.USAGE:<3}  usage error: a bad option, an unknown scenario or check id, a broken scenario or baseline file,
       a report path that cannot be written{{never_started}}
  {Exit.HARNESS:<3}  harness error (a scenario ended in ERROR){{interrupted}}"""

_INTERRUPTED = f"\n  {Exit.INTERRUPTED:<3}  interrupted (Ctrl-C, SIGTERM): clients killed, reports cover what finished"

EPILOGS: dict[str, str] = {
    "run": """examples:
  a2a-lab run                                          # the reference client, the whole catalogue
  a2a-lab run --client 'node my-client.js' -j 2        # the card URL is appended as the last argument
  a2a-lab run --client 'my-client --card {card_url}' --scenario 'quirks/*' --junit reports/junit.xml
  a2a-lab run --client ./bin/client --scenario ci/vendor-x.yaml --scenario ci/more/   # your own scenario files
  a2a-lab run --client ./bin/client --baseline a2a-baseline.yaml --json - > report.json

"""
    + _SCORING.format(
        never_started=";\n       the client never started (it exited before any request in every scenario)",
        interrupted=_INTERRUPTED,
    ),
    "score": """With --run-file (as `a2a-lab drive` writes it), exactly the scenarios driven are scored, each with what
the client's process did there (exit code, result file, output): the verdict `a2a-lab run` gives. With --run ID
(a client that drove itself), every scenario chosen.

examples:
  a2a-lab score --server http://lab:8000 --run-file run.json --junit junit.xml

"""
    + _SCORING.format(
        never_started=";\n       the client never started (the run file says: before any request in every scenario)",
        interrupted="",
    ),
    "drive": f"""The client gets the handshake and an allow-list of this environment (never the admin token); the run's
token stays in this process until every client is done: only then is the run file written.

examples:
  a2a-lab drive --server http://lab:8000 --client './bin/client' --run-file run.json
  a2a-lab drive --server http://server:8000 --webhook-host example-client --run-file /reports/run.json   # compose

exit codes:
  {Exit.OK:<3}  every scenario was driven (score it with `a2a-lab score`)
  {Exit.USAGE:<3}  usage error, the server refused the run, or the client never started (it exited before any
       request in every scenario: the end of its stderr is quoted)
  {Exit.INTERRUPTED:<3}  interrupted (Ctrl-C, SIGTERM)""",
    "client": f"""examples:
  a2a-lab client http://127.0.0.1:8000 'hello'
  a2a-lab client http://127.0.0.1:8000/.well-known/agent-card.json --stream --json

exit codes:
  {ClientExit.ANSWER:<3}  a message, or a task that stopped (finished, failed, rejected, waiting for the user)
  {ClientExit.NO_ANSWER:<3}  no answer: an error, or a task still running when the client gave up
  {ClientExit.USAGE:<3}  usage error (a bad URL, option or action)""",
    "serve": f"""examples:
  a2a-lab serve quirks/advertised-method-not-found --port 8000
  a2a-lab serve recorded.yaml --port 0                 # a scenario file; port 0 picks a free port
  a2a-lab serve --host 0.0.0.0 --allowed-host lab      # the whole catalogue, for other containers
  a2a-lab serve --host 0.0.0.0 --other-origin lab-alias --push-allow my-client   # client on another host

exit codes:
  {Exit.OK:<3}  stopped (Ctrl-C)
  {Exit.USAGE:<3}  usage error: an unknown scenario, a broken file, a port in use or out of range""",
    "scenarios": f"""examples:
  a2a-lab scenarios
  a2a-lab scenarios --scenario 'quirks/*' --json
  a2a-lab scenarios --scenario my-scenarios/          # your own files, as `run --scenario` takes them
  a2a-lab scenarios show quirks/advertised-method-not-found --json

exit codes:
  {Exit.OK:<3}  listed
  {Exit.USAGE:<3}  an unknown scenario id, a missing or broken scenario file""",
    "checks": f"""examples:
  a2a-lab checks
  a2a-lab checks --markdown > docs/checks.md

exit codes:
  {Exit.OK:<3}  listed""",
    "report": f"""examples:
  a2a-lab report merge shard-1/report.json shard-2/report.json --html merged --junit merged/junit.xml

exit codes:
  {Exit.OK:<3}  every merged report's gate passed
  {Exit.FAILED:<3}  a merged report's gate failed
  {Exit.USAGE:<3}  a report that cannot be read, a path that cannot be written""",
    "card": f"""examples:
  a2a-lab card check agent-card.json
  a2a-lab card check https://agent.example/.well-known/agent-card.json --json --jwks jwks.json

exit codes:
  {Exit.OK:<3}  the card has warnings at most
  {Exit.FAILED:<3}  the card has errors
  {Exit.USAGE:<3}  usage error: no card, not a URL""",
    "probe": """examples:
  a2a-lab probe http://127.0.0.1:8000 --json probe.json --html probe-report

"""
    + _SCORING.format(never_started="", interrupted="").replace(
        "checks failed: FAIL, TIMEOUT or NO_CONTACT", "checks failed, or an interface gave no answer"
    ),
    "acts": f"""ACTS 0.1.0: the A2A Conformance Test Specification (draft), docs/acts-specification.md and tests/acts in
the a2aproject/A2A repository. Server tests (--server) run over each binding the card declares (JSON-RPC,
HTTP+JSON, gRPC); client tests (client_response, --client) serve their payloads
to the client and compare the `parsed` object of its A2A_LAB_RESULT with expect_parsed.

examples:
  a2a-lab acts run A2A/tests/acts/suite.acts.yaml --server http://127.0.0.1:8000 --json reports/
  a2a-lab acts run core-operations.acts.yaml --server http://127.0.0.1:8000 --binding jsonrpc --level must
  a2a-lab acts run suite.acts.yaml --server http://127.0.0.1:8000 --test 'CORE-*' --tag streaming --junit acts.xml
  a2a-lab acts run client-parsing.acts.yaml --client 'python3 my_client.py {{card_url}}' --json acts.json

exit codes:
  {Exit.OK:<3}  the gate passed: every MUST test that ran passed (with --strict every SHOULD test too)
  {Exit.FAILED:<3}  a test failed
  {Exit.USAGE:<3}  usage error: a broken ACTS file (file, path, field, hint), no card, a bad option
  {Exit.HARNESS:<3}  runner error (a test ended in error)""",
    "fuzz": f"""examples:
  a2a-lab fuzz --client 'python3 my_client.py {{card_url}}' --budget 120s --seed 7
  a2a-lab fuzz --client builtin --budget 300 --scenario streaming/v1-stream -j 2 --json fuzz.json
  a2a-lab run --client 'python3 my_client.py {{card_url}}' --scenario fuzz-findings/client-survives-1.yaml

Every case is a scenario drawn by hypothesis (card, answer, task script, status messages, artifacts, stream
pacing; malformed answers too with --invalid), served through the ordinary runner and judged by the ordinary checks
plus: the client does not crash (CLIENT-SURVIVES: no stack trace, no signal), does not hang past the case's
timeout (TIMEOUT), and reports no result contradicting what was served (RESULT-MATCHES). Each failure is shrunk
and written to --out as a scenario file that `a2a-lab run --scenario FILE` reproduces. The same --seed draws the
same cases (with -j 1). Needs hypothesis: pip install 'a2a-lab[fuzz]'.

exit codes:
  {Exit.OK:<3}  no finding
  {Exit.FAILED:<3}  findings: each written to --out, and reproduced
  {Exit.USAGE:<3}  usage error: a bad option, a client that cannot be started, hypothesis missing
  {Exit.HARNESS:<3}  harness error (a finding's reproduction ended in ERROR)
  {Exit.INTERRUPTED:<3}  interrupted (Ctrl-C, SIGTERM): clients killed, the findings so far are written""",
    "record": f"""examples:
  a2a-lab record https://agent.example --out ci/vendor-x.yaml
  a2a-lab record --from-har session.har --out ci/vendor-x.yaml      # a capture from devtools or mitmproxy
  a2a-lab run --client ./bin/client --scenario ci/vendor-x.yaml     # then score a client against it

exit codes:
  {Exit.OK:<3}  the file was written
  {Exit.FAILED:<3}  the server could not be recorded
  {Exit.USAGE:<3}  usage error: not a URL, a file that exists (without --force), a HAR without A2A""",
    "proxy": f"""examples:
  a2a-lab proxy --upstream https://agent.example --port 8780 --html proxy.html
  A2A_CARD_URL=http://127.0.0.1:8780/.well-known/agent-card.json ./my-client   # the client talks to the proxy
  a2a-lab proxy --upstream http://127.0.0.1:9999 --out seen.yaml   # Ctrl-C: the verdict, and seen.yaml

exit codes:
  {Exit.OK:<3}  no FAIL on either side
  {Exit.FAILED:<3}  a FAIL: the client's (proxy/client) or the server's (proxy/server)
  {Exit.USAGE:<3}  usage error: not an http(s) URL, a port in use, an --out file that exists (without --force)
  {Exit.HARNESS:<3}  internal error""",
}
