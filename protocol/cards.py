"""Agent cards: their shapes, their interfaces, and how a client picks one (spec §4.4, §8.3; 0.3 §5.6).

A card is read by a client of one protocol generation, and each generation reads its own fields: a 1.0 client reads
`supportedInterfaces` (§8.3.2), a 0.3 client reads `url`, `preferredTransport`, `additionalInterfaces` and the
top-level `protocolVersion` (0.3 §5.6). `interfaces(card, generation)` is the one place that knows which.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from . import bindings, versions
from .bindings import Binding
from .versions import Version

#: The well-known URI prefix (RFC 8615) the card paths live under.
WELL_KNOWN_PREFIX = "/.well-known/"
WELL_KNOWN_PATH = WELL_KNOWN_PREFIX + "agent-card.json"
LEGACY_WELL_KNOWN_PATH = WELL_KNOWN_PREFIX + "agent.json"
#: A careful client reads at most this much card (field notes: "narrow client").
DEFAULT_CARD_SIZE_LIMIT = 64 * 1024

#: AgentCapabilities flags (§4.4): the operation table, the server, the checks and the client all name them from here.
STREAMING = "streaming"
PUSH_NOTIFICATIONS = "pushNotifications"
EXTENDED_CARD = "extendedAgentCard"
CAPABILITY_FLAGS = (STREAMING, PUSH_NOTIFICATIONS, EXTENDED_CARD)

REQUIRED_V1 = (
    "name",
    "description",
    "supportedInterfaces",
    "version",
    "capabilities",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
)
REQUIRED_V03 = (
    "protocolVersion",
    "name",
    "description",
    "url",
    "version",
    "capabilities",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
)
#: 0.3 top-level fields that 1.0 removed (App. A.2.2); a dual-shaped card carries them beside the 1.0 ones.
V03_ONLY_FIELDS = (
    "protocolVersion",
    "url",
    "preferredTransport",
    "additionalInterfaces",
    "supportsAuthenticatedExtendedCard",
)


#: The members each card object may hold in either generation (1.0 proto `AgentCard` and the objects in it; 0.3 JSON
#: schema); anything else is an unrecognized field, which implementations SHOULD ignore (§5.7).
CARD_MEMBERS: dict[str, frozenset[str]] = {
    "card": frozenset(
        {
            *REQUIRED_V1,
            *V03_ONLY_FIELDS,
            "provider",
            "documentationUrl",
            "securitySchemes",
            "securityRequirements",
            "security",
            "signatures",
            "iconUrl",
            "supportsExtendedAgentCard",
        }
    ),
    "supportedInterfaces": frozenset({"url", "protocolBinding", "tenant", "protocolVersion"}),
    "additionalInterfaces": frozenset({"url", "transport"}),
    "provider": frozenset({"url", "organization"}),
    "capabilities": frozenset({STREAMING, PUSH_NOTIFICATIONS, EXTENDED_CARD, "extensions", "stateTransitionHistory"}),
    "skills": frozenset(
        {
            "id",
            "name",
            "description",
            "tags",
            "examples",
            "inputModes",
            "outputModes",
            "securityRequirements",
            "security",
        }
    ),
}


#: The JSON type the spec gives each member it types as a string or a boolean, by the object that holds it (1.0 proto
#: `AgentCard`, `AgentInterface`, `AgentProvider`, `AgentCapabilities`, `AgentSkill`; 0.3 §5.5). A member of another
#: type is refused by a strict client's card model: YAML reads an unquoted `protocolVersion: 1.0` as the number 1.0.
CARD_TYPES: dict[str, dict[str, type]] = {
    "card": {
        **dict.fromkeys(
            ("name", "description", "version", "protocolVersion", "url", "preferredTransport", "documentationUrl"),
            str,
        ),
        "iconUrl": str,
        "supportsAuthenticatedExtendedCard": bool,
        "supportsExtendedAgentCard": bool,
    },
    "supportedInterfaces": dict.fromkeys(("url", "protocolBinding", "tenant", "protocolVersion"), str),
    "additionalInterfaces": dict.fromkeys(("url", "transport"), str),
    "provider": dict.fromkeys(("url", "organization"), str),
    "capabilities": dict.fromkeys((STREAMING, PUSH_NOTIFICATIONS, EXTENDED_CARD, "stateTransitionHistory"), bool),
    "skills": dict.fromkeys(("id", "name", "description"), str),
}
#: Where each typed object sits in a card: one object, or a list of them.
_TYPED_OBJECTS = {"provider": False, "capabilities": False, "supportedInterfaces": True, "additionalInterfaces": True}
_TYPE_NAMES = {str: "a string", bool: "a boolean"}


@dataclass(frozen=True)
class Mistyped:
    """A card member whose JSON type is not the spec's: its path (`supportedInterfaces[0].protocolVersion`), the
    value, and the type the spec gives it."""

    path: str
    value: object
    expected: str

    @property
    def actual(self) -> str:
        """The value's JSON type, as a reader names it."""
        if self.value is None:
            return "null"
        if isinstance(self.value, bool):
            return "a boolean"
        if isinstance(self.value, int | float):
            return "a number"
        if isinstance(self.value, str):
            return "a string"
        return "a list" if isinstance(self.value, list) else "an object" if isinstance(self.value, dict) else "a value"


