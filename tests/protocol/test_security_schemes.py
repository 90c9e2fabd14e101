"""protocol/security_schemes.py reads a card's security in both shapes, and says what is wrong with it."""

from __future__ import annotations

from a2a_lab.protocol import security_schemes as ss
from a2a_lab.protocol.security_schemes import FlowKind, KeyLocation, SchemeKind

V1 = {
    "securitySchemes": {
        "key": {"apiKeySecurityScheme": {"location": "cookie", "name": "sid"}},
        "basic": {"httpAuthSecurityScheme": {"scheme": "Basic"}},
        "oauth": {
            "oauth2SecurityScheme": {
                "flows": {"clientCredentials": {"tokenUrl": "https://a.example/token", "scopes": {"read": "r"}}}
            }
        },
        "oidc": {
            "openIdConnectSecurityScheme": {"openIdConnectUrl": "https://a.example/.well-known/openid-configuration"}
        },
    },
    "securityRequirements": [
        {"schemes": {"key": {"list": []}, "oauth": {"list": ["read"]}}},
        {"schemes": {"basic": {}}},
    ],
}
V03 = {
    "securitySchemes": {
        "key": {"type": "apiKey", "in": "query", "name": "api_key"},
        "bearer": {"type": "http", "scheme": "bearer"},
    },
    "security": [{"key": []}, {"bearer": []}],
}


def test_the_1_0_shape() -> None:
    sec = ss.read(V1)
    assert sec.problems == ()
    assert sec.schemes["key"].kind is SchemeKind.API_KEY and sec.schemes["key"].location is KeyLocation.COOKIE
    assert sec.schemes["basic"].http_scheme == "basic"
    flow = sec.schemes["oauth"].flow(FlowKind.CLIENT_CREDENTIALS)
    assert flow is not None and flow.token_url == "https://a.example/token" and flow.scopes == ("read",)
    assert sec.schemes["oidc"].uses_tokens and sec.schemes["oauth"].uses_tokens
    # alternatives of conjunctions
    assert [dict(r.schemes) for r in sec.requirements] == [{"key": (), "oauth": ("read",)}, {"basic": ()}]
    assert sec.required


def test_the_0_3_shape() -> None:
    sec = ss.read(V03)
    assert sec.problems == ()
    assert sec.schemes["key"].location is KeyLocation.QUERY and sec.schemes["key"].param == "api_key"
    assert sec.schemes["bearer"].http_scheme == "bearer"
    assert [dict(r.schemes) for r in sec.requirements] == [{"key": ()}, {"bearer": ()}]


def test_an_empty_requirement_makes_the_agent_open() -> None:
    assert not ss.read({**V03, "security": [{}, {"key": []}]}).required
    assert not ss.read({}).required and ss.read("not a card") is ss.NO_SECURITY


def test_what_is_wrong_is_said() -> None:
    card = {
        "securitySchemes": {
            "o": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {"scopes": {"a": "A"}}}}},
            "p": {"oauth2SecurityScheme": {"flows": {"deviceCode": {"tokenUrl": "http://x.example/t", "scopes": {}}}}},
            "k": {"apiKeySecurityScheme": {"location": "body", "name": "k"}},
        },
        "securityRequirements": [{"schemes": {"o": {"list": ["b"]}, "ghost": {"list": []}}}],
    }
    problems = {(p.path, p.warning) for p in ss.read(card).problems}
    messages = " | ".join(p.message for p in ss.read(card).problems)
    assert ("securitySchemes.o.oauth2SecurityScheme.flows.clientCredentials.tokenUrl", False) in problems
    assert "has no deviceAuthorizationUrl" in messages
    assert "not https" in messages and any(w for _, w in problems)
    assert "location is header, query or cookie" in messages
    assert "'ghost', which is not declared" in messages and "scopes no flow declares: b" in messages
