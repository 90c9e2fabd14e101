"""Versions and the A2A-Version service parameter (spec §3.6): Major.Minor, patch ignored, absent = 0.3."""

from __future__ import annotations

import pytest

from a2a_lab.protocol import versions
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.negotiation import negotiate
from a2a_lab.protocol.versions import Version

V1, V03 = Version.V1_0, Version.V0_3


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("1.0", (1, 0, None)),
        ("1.0.1", (1, 0, 1)),
        ("0.3", (0, 3, None)),
        ("0.3.0", (0, 3, 0)),
        (" 1.0 ", (1, 0, None)),
        ("10.20.30", (10, 20, 30)),
        ("2.0", (2, 0, None)),
    ],
)
def test_parse_versions(text: str, parsed: tuple[int, int, int | None]) -> None:
    assert versions.parse(text) == parsed


@pytest.mark.parametrize(
    "text", [None, "", "1", "v1.0", "1.0.", "1.0.1.2", "1.x", "one", "1,0", "-1.0", "1.0-rc1", "1..0"]
)
def test_parse_rejects_non_versions(text: str | None) -> None:
    assert versions.parse(text) is None
    assert versions.major_minor(text) is None
    assert versions.to_known(text) is None
    assert versions.has_patch(text) is False


@pytest.mark.parametrize(
    ("text", "mm", "patch"),
    [("1.0.1", "1.0", True), ("1.0", "1.0", False), ("0.3.0", "0.3", True), ("0.3", "0.3", False)],
)
def test_major_minor_drops_the_patch(text: str, mm: str, patch: bool) -> None:
    assert versions.major_minor(text) == mm
    assert versions.has_patch(text) is patch


@pytest.mark.parametrize(
    ("text", "known"),
    [
        ("1.0", V1),
        ("1.0.1", V1),
        ("1.0.99", V1),
        ("0.3", V03),
        ("0.3.0", V03),
        ("0.3.7", V03),
        ("1.1", None),
        ("2.0", None),
        ("0.2", None),
        ("0.2.6", None),
    ],
)
def test_to_known(text: str, known: Version | None) -> None:
    assert versions.to_known(text) is known


@pytest.mark.parametrize(
    ("declared", "expected"),
    [
        (None, "0.3"),
        ("", "0.3"),
        ("   ", "0.3"),  # absent means 0.3 (§3.6.2)
        ("1.0", "1.0"),
        ("1.0.1", "1.0"),
        ("0.3.0", "0.3"),
        ("2.5", "2.5"),
        ("weird", "weird"),  # unparseable versions are kept as given, so that a report can name them
    ],
)
def test_interface_version(declared: str | None, expected: str) -> None:
    assert versions.interface_version(declared) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, "0.3"),
        ("", "0.3"),
        ("  ", "0.3"),
        ("1.0", "1.0"),
        ("1.0.1", "1.0"),
        (" 1.0 ", "1.0"),
        ("0.3", "0.3"),
        ("2.0", "2.0"),
        ("banana", "banana"),
    ],
)
def test_requested_version(header: str | None, expected: str) -> None:
    assert versions.requested(header) == expected


def test_version_enum_and_names() -> None:
    assert [v.value for v in Version] == ["1.0", "0.3"]
    assert versions.HEADER == "A2A-Version" and versions.QUERY_PARAM == "A2A-Version"
    assert versions.EXTENSIONS_HEADER == "A2A-Extensions" and versions.LEGACY_EXTENSIONS_HEADER == "X-A2A-Extensions"


# ------------------------------------------------------------------------------------ negotiation

BOTH = (V1, V03)


def test_matching_version_is_served() -> None:
    assert negotiate("1.0", True, V1, BOTH, "SendMessage") is None
    assert negotiate("0.3", False, V03, BOTH, "message/send") is None
    assert negotiate("0.3", True, V03, (V03,), "message/send") is None


def test_v1_method_without_header_is_version_not_supported() -> None:
    err = negotiate("0.3", False, V1, BOTH, "SendMessage")
    assert err is not None and err.type is ErrorType.VERSION_NOT_SUPPORTED and err.code == -32009
    assert "no A2A-Version header" in err.text and "A2A-Version: 1.0" in err.text
    assert err.metadata == {"requestedVersion": "0.3", "supportedVersions": "1.0,0.3"}
    assert err.details()[0]["reason"] == "VERSION_NOT_SUPPORTED"


def test_unknown_version_is_version_not_supported() -> None:
    err = negotiate("2.0", True, V1, BOTH, "SendMessage")
    assert err is not None and err.code == -32009 and "'2.0'" in err.text
    assert "no A2A-Version header" not in err.text


def test_version_the_interface_does_not_serve() -> None:
    err = negotiate("1.0", True, V1, (V03,), "SendMessage")
    assert err is not None and err.code == -32009 and "serves 0.3" in err.text
    err = negotiate("0.3", False, V03, (V1,), "message/send")
    assert err is not None and err.code == -32009 and "no A2A-Version header was sent" in err.text


def test_v03_method_under_a_v1_header_is_method_not_found() -> None:
    err = negotiate("1.0", True, V03, BOTH, "message/send")
    assert err is not None and err.type is ErrorType.METHOD_NOT_FOUND and err.code == -32601
    assert "message/send" in err.text and "0.3" in err.text
