"""What a scenario's `leniency` lets pass before a request is negotiated: the A2A-Version it is read with, and
whether its Content-Type matters. (`missing_kind` is applied where 0.3 messages are read.)"""

from __future__ import annotations

from a2a_lab.contract.scenario import Scenario
from a2a_lab.protocol import versions
from a2a_lab.protocol.versions import Version

from .http import is_json_type


def version_asked(
    scenario: Scenario, requested: str, given: bool, op_version: Version, route: bool = False
) -> tuple[str, bool]:
    """(the version a request is served as, whether the client named one), after the scenario's leniency:
    `ignore_version` serves each method in its own version whatever the header says (a server that predates the
    header); `route_version` serves an HTTP+JSON request (`route`) without the header at its route's version (the
    path names it); `minor_versions` reads a version whose major a2a-lab speaks as that version (`1.1` as `1.0`)."""
    if scenario.ignore_version or (route and not given and scenario.route_version):
        return op_version.value, given or scenario.ignore_version
    if scenario.lenient_minor and versions.to_known(requested) is None:
        major = requested.split(".", 1)[0]
        for known in Version:
            if known.value.split(".", 1)[0] == major and major != "0":
                return known.value, given
    return requested, given


def content_type_ok(scenario: Scenario, content_type: str | None, accepted: tuple[str, ...]) -> bool:
    """Whether a request body's Content-Type lets it be read (`any_content_type`: always)."""
    return scenario.lenient_content_type or is_json_type(content_type, accepted)
