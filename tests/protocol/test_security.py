"""Where credentials travel: the names that carry them, and the ones a card's securitySchemes declare."""

from __future__ import annotations

import pytest

from a2a_lab.protocol import security
from a2a_lab.protocol.security import DeclaredCredentials, declared_credentials


@pytest.mark.parametrize(
    "name",
    [
        "Authorization",
        "proxy-authorization",
        "Cookie",
        "X-Api-Key",
        "x_api_key",
        "apiKey",
        "X-Auth-Token",
        "X-A2A-Notification-Token",
        "x-goog-api-key",
        "Ocp-Apim-Subscription-Key",
        "token",
        "access_token",
        "refreshToken",
        "credentials",
        "clientSecret",
        "password",
        "PASSWD",
        "sessionId",
        "private_key",
    ],
)
def test_credential_names_in_any_spelling(name: str) -> None:
    assert security.credential_name(name) and security.credential_param(name)


@pytest.mark.parametrize(
    "name",
    ["pageToken", "nextPageToken", "maxTokens", "taskId", "messageId", "content-type", "A2A-Version", "host", "key"],
)
def test_names_that_are_no_credentials(name: str) -> None:
    """ListTasks' cursors end like a credential but are none; `key` is a credential only in a URL."""
    assert not security.credential_name(name)


def test_url_only_credential_parameters() -> None:
    for name in ("key", "sig", "signature", "X-Amz-Signature", "code"):
        assert security.credential_param(name) and not security.credential_name(name)


def test_every_credential_name_contains_a_stem() -> None:
    for name in (*security.CREDENTIAL_NAMES, *security.CREDENTIAL_SUFFIXES):
        assert any(stem in name for stem in security.CREDENTIAL_STEMS), name


def test_a_1_0_card_declares_api_keys_and_http_schemes() -> None:
    card = {
        "securitySchemes": {
            "h": {"apiKeySecurityScheme": {"location": "header", "name": "X-Lab-Ident"}},
            "q": {"apiKeySecurityScheme": {"location": "query", "name": "lab_ident"}},
            "c": {"apiKeySecurityScheme": {"location": "cookie", "name": "lab_c"}},
            "proto": {"api_key_security_scheme": {"location": "HEADER", "name": "X-Proto-Name"}},
            "bearer": {"httpAuthSecurityScheme": {"scheme": "DPoP"}},
            "oauth": {"oauth2SecurityScheme": {"flows": {}}},
        }
    }
    assert declared_credentials([card]) == DeclaredCredentials(
        headers=frozenset({"x-lab-ident", "x-proto-name"}),
        query=frozenset({"lab_ident"}),
        cookies=frozenset({"lab_c"}),
        schemes=frozenset({"dpop"}),
    )


def test_a_0_3_card_and_the_extended_card_are_read_too() -> None:
    old = {
        "securitySchemes": {
            "h": {"type": "apiKey", "in": "header", "name": "X-Old-Ident"},
            "q": {"type": "apiKey", "in": "query", "name": "old_ident"},
            "b": {"type": "http", "scheme": "Custom"},
        }
    }
    extended = {"securitySchemes": {"c": {"apiKeySecurityScheme": {"location": "cookie", "name": "ext_c"}}}}
    assert declared_credentials([old, None, extended]) == DeclaredCredentials(
        headers=frozenset({"x-old-ident"}),
        query=frozenset({"old_ident"}),
        cookies=frozenset({"ext_c"}),
        schemes=frozenset({"custom"}),
    )


@pytest.mark.parametrize(
    "schemes",
    [
        None,
        [],
        {"x": "not an object"},
        {"x": {"apiKeySecurityScheme": {"location": "body", "name": "n"}}},
        {"x": {"apiKeySecurityScheme": {"location": "header", "name": ""}}},
        {"x": {"apiKeySecurityScheme": {"location": "header"}}},
        {"x": {"type": "apiKey", "in": 3, "name": "n"}},
        {"x": {"httpAuthSecurityScheme": {"scheme": 7}}},
    ],
)
def test_odd_schemes_declare_nothing(schemes: object) -> None:
    assert declared_credentials([{"securitySchemes": schemes}, "not a card"]) == security.NOTHING_DECLARED
