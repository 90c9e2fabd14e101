"""Linting an agent card against the 1.0 and 0.3 shapes (spec §4.4, §8; 0.3 §5.5): findings with field paths.

Leftover 0.3 fields beside 1.0 ones (a dual-shaped card, as the official SDK serves) and version mixes are
warnings, never errors (field note S1): the interface list is the statement.
"""

from __future__ import annotations

from typing import Any

from a2a_lab.contract.suggest import did_you_mean
from a2a_lab.harness.server_judging.cardcheck import urlpolicy
from a2a_lab.harness.server_judging.cardcheck.findings import Findings
from a2a_lab.protocol import bindings, cards, grpcwire, security_schemes, versions
from a2a_lab.protocol.cards import REQUIRED_V03, REQUIRED_V1, V03_ONLY_FIELDS
from a2a_lab.protocol.security import V03_SCHEMES, V1_SCHEMES

_CAPABILITY_FLAGS = (*cards.CAPABILITY_FLAGS, "stateTransitionHistory")  # the last one is 0.3's
_SKILL_REQUIRED = ("id", "name", "description", "tags")


def _required(card: dict[str, Any], fields: tuple[str, ...], label: str, out: Findings) -> None:
    for name in fields:
        if name not in card:
            out.error(name, f"required by the {label} card shape but missing", f"add `{name}`")


def _version_text(value: Any, path: str, out: Findings, patch_ok: bool = False) -> None:
    """`patch_ok`: a 0.3 card's own protocolVersion, which the 0.3 schema writes in full ("0.3.0", its default)."""
    text = str(value)
    if versions.parse(text) is None:
        out.error(path, f"{text!r} is not a protocol version", 'write Major.Minor, e.g. "1.0" or "0.3"')
    elif versions.has_patch(text) and not patch_ok:
        out.warning(
            path,
            f"{text!r} carries a patch number; versions are Major.Minor (patches MUST NOT be considered, §3.6)",
            f'write "{versions.major_minor(text)}"',
        )
    elif versions.to_known(text) is None:
        out.warning(
            path, f"version {text} is neither 1.0 nor 0.3", "clients that speak 1.0 or 0.3 will skip this interface"
        )


#: Where the spec types each object's members: the section a type error names.
_TYPE_SECTIONS = {
    "supportedInterfaces": "A2A 1.0 §4.4.6 AgentInterface",
    "additionalInterfaces": "A2A 0.3 §5.5 AgentInterface",
    "provider": "A2A 1.0 §4.4.2 AgentProvider",
    "capabilities": "A2A 1.0 §4.4.3 AgentCapabilities",
    "skills": "A2A 1.0 §4.4.5 AgentSkill",
}


def _types(card: dict[str, Any], out: Findings) -> None:
    """A member whose JSON type is not the spec's (`"protocolVersion": 1.0`, a number): a strict client's card model
    refuses the whole card, whatever a lenient one makes of it."""
    for wrong in cards.mistyped(card):
        head = wrong.path.split("[", 1)[0].split(".", 1)[0]
        section = _TYPE_SECTIONS.get(head, "A2A 1.0 §4.4.1 AgentCard; 0.3 §5.5")
        out.error(
            wrong.path,
            f"{wrong.actual} ({wrong.value!r}) where {section} types it as {wrong.expected}: a strict client's card "
            "model refuses the card",
            f'write it as a JSON string ("{wrong.value}")' if wrong.expected == "a string" else "write true or false",
        )