def mistyped(card: object) -> list[Mistyped]:
    """The members of a card (and of the objects it holds) whose type differs from the spec's: a
    number where a string is required (`protocolVersion: 1.0`), a string where a boolean is; the card's own members
    first, then those of each object it holds."""
    if not isinstance(card, dict):
        return []
    out = _mistyped_in(card, "card", "")
    for name, listed in {**_TYPED_OBJECTS, "skills": True}.items():
        value = card.get(name)
        items = (value if isinstance(value, list) else []) if listed else [value]
        for i, item in enumerate(items):
            if isinstance(item, dict):
                out += _mistyped_in(item, name, f"{name}[{i}]." if listed else f"{name}.")
    return out


def _mistyped_in(obj: dict[str, object], kind: str, prefix: str) -> list[Mistyped]:
    return [
        Mistyped(prefix + member, obj[member], _TYPE_NAMES[wanted])
        for member, wanted in CARD_TYPES[kind].items()
        if member in obj and obj[member] is not None and not _is(obj[member], wanted)
    ]


def _is(value: object, wanted: type) -> bool:
    return isinstance(value, wanted) and (wanted is bool or not isinstance(value, bool))


def unknown_members(card: object) -> list[str]:
    """The paths of the members no A2A version defines in a card and the objects it lists (`x-vendor`,
    `skills[0].futureField`): what §5.7 says a reader SHOULD ignore."""
    if not isinstance(card, dict):
        return []
    out = [name for name in card if name not in CARD_MEMBERS["card"]]
    for field, known in CARD_MEMBERS.items():
        value = card.get(field) if field != "card" else None
        items = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
        for i, item in enumerate(items):
            if isinstance(item, dict):
                where = f"{field}[{i}]" if isinstance(value, list) else field
                out += [f"{where}.{name}" for name in item if name not in known]
    return out


