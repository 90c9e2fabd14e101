"""Versioning (spec §3.6): the A2A-Version header and methods of the right version."""

from __future__ import annotations

from a2a_lab.harness.client_judging.checks.base import Check, check, shown
from a2a_lab.harness.client_judging.journal_view import Call, RunView
from a2a_lab.harness.common.model import CheckResult, Level
from a2a_lab.protocol import grpcwire, versions
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.versions import HEADER, QUERY_PARAM, Version


def _name(call: Call) -> str:
    """How the version parameter is spelled on the call's binding: the header, or gRPC's metadata key (§10.2)."""
    return grpcwire.VERSION_METADATA if call.binding is Binding.GRPC else HEADER


def _sent_version(call: Call) -> str | None:
    value = call.headers.get(HEADER.lower())
    if value is None:
        query = call.entry.query
        for pair in query.split("&"):
            key, _, val = pair.partition("=")
            if key == QUERY_PARAM:
                return val
    return value


@check(
    "VERSION-HEADER",
    Level.MUST,
    "A2A 1.0 §3.6.1, §3.6.2, §10.2, §14.2.1",
    "A2A-Version sent as Major.Minor",
    "Clients MUST send A2A-Version on every request (over gRPC as the `a2a-version` metadata, §10.2; 0.3 clients are "
    "exempt: an absent header means 0.3). The value is Major.Minor; patch numbers SHOULD NOT be sent.",
    rule=(
        "A 1.0 client sends `A2A-Version` with the interface's Major.Minor version (`1.0`, no patch "
        "digit) on every request, over gRPC as `a2a-version` metadata."
    ),
    fix=(
        "Send `A2A-Version: 1.0` (the chosen interface's `protocolVersion` cut to Major.Minor) on every "
        "request, the follow-ups included; never send a patch number such as `1.0.1`."
    ),
)
def version_header(view: RunView, c: Check) -> CheckResult:
    v1 = [call for call in view.a2a_calls if call.version is Version.V1_0]
    if not v1:
        return c.skipped("no 1.0 call")
    missing = [call for call in v1 if not (_sent_version(call) or "").strip()]
    if missing:
        return c.broken(
            f"{len(missing)} of {len(v1)} 1.0 requests carried no A2A-Version",
            f"{_name(missing[0])}: 1.0",
            "metadata absent" if missing[0].binding is Binding.GRPC else "header absent",
            missing,
        )
    patched = [call for call in v1 if versions.has_patch(_sent_version(call))]
    if patched:
        return c.broken(
            "A2A-Version carries a patch number (§3.6: SHOULD NOT)",
            f"{HEADER}: 1.0",
            f"{HEADER}: {_sent_version(patched[0])}",
            patched,
            level=Level.SHOULD,
        )
    return c.passed(f"all {len(v1)} 1.0 requests carried {HEADER}: {_sent_version(v1[0])}")


@check(
    "VERSION-MATCHES-METHOD",
    Level.MUST,
    "A2A 1.0 §3.6, §3.6.2; App. A",
    "Header version matches the method's version",
    "A request is processed with the semantics of the version it asks for: a 1.0 method needs A2A-Version 1.0, and a "
    "0.3 method must not be sent under a 1.0 header.",
    rule=(
        "A client sends each method under the `A2A-Version` of the version it belongs to: 1.0 methods "
        "with `1.0`, 0.3 methods without a 1.0 header."
    ),
    fix=(
        "Take the header and the method names from the same version: `A2A-Version: 1.0` with PascalCase "
        "methods (`SendMessage`), and no header (or `0.3`) with 0.3 methods (`message/send`)."
    ),
)
def version_matches_method(view: RunView, c: Check) -> CheckResult:
    if not view.a2a_calls:
        return c.skipped("no A2A call")
    bad = [
        call
        for call in view.a2a_calls
        if versions.requested(_sent_version(call)) != (call.version.value if call.version else None)
    ]
    if bad:
        call = bad[0]
        return c.broken(
            "the A2A-Version header does not match the version of the method or path",
            f"{HEADER}: {call.version.value if call.version else '?'} "
            f"(or none, for 0.3) with {call.rpc_method or call.entry.path}",
            f"{HEADER}: {shown(_sent_version(call))}",
            bad,
        )
    return c.passed("every request's header matches its method's version")


@check(
    "METHOD-MATCHES-INTERFACE",
    Level.MUST,
    "A2A 1.0 §3.6, §8.3.2; §5.3 method map",
    "Methods of the interface's version",
    "The (binding, version) pair comes from the chosen interface: a client calls 1.0 methods only on interfaces that "
    "declare 1.0, "
    "and 0.3 methods only on interfaces that declare 0.3. Read on the card as the client's generation reads it: "
    "an interface whose card omits the REQUIRED protocolVersion (§4.4.6) may be read as either version (the card "
    "is at fault), and a 0.3 client may call a pre-0.3 (0.2.x) card's url: 0.3 has no version negotiation "
    "(0.3 §3.4.2).",
    rule=(
        "A client calls an interface only with the methods of the version that interface declares in its "
        "`protocolVersion`."
    ),
    fix=(
        "Choose method names and paths from the chosen interface's `protocolVersion`: 1.0 (`SendMessage`,"
        " `/message:send`) on a 1.0 interface, 0.3 (`message/send`, `/v1/message:send`) on a 0.3 one."
    ),
)
def method_matches_interface(view: RunView, c: Check) -> CheckResult:
    if not view.a2a_calls:
        return c.skipped("no A2A call")
    # A call to a URL the card does not declare has no interface version to match (URL-FROM-CARD judges it). The
    # interface is found in the reading of the generation it belongs to, whatever version the method names.
    judged = [call for call in view.a2a_calls if view.declared_any(call)]
    if not judged:
        return c.skipped("no A2A call went to an interface the card declares (URL-FROM-CARD judges where they went)")
    bad = [call for call in judged if not any(i.accepts(call.version) for i in view.declared_any(call))]
    if bad:
        call = bad[0]
        offered = ", ".join(sorted({i.version for i in view.declared_any(call)})) or "nothing"
        return c.broken(
            "a method of one version was sent to an interface that declares another",
            f"a method of version {offered}",
            f"{call.rpc_method or call.entry.path} (A2A {call.version.value if call.version else '?'})",
            bad,
        )
    return c.passed(f"each of the {len(judged)} call(s) to a declared interface used a method of its version", judged)