def _interfaces(card: dict[str, Any], policy: str, out: Findings) -> None:
    listed = card.get("supportedInterfaces")
    if listed is None:
        return
    if not isinstance(listed, list) or not listed:
        out.error(
            "supportedInterfaces",
            "must be a non-empty list",
            "list at least one {url, protocolBinding, protocolVersion}",
        )
        return
    seen: set[tuple[str, str, str]] = set()
    usable = 0
    for i, entry in enumerate(listed):
        path = f"supportedInterfaces[{i}]"
        if not isinstance(entry, dict):
            out.error(path, "must be an object")
            continue
        for name in ("url", "protocolBinding", "protocolVersion"):
            if name not in entry:
                hint = (
                    'clients read an absent version as 0.3 (§3.6.2); declare it, e.g. "1.0"'
                    if name == "protocolVersion"
                    else f"add `{name}`"
                )
                (out.warning if name == "protocolVersion" else out.error)(f"{path}.{name}", "missing (REQUIRED)", hint)
        binding = str(entry.get("protocolBinding", ""))
        if binding and bindings.parse(binding) is None:
            if "://" in binding or ":" in binding:
                out.info(
                    f"{path}.protocolBinding",
                    f"custom binding {binding!r}",
                    "clients that do not know it skip this interface",
                )
            else:
                spellings = [b.value for b in bindings.Binding]
                out.error(
                    f"{path}.protocolBinding",
                    f"unknown binding {binding!r}",
                    " ".join(
                        filter(
                            None,
                            [
                                did_you_mean(binding, spellings),
                                f"core bindings are {', '.join(spellings)}; custom ones are URIs (§5.8)",
                            ],
                        )
                    ),
                )
        if "protocolVersion" in entry:
            _version_text(entry["protocolVersion"], f"{path}.protocolVersion", out)
        url = entry.get("url")
        if isinstance(url, str) and bindings.parse(binding) is bindings.Binding.GRPC:
            _grpc_url(url, f"{path}.url", out)
        elif isinstance(url, str):
            for message, hint in urlpolicy.problems(url, policy):
                out.error(f"{path}.url", message, hint)
        key = (str(url), binding, versions.interface_version(entry.get("protocolVersion")))
        if key in seen:
            out.warning(path, "the same URL, binding and version appear twice", "remove the duplicate")
        seen.add(key)
        known = versions.to_known(versions.interface_version(entry.get("protocolVersion")))
        core = bindings.parse(binding)
        if (core in (bindings.Binding.JSONRPC, bindings.Binding.HTTP_JSON) and known) or (
            core is bindings.Binding.GRPC and known is versions.Version.V1_0
        ):
            usable += 1
    if usable == 0:
        out.warning(
            "supportedInterfaces",
            "no interface a client can use: JSON-RPC or HTTP+JSON in 1.0 or 0.3, or gRPC in 1.0",
        )


def _grpc_url(url: str, path: str, out: Findings) -> None:
    """§5.6 AgentInterface.url: a gRPC interface names `host:port`. A scheme or a path is a warning (lenient clients
    dial the address they can read, others fail); a url with no address to dial is an error."""
    problem = grpcwire.url_problem(url)
    if problem is None:
        return
    address = grpcwire.address_of(url)
    message = f"{problem} (§5.6 AgentInterface.url)"
    if url.strip().lower().startswith(("https://", "http://")):
        message += "; spec revision v1.0.1's proto example wrote the url so, v1.0.2 says host:port"
    if address is None:
        out.error(path, message, "write host:port, e.g. agent.example.com:443")
    else:
        out.warning(path, message, f'write "{address}"')


def _version_mix(card: dict[str, Any], out: Findings) -> None:
    top = card.get("protocolVersion")
    listed = card.get("supportedInterfaces")
    if top is None or not isinstance(listed, list):
        return
    view = cards.legacy_view(card)
    if view is not None and any(
        (i.url, i.binding, i.version) == (view.url, view.binding, view.version) for i in cards.interfaces(card)
    ):
        return  # a dual card whose 0.3 fields describe one of its own 0.3 interfaces (as the SDK serves): no mix
    declared = {versions.interface_version(e.get("protocolVersion")) for e in listed if isinstance(e, dict)}
    top_mm = versions.major_minor(str(top))
    if top_mm not in declared or len(declared) > 1:
        out.warning(
            "protocolVersion",
            f"top-level protocolVersion {top!r} differs from the interfaces' versions ({', '.join(sorted(declared))})",
            "a 0.3 leftover: 1.0 clients read supportedInterfaces, where the first supported entry wins "
            "(field note S1)",
        )


def _capabilities(card: dict[str, Any], out: Findings) -> None:
    caps = card.get("capabilities")
    if caps is None:
        return
    if not isinstance(caps, dict):
        out.error("capabilities", "must be an object")
        return
    for name in caps:  # the flags' types: _types
        if name == "stateTransitionHistory" and cards.shape(card) == "1.0":
            out.info("capabilities.stateTransitionHistory", "removed in 1.0; ignored by 1.0 clients")
        elif name not in _CAPABILITY_FLAGS and name != "extensions":
            out.info(f"capabilities.{name}", "not a capability A2A defines; clients ignore it")