@dataclass(frozen=True)
class Interface:
    """One way to reach the agent, as declared by a card."""

    url: str
    binding: str
    declared_version: str | None
    tenant: str | None = None
    index: int = 0
    source: str = "supportedInterfaces"
    #: The generation of the client reading the card (see `interfaces`).
    reader: Version = Version.V1_0

    @property
    def core_binding(self) -> Binding | None:
        return bindings.parse(self.binding)

    @property
    def version(self) -> str:
        """Major.Minor; an absent version is 0.3 (§3.6.2)."""
        return versions.interface_version(self.declared_version)

    @property
    def known_version(self) -> Version | None:
        return versions.to_known(self.version)

    @property
    def support(self) -> Support | None:
        """(binding, version) when a2a-lab knows both, else None."""
        binding, version = self.core_binding, self.known_version
        return None if binding is None or version is None else (binding, version)

    @property
    def label(self) -> str:
        return f"{self.binding} {self.version} {self.url}"

    @property
    def accepted(self) -> frozenset[Version]:
        """The versions a client may speak to this interface without breaking a MUST.

        The strict reading is `known_version` (an absent version is 0.3, §3.6.2), and selection expects it. But an
        entry of `supportedInterfaces` without protocolVersion omits a REQUIRED field (§4.4.6): the card is at fault,
        and a client reading it as 1.0 or as 0.3 breaks no MUST. A 0.3 client reading a pre-0.3 card (`0.2.5`) has no
        version rule to break either: 0.3 has no version negotiation (0.3 §3.4.2) and 0.2.x shares its methods.
        """
        if self.source == "supportedInterfaces" and not (self.declared_version or "").strip():
            return frozenset(Version)
        if self.reader is Version.V0_3 and self.source != "supportedInterfaces":
            major = versions.parse(self.declared_version or "0.3")
            if major is None or major[0] == 0:
                return frozenset({Version.V0_3})
        known = self.known_version
        return frozenset({known}) if known is not None else frozenset()

    def accepts(self, version: Version | None) -> bool:
        return version is not None and version in self.accepted


def shape(card: object) -> str:
    """`1.0`, `0.3`, `dual` (1.0 fields plus 0.3 top-level fields, as the official SDK serves) or `unknown`."""
    if not isinstance(card, dict):
        return "unknown"
    has_v1 = isinstance(card.get("supportedInterfaces"), list)
    has_v03 = "url" in card and "protocolVersion" in card
    if has_v1 and has_v03:
        return "dual"
    if has_v1:
        return "1.0"
    if has_v03 or "url" in card:
        return "0.3"
    return "unknown"


def generation(supports: Iterable[Support]) -> Version:
    """The card generation a client reads: 0.3 for a client known to speak only 0.3, else 1.0 (a 1.0 client, or one
    whose support is unknown: the newest generation is the default reading)."""
    spoken = {version for _, version in supports}
    return Version.V0_3 if spoken == {Version.V0_3} else Version.V1_0


def interfaces(card: object, reader: Version = Version.V1_0) -> list[Interface]:
    """The card's interfaces in preference order, as a client of generation `reader` reads them.

    A 1.0 client reads `supportedInterfaces` (§8.3.2; a dual card's 0.3 top-level fields are leftovers to it, field
    note S1); on a card without that list (a 0.3 card) it reads the 0.3 fields, as the SDKs map a legacy card.
    A 0.3 client reads only `url` + `preferredTransport` first, then `additionalInterfaces` (0.3 §5.6.3), with the
    top-level `protocolVersion`: `supportedInterfaces` does not exist in its card model.
    """
    if not isinstance(card, dict):
        return []
    out: list[Interface] = []
    listed = card.get("supportedInterfaces")
    if isinstance(listed, list) and reader is Version.V1_0:
        for i, entry in enumerate(listed):
            if isinstance(entry, dict):
                out.append(
                    Interface(
                        str(entry.get("url", "")),
                        str(entry.get("protocolBinding", "")),
                        _opt_str(entry.get("protocolVersion")),
                        _opt_str(entry.get("tenant")) or None,
                        i,
                    )
                )
        return out
    url = card.get("url")
    if isinstance(url, str):
        version = _opt_str(card.get("protocolVersion"))
        main_binding = str(card.get("preferredTransport") or Binding.JSONRPC.value)
        out.append(Interface(url, main_binding, version, None, 0, "url", reader))
        extra = card.get("additionalInterfaces")
        if isinstance(extra, list):
            for i, entry in enumerate(extra):
                if not isinstance(entry, dict):
                    continue
                iface = Interface(
                    str(entry.get("url", "")),
                    str(entry.get("transport", "")),
                    version,
                    None,
                    i + 1,
                    "additionalInterfaces",
                    reader,
                )
                if (iface.url, iface.binding) != (url, main_binding):
                    out.append(iface)
    return out


