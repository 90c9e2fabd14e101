"""`a2a-lab probe`: the reference client turned on a server — does it do what its card says?

    from a2a_lab.harness.server_judging.probe import probe
    run = probe("http://127.0.0.1:8000")
    run.results[1].check("SEND-MESSAGE").outcome

The card is fetched and linted (`probe/card`, CARD-VALID); then every declared interface a2a-lab speaks (JSON-
RPC or HTTP+JSON, A2A 1.0 or 0.3; gRPC in A2A 1.0 with the `grpc` extra) gets the checks of definitions.py, as
one result each (`probe/<index>-<binding>-<version>`), in the harness's result model and reports. Harmless
calls only: one message (plus a GetTask follow-up, and a stream when the card declares streaming), and GetTask
/ CancelTask on an id no server issued.
"""

from a2a_lab.harness.server_judging.probe.definitions import INTERFACE_CHECKS, PROBE_CHECKS, ProbeCheck
from a2a_lab.harness.server_judging.probe.runner import NothingToProbe, ProbeOptions, ProbeRun, probe

__all__ = ["INTERFACE_CHECKS", "PROBE_CHECKS", "NothingToProbe", "ProbeCheck", "ProbeOptions", "ProbeRun", "probe"]