def _security(card: dict[str, Any], out: Findings) -> None:
    schemes = card.get("securitySchemes")
    if schemes is None:
        names: set[str] = set()
    elif not isinstance(schemes, dict):
        out.error("securitySchemes", "must be a map of name -> scheme")
        return
    else:
        names = set(schemes)
        for name, scheme in schemes.items():
            path = f"securitySchemes.{name}"
            if not isinstance(scheme, dict):
                out.error(path, "must be an object")
                continue
            if "type" in scheme:  # 0.3, OpenAPI style
                required = V03_SCHEMES.get(str(scheme["type"]))
                if required is None:
                    out.error(
                        f"{path}.type",
                        f"unknown 0.3 scheme type {scheme['type']!r}",
                        "apiKey, http, oauth2, openIdConnect, mutualTLS",
                    )
                    continue
                fields, inner = required, scheme
            else:
                kinds = [k for k in V1_SCHEMES if k in scheme]
                if len(kinds) != 1:
                    out.error(
                        path,
                        "a 1.0 security scheme is exactly one of " + ", ".join(V1_SCHEMES),
                        "e.g. {httpAuthSecurityScheme: {scheme: Bearer}}",
                    )
                    continue
                fields, inner = V1_SCHEMES[kinds[0]], scheme[kinds[0]]
                path = f"{path}.{kinds[0]}"
                if not isinstance(inner, dict):
                    out.error(path, "must be an object")
                    continue
            for field_name in fields:
                if field_name not in inner:
                    out.error(f"{path}.{field_name}", "missing (REQUIRED)")
    for i, req in enumerate(card.get("securityRequirements") or []):
        used = set(req.get("schemes", {})) if isinstance(req, dict) else set()
        for name in sorted(used - names):
            out.error(
                f"securityRequirements[{i}].schemes.{name}",
                "names a scheme securitySchemes does not define",
                f"define securitySchemes.{name}",
            )
    for i, req in enumerate(card.get("security") or []):
        for name in sorted(set(req) - names if isinstance(req, dict) else set()):
            out.error(
                f"security[{i}].{name}",
                "names a scheme securitySchemes does not define",
                f"define securitySchemes.{name}",
            )


def _skills(card: dict[str, Any], out: Findings) -> None:
    skills = card.get("skills")
    if skills is None:
        return
    if not isinstance(skills, list):
        out.error("skills", "must be a list")
        return
    if not skills:
        out.warning(
            "skills", "no skills (§5.7 asks REQUIRED lists to have at least one element)", "describe at least one skill"
        )
    ids: set[str] = set()
    for i, skill in enumerate(skills):
        if not isinstance(skill, dict):
            out.error(f"skills[{i}]", "must be an object")
            continue
        for name in _SKILL_REQUIRED:
            if name not in skill:
                out.error(f"skills[{i}].{name}", "missing (REQUIRED)")
        if "tags" in skill and not isinstance(skill["tags"], list):
            out.error(f"skills[{i}].tags", "must be a list of strings")
        if skill.get("id") in ids:
            out.warning(f"skills[{i}].id", f"duplicate skill id {skill.get('id')!r}")
        ids.add(str(skill.get("id")))


#: What protocol/security_schemes.py finds that the shape checks above do not: OAuth flows without their URLs or
#: scopes, requirement scopes no flow declares, an API key's location, token endpoints not on https.
_MODEL_FINDINGS = (".flows", "scopes", "flows declares no flow")


def _security_model(card: dict[str, Any], policy: str, out: Findings) -> None:
    for problem in security_schemes.read(card).problems:
        if problem.warning:
            if policy == urlpolicy.STRICT:
                out.error(problem.path, problem.message, "serve the token endpoint and discovery over https://")
        elif any(marker in problem.path or marker in problem.message for marker in _MODEL_FINDINGS):
            out.error(problem.path, problem.message)


def lint(card: Any, policy: str = urlpolicy.STRICT) -> Findings:
    out = Findings()
    if not isinstance(card, dict):
        out.error("", "the card is not a JSON object")
        return out
    _types(card, out)
    shape = cards.shape(card)
    if shape in ("1.0", "dual"):
        _required(card, REQUIRED_V1, "1.0", out)
    if shape == "0.3":
        _required(card, REQUIRED_V03, "0.3", out)
        if "protocolVersion" in card:
            _version_text(card["protocolVersion"], "protocolVersion", out, patch_ok=True)
        url = card.get("url")
        if isinstance(url, str):
            for message, hint in urlpolicy.problems(url, policy):
                out.error("url", message, hint)
    if shape == "unknown":
        out.error(
            "supportedInterfaces",
            "neither a 1.0 card (supportedInterfaces) nor a 0.3 card (url + protocolVersion)",
            "declare supportedInterfaces: [{url, protocolBinding, protocolVersion}]",
        )
    if shape == "dual":
        present = [f for f in V03_ONLY_FIELDS if f in card]
        out.info(
            ",".join(present),
            "0.3 top-level fields beside the 1.0 ones (a dual-shaped card, as the official SDK serves)",
            "1.0 clients ignore them; 0.3 clients read them",
        )
    _interfaces(card, policy, out)
    _version_mix(card, out)
    _capabilities(card, out)
    _security(card, out)
    _security_model(card, policy, out)
    _skills(card, out)
    return out
