"""Protocol versions and the A2A-Version service parameter (spec §3.6)."""

from __future__ import annotations

import re
from enum import Enum
from functools import lru_cache

HEADER = "A2A-Version"
QUERY_PARAM = "A2A-Version"
EXTENSIONS_HEADER = "A2A-Extensions"
LEGACY_EXTENSIONS_HEADER = "X-A2A-Extensions"


def activated_extensions(headers: dict[str, str]) -> set[str]:
    """The extension URIs a request activates: `A2A-Extensions` (or the 0.3 `X-A2A-Extensions`), comma-separated."""
    raw = ",".join(headers.get(h.lower(), "") for h in (EXTENSIONS_HEADER, LEGACY_EXTENSIONS_HEADER))
    return {part.strip() for part in raw.split(",") if part.strip()}


_VERSION_RE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")


class Version(str, Enum):
    """The protocol versions a2a-lab speaks, as Major.Minor."""

    V1_0 = "1.0"
    V0_3 = "0.3"


_BY_VALUE: dict[str | None, Version] = {v.value: v for v in Version}


def parse(text: str | None) -> tuple[int, int, int | None] | None:
    """Split a version string into (major, minor, patch); None when it is not a version."""
    if text is None:
        return None
    match = _VERSION_RE.match(text.strip())
    if not match:
        return None
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch) if patch is not None else None


@lru_cache(maxsize=256)  # every request names its version: a handful of distinct texts
def major_minor(text: str | None) -> str | None:
    """`"1.0.1"` -> `"1.0"`; None when the text is not a version."""
    parsed = parse(text)
    return None if parsed is None else f"{parsed[0]}.{parsed[1]}"


def has_patch(text: str | None) -> bool:
    parsed = parse(text)
    return parsed is not None and parsed[2] is not None


def to_known(text: str | None) -> Version | None:
    """The Version a version string names (patch ignored, §3.6), or None when a2a-lab does not speak it."""
    return _BY_VALUE.get(major_minor(text))


def interface_version(declared: str | None) -> str:
    """The Major.Minor an interface declares; an absent or empty version means 0.3 (§3.6.2)."""
    if declared is None or str(declared).strip() == "":
        return Version.V0_3.value
    return major_minor(str(declared)) or str(declared)


def requested(header_value: str | None) -> str:
    """The Major.Minor a request asks for; absent or empty means 0.3 (§3.6.1, §3.6.2).

    An unparseable value is returned as given so that the caller can refuse it by name.
    """
    if header_value is None or header_value.strip() == "":
        return Version.V0_3.value
    return major_minor(header_value) or header_value.strip()
