"""`a2a-lab record`: a live server's card and one SendMessage exchange per interface (gRPC ones too, with the `grpc`
extra), captured into a scenario file that replays them byte for byte (`a2a-lab serve FILE.yaml`).

    from a2a_lab.harness.server_judging.record import capture, document, render, write
"""

from a2a_lab.harness.common.scenario_writer import RecordError, render, write
from a2a_lab.harness.server_judging.record.capture import Capture, Recorded, capture
from a2a_lab.harness.server_judging.record.scenario_file import document

__all__ = ["Capture", "RecordError", "Recorded", "capture", "document", "render", "write"]
