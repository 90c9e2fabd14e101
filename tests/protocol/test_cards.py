"""Agent cards: shape detection, interface extraction (1.0, 0.3, dual) and §8.3.2 interface selection."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_lab.protocol import cards
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Interface, capability, interfaces, parse_support, select, shape
from a2a_lab.protocol.versions import Version

V1, V03 = Version.V1_0, Version.V0_3

CARD_V1: dict[str, Any] = {
    "name": "a",
    "description": "d",
    "version": "1.0.0",
    "supportedInterfaces": [
        {"url": "https://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "https://h/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0", "tenant": "acme"},
        {"url": "h:443", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
        {"url": "https://h/rpc03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
    ],
    "capabilities": {"streaming": True},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [],
}

CARD_V03 = {
    "protocolVersion": "0.3.0",
    "name": "b",
    "description": "d",
    "version": "1",
    "url": "https://h/a2a",
    "preferredTransport": "JSONRPC",
    "additionalInterfaces": [
        {"url": "https://h/a2a", "transport": "JSONRPC"},  # the main pair again: not listed twice
        {"url": "https://h/rest", "transport": "HTTP+JSON"},
        {"url": "h:50051", "transport": "GRPC"},
    ],
    "capabilities": {},
    "defaultInputModes": [],
    "defaultOutputModes": [],
    "skills": [],
}

CARD_DUAL = {
    **CARD_V1,
    "protocolVersion": "0.3",
    "url": "https://h/rpc03",
    "preferredTransport": "JSONRPC",
    "additionalInterfaces": [{"url": "https://h/rest03", "transport": "HTTP+JSON"}],
}


def test_shape() -> None:
    assert shape(CARD_V1) == "1.0"
    assert shape(CARD_V03) == "0.3"
    assert shape(CARD_DUAL) == "dual"
    assert shape({"url": "https://h/a2a"}) == "0.3"  # a url alone is a (sloppy) 0.3 card
    assert shape({"name": "x"}) == "unknown"
    assert shape({"supportedInterfaces": "nope"}) == "unknown"
    not_a_card: object
    for not_a_card in (None, [], "card", 3):
        assert shape(not_a_card) == "unknown"


def test_interfaces_of_a_v1_card_keep_card_order_and_tenant() -> None:
    found = interfaces(CARD_V1)
    assert [(i.url, i.binding, i.version, i.tenant, i.index, i.source) for i in found] == [
        ("https://h/rpc", "JSONRPC", "1.0", None, 0, "supportedInterfaces"),
        ("https://h/rest", "HTTP+JSON", "1.0", "acme", 1, "supportedInterfaces"),
        ("h:443", "GRPC", "1.0", None, 2, "supportedInterfaces"),
        ("https://h/rpc03", "JSONRPC", "0.3", None, 3, "supportedInterfaces"),
    ]
    assert (
        found[0].core_binding is Binding.JSONRPC
        and found[1].core_binding is Binding.HTTP_JSON
        and found[2].core_binding is Binding.GRPC
    )
    assert found[0].known_version is V1 and found[3].known_version is V03
    assert found[1].label == "HTTP+JSON 1.0 https://h/rest"


def test_interfaces_of_a_v03_card() -> None:
    found = interfaces(CARD_V03)
    assert [(i.url, i.binding, i.version, i.source) for i in found] == [
        ("https://h/a2a", "JSONRPC", "0.3", "url"),
        ("https://h/rest", "HTTP+JSON", "0.3", "additionalInterfaces"),
        ("h:50051", "GRPC", "0.3", "additionalInterfaces"),
    ]
    assert all(i.declared_version == "0.3.0" for i in found)  # the card's text is kept; the version is Major.Minor
    assert all(i.tenant is None for i in found)


def test_v03_card_defaults_to_jsonrpc_and_0_3() -> None:
    (only,) = interfaces({"url": "https://h/a2a"})
    assert (
        only.binding == "JSONRPC"
        and only.declared_version is None
        and only.version == "0.3"
        and only.known_version is V03
    )


def test_a_dual_card_is_read_as_v1() -> None:
    found = interfaces(CARD_DUAL)
    assert [i.url for i in found] == [i["url"] for i in CARD_V1["supportedInterfaces"]]
    assert all(i.source == "supportedInterfaces" for i in found)


def test_each_generation_reads_its_own_fields() -> None:
    """A 1.0 client reads supportedInterfaces; a 0.3 client reads url, preferredTransport and additionalInterfaces."""
    as_03 = interfaces(CARD_DUAL, V03)
    assert [(i.url, i.binding, i.source) for i in as_03] == [
        ("https://h/rpc03", "JSONRPC", "url"),
        ("https://h/rest03", "HTTP+JSON", "additionalInterfaces"),
    ]
    assert all(i.reader is V03 and i.version == "0.3" for i in as_03)
    assert interfaces(CARD_V1, V03) == []  # no url: nothing a 0.3 client can read
    assert [i.url for i in interfaces(CARD_V03, V03)] == [i.url for i in interfaces(CARD_V03, V1)]
    assert cards.legacy_view(CARD_DUAL) == as_03[0]


def test_the_gap_names_what_a_generation_cannot_read() -> None:
    assert cards.gap(CARD_V1, V1) is None and cards.gap(CARD_DUAL, V03) is None and cards.gap(CARD_V03, V03) is None
    assert "no top-level url: a 0.3 client cannot read it" in (cards.gap(CARD_V1, V03) or "")
    assert "neither supportedInterfaces nor a top-level url" in (cards.gap({"name": "x"}, V1) or "")


@pytest.mark.parametrize(
    ("supports", "generation"),
    [
        ({(Binding.JSONRPC, V03)}, V03),
        ({(Binding.JSONRPC, V03), (Binding.HTTP_JSON, V03)}, V03),
        ({(Binding.JSONRPC, V03), (Binding.JSONRPC, V1)}, V1),
        ({(Binding.HTTP_JSON, V1)}, V1),
        (set(), V1),
    ],
)
def test_a_clients_generation_is_0_3_only_when_it_speaks_only_0_3(
    supports: set[tuple[Binding, Version]], generation: Version
) -> None:
    assert cards.generation(supports) is generation


def test_versions_read_leniently_where_no_must_is_broken() -> None:
    versionless = interfaces({"supportedInterfaces": [{"url": "https://h/a", "protocolBinding": "JSONRPC"}]})[0]
    assert versionless.known_version is V03 and versionless.accepted == {V1, V03}  # the card omits a REQUIRED field
    v02 = {"protocolVersion": "0.2.5", "url": "https://h/a"}
    assert interfaces(v02, V1)[0].accepted == frozenset()  # a 1.0 client does not speak 0.2
    assert interfaces(v02, V03)[0].accepted == {V03}  # 0.3 has no version negotiation (0.3 §3.4.2)
    assert interfaces(CARD_V1)[0].accepted == {V1} and not interfaces(CARD_V1)[0].accepts(V03)


def test_the_extended_card_capability_by_generation() -> None:
    legacy = {"supportsAuthenticatedExtendedCard": True}
    modern = {"capabilities": {"extendedAgentCard": True}}
    assert capability(legacy, cards.EXTENDED_CARD, V1) and capability(legacy, cards.EXTENDED_CARD, V03)
    assert capability(modern, cards.EXTENDED_CARD, V1) and not capability(modern, cards.EXTENDED_CARD, V03)
    assert capability({"capabilities": {"streaming": True}}, cards.STREAMING, V03)


def test_broken_entries_are_skipped_or_kept_as_text() -> None:
    card = {
        "supportedInterfaces": [
            "junk",
            {"url": "https://h/x", "protocolBinding": "https://example.com/custom-binding"},
            {"protocolBinding": "JSONRPC", "protocolVersion": 1.0, "tenant": ""},
        ]
    }
    found = interfaces(card)
    assert len(found) == 2
    assert found[0].core_binding is None and found[0].version == "0.3"  # custom binding, absent version
    assert (
        found[1].url == "" and found[1].declared_version == "1.0" and found[1].tenant is None
    )  # empty tenant means none
    assert interfaces(None) == [] and interfaces({"name": "x"}) == [] and interfaces({"url": 5}) == []


# ------------------------------------------------------------------------------------ §8.3.2 selection


def test_select_the_first_supported_interface_in_card_order() -> None:
    found = interfaces(CARD_V1)
    assert select(found, [(Binding.JSONRPC, V1), (Binding.HTTP_JSON, V1)]) is found[0]
    # Client preference order does not matter: card order does (§8.3.2 rule 2).
    assert select(found, [(Binding.HTTP_JSON, V1), (Binding.JSONRPC, V1)]) is found[0]
    assert select(found, [(Binding.HTTP_JSON, V1)]) is found[1]
    assert select(found, [(Binding.JSONRPC, V03)]) is found[3]
    assert select(found, [(Binding.GRPC, V1)]) is found[2]
    assert select(found, [(Binding.HTTP_JSON, V03)]) is None
    assert select([], [(Binding.JSONRPC, V1)]) is None


def test_selected_interface_carries_its_tenant() -> None:
    chosen = select(interfaces(CARD_V1), [(Binding.HTTP_JSON, V1)])
    assert chosen is not None and chosen.tenant == "acme"


def test_select_matches_patch_level_versions() -> None:
    card = {
        "supportedInterfaces": [
            {"url": "u1", "protocolBinding": "JSONRPC", "protocolVersion": "0.3.0"},
            {"url": "u2", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0.1"},
        ]
    }
    found = interfaces(card)
    assert select(found, [(Binding.JSONRPC, V03)]) is found[0]
    assert select(found, [(Binding.HTTP_JSON, V1)]) is found[1]


def test_select_skips_unknown_versions_and_bindings() -> None:
    found = [Interface("u0", "JSONRPC", "2.0"), Interface("u1", "custom", "1.0"), Interface("u2", "JSONRPC", "1.0")]
    assert select(found, [(Binding.JSONRPC, V1)]) is found[2]


def test_parse_support() -> None:
    assert parse_support("jsonrpc@1.0, http+json@0.3") == [(Binding.JSONRPC, V1), (Binding.HTTP_JSON, V03)]
    assert parse_support("rest@1.0,JSONRPC@0.3.0,HTTP+JSON@1.0") == [
        (Binding.HTTP_JSON, V1),
        (Binding.JSONRPC, V03),
        (Binding.HTTP_JSON, V1),
    ]
    assert parse_support("") == []
    for bad in ("jsonrpc", "jsonrpc@2.0", "soap@1.0", "@1.0"):
        with pytest.raises(ValueError, match="BINDING@VERSION"):
            parse_support(bad)


def test_capabilities_absent_means_false() -> None:
    assert capability(CARD_V1, "streaming") is True
    assert capability(CARD_V1, "pushNotifications") is False
    assert capability({"capabilities": {"streaming": "true"}}, "streaming") is False  # only a real true counts
    assert capability({"capabilities": {"extendedAgentCard": True}}, "extendedAgentCard") is True
    assert capability({"supportsAuthenticatedExtendedCard": True}, "extendedAgentCard") is True  # 0.3 spelling
    assert capability({"supportsAuthenticatedExtendedCard": True}, "streaming") is False
    assert capability(None, "streaming") is False and capability({"capabilities": []}, "streaming") is False


def test_card_constants() -> None:
    assert cards.WELL_KNOWN_PATH == "/.well-known/agent-card.json"
    assert cards.LEGACY_WELL_KNOWN_PATH == "/.well-known/agent.json"
    assert "supportedInterfaces" in cards.REQUIRED_V1 and "url" not in cards.REQUIRED_V1
    assert {"url", "protocolVersion"} <= set(cards.REQUIRED_V03)
