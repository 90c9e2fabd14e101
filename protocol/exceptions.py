"""The one base of every exception a2a-lab raises on purpose.

Each class keeps the standard base it had before LabError (ValueError, OSError, RuntimeError): code that catches
that base goes on catching it; `except LabError` catches them all. The tree (module paths from the package root,
standard bases in brackets):

LabError
├── A2AError ............... protocol/errors.py                        an A2A error a server answers with
├── UnsupportedRequest ..... protocol/requests.py                      [ValueError]
├── DecodeError ............ protocol/protobuf.py                      [ValueError]
├── Refused ................ contract/userfile.py                      [ValueError]
├── ScenarioError .......... contract/loader/reader.py                 [ValueError]
├── OriginError ............ contract/placeholders.py                  [ValueError]
├── SelectionError ......... contract/catalogue.py                     [ValueError]
├── LoopAnswerError ........ contract/handshake.py                     [ValueError]
├── BodyTooLarge ........... server/http.py
├── BodyTimeout ............ server/http.py
├── RunsFull ............... server/shared.py
├── PortInUse .............. server/hosting.py                         [OSError]
├── _BadQuery .............. server/admin.py                           [ValueError]
├── NothingToProbe ......... harness/server_judging/probe/runner.py
├── ClientFailure .......... harness/clients/refclient/failures.py
│   └── UsageFailure ....... harness/clients/refclient/failures.py
├── RemoteError ............ harness/client_judging/remote.py          [RuntimeError]
├── BaselineError .......... harness/client_judging/baseline.py        [ValueError]
├── RecordError ............ harness/common/scenario_writer.py
├── CaptureError ........... harness/proxy/capture.py
├── HarError ............... harness/proxy/har.py
├── UpstreamError .......... harness/proxy/upstream.py
├── Busy ................... harness/proxy/upstream.py
├── SelfUpstream ........... harness/proxy/session.py
├── TooLarge ............... harness/ui/bodies.py
├── ClientEnvError ......... harness/client_judging/environment.py     [ValueError]
├── PresetError ............ harness/cli/presets.py                    [ValueError]
├── Refusal ................ harness/cli/run.py
├── UnusableInput .......... harness/server_judging/cardcheck/check.py
├── ActsError .............. harness/acts/document/fields.py           [ValueError]
├── Unresolved ............. harness/acts/assertions.py
├── IdentityError .......... harness/acts/identity.py
├── NotJudged .............. harness/acts/streams.py
└── StepFailed ............. harness/acts/runner.py

Outside the tree, on purpose:

- BudgetSpent .............. harness/client_judging/fuzz/search.py [BaseException] hypothesis treats every Exception a
  test raises as a failure (it shrinks and reports it); the fuzzer's "budget spent" signal must pass through it
  untouched, so it stays a BaseException, and LabError is an Exception.

tests/protocol/test_exceptions.py holds this docstring to the classes that exist.
"""

from __future__ import annotations


class LabError(Exception):
    """Something a2a-lab raises on purpose (see the module docstring for every subclass)."""