def native_interfaces(card: object, reader: Version) -> list[Interface]:
    """The interfaces a client of generation `reader` is required to read: a 1.0 client `supportedInterfaces` only
    (§8.3.2; reading a 0.3 card's fields is a courtesy the SDKs extend, which no 1.0 rule asks for), a 0.3 client
    `url` and `additionalInterfaces` (0.3 §5.6.3)."""
    if reader is Version.V1_0 and not (isinstance(card, dict) and isinstance(card.get("supportedInterfaces"), list)):
        return []
    return interfaces(card, reader)


def native_gap(card: object, reader: Version) -> str | None:
    """Why a client of generation `reader` is not required to find an interface on this card (None when it is)."""
    if native_interfaces(card, reader):
        return None
    if reader is Version.V1_0 and interfaces(card, reader):
        return "this card has no supportedInterfaces: a 1.0 client is not required to read its 0.3 fields (§8.3.2)"
    return gap(card, reader)


def gap(card: object, reader: Version) -> str | None:
    """Why a client of generation `reader` finds no interface on this card at all (None when it finds one): the
    card's gap, which makes that client's refusal correct."""
    if interfaces(card, reader):
        return None
    if not isinstance(card, dict):
        return "there is no card to read"
    if reader is Version.V0_3:
        return "this card has no top-level url: a 0.3 client cannot read it (0.3 §5.6: url is REQUIRED)"
    return "this card has neither supportedInterfaces nor a top-level url: a 1.0 client finds no interface on it"


def legacy_view(card: object) -> Interface | None:
    """The 0.3 main interface of a dual-shaped card (top-level `url`, `preferredTransport`, `protocolVersion`), which
    the official SDK derives from the card's 0.3 interfaces (notes §1.6); None when the card is not dual."""
    if shape(card) != "dual":
        return None
    main = interfaces(card, Version.V0_3)
    return main[0] if main else None


def _opt_str(value: object) -> str | None:
    return None if value is None else str(value)


Support = tuple[Binding, Version]


def parse_support(text: str) -> list[Support]:
    """`jsonrpc@1.0,http+json@0.3` -> [(JSONRPC, 1.0), (HTTP+JSON, 0.3)]. Raises ValueError with a hint."""
    out: list[Support] = []
    for item in filter(None, (x.strip() for x in text.split(","))):
        name, _, ver = item.partition("@")
        binding = bindings.SHORT_NAMES.get(name.lower()) or bindings.parse(name)
        version = versions.to_known(ver)
        if binding is None or version is None:
            raise ValueError(
                f"{item!r}: expected BINDING@VERSION with BINDING one of {', '.join(sorted(bindings.SHORT_NAMES))} "
                f"and VERSION one of {', '.join(v.value for v in Version)}"
            )
        out.append((binding, version))
    return out


def select(candidates: Iterable[Interface], supported: Iterable[Support]) -> Interface | None:
    """§8.3.2: the first interface (card order) whose binding and version the client supports."""
    wanted = set(supported)
    for iface in candidates:
        if iface.support is not None and iface.support in wanted:
            return iface
    return None


def required_extensions(card: object) -> list[str]:
    """URIs of the extensions the card marks `required` (capabilities.extensions[].required)."""
    caps = card.get("capabilities") if isinstance(card, dict) else None
    exts = caps.get("extensions") if isinstance(caps, dict) else None
    return [str(e["uri"]) for e in exts or [] if isinstance(e, dict) and e.get("required") is True and e.get("uri")]


def capability(card: object, name: str, reader: Version = Version.V1_0) -> bool:
    """A capability flag as a client of generation `reader` reads it; absent means false (§3.3.4).

    The extended card has two spellings: 1.0 `capabilities.extendedAgentCard`, 0.3 top-level
    `supportsAuthenticatedExtendedCard` (0.3 §5.5). A 1.0 client reads the 0.3 spelling too (the SDKs map a legacy
    card); a 0.3 client reads only its own."""
    if not isinstance(card, dict):
        return False
    caps = card.get("capabilities")
    legacy = name == EXTENDED_CARD and card.get("supportsAuthenticatedExtendedCard") is True
    if reader is Version.V0_3 and name == EXTENDED_CARD:
        return legacy
    return (isinstance(caps, dict) and caps.get(name) is True) or legacy
