"""Discovery and interface selection (spec §8.2, §8.3)."""

from __future__ import annotations

from urllib.parse import urlsplit

from a2a_lab.contract.journal_record import Entry
from a2a_lab.harness.client_judging.checks.base import Check, check
from a2a_lab.harness.client_judging.journal_view import Call, RunView, route_tenant
from a2a_lab.harness.common.model import CheckResult, Level, Outcome
from a2a_lab.protocol import cards
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Interface
from a2a_lab.protocol.versions import Version


def _status(entry: Entry) -> int:
    """The HTTP status a card fetch got (0: none)."""
    return (entry.response.status if entry.response is not None else None) or 0


@check(
    "CARD-DISCOVERY",
    Level.MUST,
    "A2A 1.0 §8.2, §5.6.3 (0.3)",
    "Card fetched before the first call",
    f"A client discovers the agent by fetching its card from {cards.WELL_KNOWN_PATH} (a legacy "
    f"{cards.LEGACY_WELL_KNOWN_PATH} fallback is tolerated) before calling it.",
    rule=(
        "A client fetches the agent card from `/.well-known/agent-card.json` before its first call and "
        "takes every endpoint from it."
    ),
    fix=(
        "Fetch `/.well-known/agent-card.json` from the agent's origin first (the legacy "
        "`/.well-known/agent.json` only if that is missing) and call only what the card declares; never "
        "guess an endpoint."
    ),
)
def card_discovery(view: RunView, c: Check) -> CheckResult:
    if not view.calls and not view.card_fetches:
        return c.skipped("the client made no request")
    first_call = view.calls[0].seq if view.calls else None
    tried = [e for e in view.card_fetches if first_call is None or e.seq < first_call]
    # Only a card the server actually gave counts as read: a 404 on a path the client guessed is not discovery.
    fetched = [e for e in tried if e.method == "GET" and 0 < _status(e) < 400]
    if not fetched:
        if not view.calls:
            return c.skipped("the client got no card and made no call")
        tried_text = (
            "; tried " + ", ".join(f"{e.method} {e.path} ({_status(e) or 'no answer'})" for e in tried[:3])
            if tried
            else ""
        )
        return c.broken(
            "the client called the agent without reading its card first",
            f"GET {cards.WELL_KNOWN_PATH} before any call",
            f"first request was {view.calls[0].label()}{tried_text}",
            [view.calls[0]],
        )
    paths = sorted({e.card_path or e.path for e in fetched})
    return c.passed(f"card fetched from {', '.join(paths)} before the first call")


@check(
    "INTERFACE-SELECTION",
    Level.MUST,
    "A2A 1.0 §8.3.2 rules 1-2; 0.3 §5.6.3, §11.2.1",
    "First supported interface chosen",
    "Clients MUST select the first entry of supportedInterfaces whose binding (and version) they support; a "
    "mixed-version card is not a reason to give up. What a client supports is what it is seen to use anywhere in the "
    "run, or what "
    "--client-supports declares. The card is judged as the client's generation reads it: a 1.0 client reads "
    "supportedInterfaces, a client that speaks only 0.3 reads url, preferredTransport and additionalInterfaces (0.3 "
    "§5.6.3: it SHOULD use url when it supports preferredTransport, else MAY use any supported additional interface). "
    "A card that offers that generation nothing readable makes its refusal correct.",
    "per finding: a refusal of a card that holds members no A2A version defines is NON_STRICT (§5.7: unrecognized "
    "fields SHOULD be ignored), as is a 0.3 client's additional interface where it supports the main url's transport "
    "(0.3 §5.6.3 SHOULD)",
    rule=(
        "A 1.0 client reads `supportedInterfaces` and sends to the first interface whose binding and "
        "version it speaks (a 0.3 client: `url` when it speaks `preferredTransport`), ignoring card "
        "fields it does not know."
    ),
    fix=(
        "Pick the interface from `supportedInterfaces` in card order, not from the top-level `url` (a 0.3"
        " leftover), skipping only entries whose binding or version you cannot speak. Do not reject a "
        "card for members you do not know."
    ),
)
def interface_selection(view: RunView, c: Check) -> CheckResult:
    if view.expect.no_call_allowed and not view.calls:
        return c.skipped("the client made no call, which a correct client may do here (RESULT-EXPECTED judges it)")
    if view.card_fetches and not any(_status(e) in (*range(200, 300), 304) for e in view.card_fetches):
        return _no_card(view, c)
    if not view.supports:
        return _unknown_client(view, c)
    if view.card_gap is not None and not view.calls:
        return c.passed(f"the client made no call, correctly: {view.card_gap}")
    expected = view.expected_interface()
    if expected is None:
        return c.skipped("the card lists no interface this client is known to support")
    first_request = view.calls[0] if view.calls else None
    if first_request is not None and first_request.entry.unmatched and view.declared_at(first_request):
        unrouted = _unrouted_first(view, c, expected, first_request)
        if unrouted is not None:
            return unrouted
    if not view.a2a_calls:
        return _no_a2a_call(view, c, expected)
    return _first_a2a_call(view, c, expected)


def _no_card(view: RunView, c: Check) -> CheckResult:
    """Skipped: no card fetch was answered with a card (2xx or 304), so there was nothing to select from."""
    if view.calls:
        return c.skipped(
            "the server served no card, so there was no interface to select (CARD-DISCOVERY judges the calls)"
        )
    return c.skipped(
        "the client never received the card (its fetch was answered "
        f"{_status(view.card_fetches[-1])} and not followed further; RFC 9110 §15.4 leaves following a redirect "
        "to the client, a MAY): nothing to select from"
    )


def _unrouted_first(view: RunView, c: Check, expected: Interface, first_request: Call) -> CheckResult | None:
    """The first request, one the server could not route, went to a declared interface's URL: broken when that is
    not the expected interface, passed when it is and no A2A call followed; None to judge the A2A calls."""
    went = view.declared_at(first_request)[0]
    if went != expected:
        sent = _binding_sent(first_request)
        wrong = sent is not None and went.core_binding is not None and sent is not went.core_binding
        return c.broken(
            f"the first call, a {sent.value} request, went to the URL of {_a(went.binding)} interface: it called "
            "the agent on the wrong binding, not on the first interface it supports"
            if wrong and sent is not None
            else "the first call went to a declared interface the client does not speak, "
            "not to the first one it supports",
            f"#{expected.index} {expected.label}",
            f"{first_request.entry.method} {first_request.entry.path}"
            + (f" ({sent.value})" if wrong and sent is not None else "")
            + f": #{went.index} {went.label}",
            [first_request],
        )
    if not view.a2a_calls:
        return c.passed(
            f"used the first supported interface, #{expected.index} {expected.label}, as declared (the server did "
            f"not answer {first_request.entry.method} {first_request.entry.path} there)",
            [first_request],
        )
    return None


def _no_a2a_call(view: RunView, c: Check, expected: Interface) -> CheckResult:
    """No A2A call the server could route although the card offers an interface the client supports: skipped when
    there were calls (URL-FROM-CARD judges them), else the client gave up."""
    if view.calls:
        return c.skipped("the client made no A2A call the server could route (see URL-FROM-CARD)")
    extras = cards.unknown_members(view.card)
    if extras:
        # Refusing a card for members no version defines breaks §5.7's SHOULD, not a MUST: grade it so.
        return c.broken(
            "the client gave up on a card that offers an interface it supports but holds members no A2A version "
            f"defines ({', '.join(extras[:4])}{', ...' if len(extras) > 4 else ''}): §5.7 says unrecognized fields "
            "SHOULD be ignored",
            f"a call to {expected.label}",
            "no A2A call at all",
            level=Level.SHOULD,
        )
    return c.broken(
        "the client gave up although the card offers an interface it supports" + _other_origin_note(view, expected),
        f"a call to {expected.label}",
        "no A2A call at all" + view.ending(),
    )


def _first_a2a_call(view: RunView, c: Check, expected: Interface) -> CheckResult:
    """The first A2A call against the interface expected: passed when it went there; for a 0.3 client that went to
    another supported interface, passed when the expected one is an additional interface and NON_STRICT when it is
    the main url (0.3 §5.6.3); else broken."""
    first = view.a2a_calls[0]
    declared = view.declared(first)
    chosen = next((i for i in declared if i.accepts(first.version)), None)
    if chosen is not None and chosen == expected:
        return c.passed(
            f"used the first supported interface: #{expected.index} {expected.label}" + _lax(chosen), [first]
        )
    if chosen is not None and view.generation is Version.V0_3:
        # 0.3 §5.6.3 rules 2-3: the main url SHOULD be used when the client supports its transport; otherwise any
        # supported additional interface MAY be.
        if expected.source != "url":
            return c.passed(f"used a supported additional interface: {chosen.label}", [first])
        return c.result(
            Outcome.NON_STRICT,
            "the client supports the card's preferredTransport but did not use the main url (0.3 §5.6.3: SHOULD)",
            f"#{expected.index} {expected.label}",
            f"{chosen.label} (#{chosen.index})",
            [first],
        )
    actual = (
        chosen.label
        if chosen
        else f"{first.binding.value if first.binding else '?'} {first.version.value if first.version else '?'} "
        f"at {first.endpoint_path}"
    )
    return c.broken(
        "the first call did not go to the first interface (in card order) that the client supports",
        f"#{expected.index} {expected.label}",
        actual + (f" (#{chosen.index})" if chosen else ""),
        [first],
    )


def _a(binding: str) -> str:
    """The binding with its article, as it is read aloud (an HTTP+JSON, a JSONRPC, a GRPC)."""
    return f"{'an' if binding.upper().startswith('H') else 'a'} {binding}"


def _binding_sent(call: Call) -> Binding | None:
    """The binding a request the server could not route was written in, read from its body: a JSON-RPC request
    object is JSON-RPC; another JSON object POSTed or a GET is HTTP+JSON; None when the body tells neither."""
    body = call.body_json()
    if isinstance(body, dict) and "jsonrpc" in body and "method" in body:
        return Binding.JSONRPC
    if call.entry.method == "GET" or (isinstance(body, dict) and ("message" in body or "id" in body)):
        return Binding.HTTP_JSON
    return None


def _other_origin_note(view: RunView, expected: Interface) -> str:
    """Where the interface a client gave up on lives on another origin than the card: what a refusal there may be."""
    card_origin = urlsplit(view.base_url).netloc
    there = urlsplit(expected.url).netloc
    if not there or there == card_origin:
        return ""
    return (
        f". The interface is on another origin ({there}) than the card ({card_origin}): a client may refuse that as a "
        "local security policy, but the card is the agent's own word on where it is served (§8.3.2 rule 3: the URL "
        "declared, host and port included), so the rule stands; a deployment that keeps such a policy on purpose "
        "records it in a baseline file"
    )


def _lax(chosen: Interface) -> str:
    """A note when the interface's version was read leniently (a card without the REQUIRED protocolVersion)."""
    if chosen.source == "supportedInterfaces" and not (chosen.declared_version or "").strip():
        return (
            " (the card omits this interface's REQUIRED protocolVersion, §4.4.6: any reading of it is the card's fault)"
        )
    return ""


def _unknown_client(view: RunView, c: Check) -> CheckResult:
    """No call anywhere in the run and nothing declared: the client's generation is unknown, and either may be right.
    It is failed only where a client of either generation is required to find an interface it could call on this
    server: a card only one generation reads (a 1.0-only card, a 0.3-only card) may be the other generation's to
    refuse."""
    if view.a2a_calls:
        return c.skipped("the client's supported interfaces are unknown (declare them with --client-supports)")
    servable = {
        reader: [
            i
            for i in cards.native_interfaces(view.card, reader)
            if i.core_binding is not None and i.known_version is not None and view.interface_path(i) is not None
        ]
        for reader in Version
    }
    if not all(servable.values()):
        gaps = "; ".join(g for reader in Version if (g := cards.native_gap(view.card, reader)) is not None)
        return c.skipped(
            "the client never called the agent in this run, and its generation is unknown (declare it with "
            "--client-supports)" + (f": {gaps}" if gaps else ": no generation finds an interface served here")
        )
    return c.broken(
        "the client never called the agent, here or in any other scenario of the run, although the card offers an "
        "interface a client of either generation must find",
        f"a call to {servable[Version.V1_0][0].label}",
        "no A2A call" + view.ending(),
    )


@check(
    "URL-FROM-CARD",
    Level.MUST,
    "A2A 1.0 §8.3.2 rule 3; 0.3 §5.6.3",
    "Requests go to a declared URL",
    "A client MUST use the URL declared for the chosen interface, host and port included; a request to a URL the card "
    "does not declare is a guess, whether or not anything answers there.",
    rule=(
        "A client sends every request to the URL the card declares for the interface it chose, scheme, "
        "host, port and path as written."
    ),
    fix=(
        "Use the chosen interface's `url` exactly as declared; do not rebuild it from the card's own "
        "origin, the base URL you were given or a path you expect."
    ),
)
def url_from_card(view: RunView, c: Check) -> CheckResult:
    # A request the server could not route still came from the card when it went to a declared interface URL
    # (one of a binding the server does not serve): INTERFACE-SELECTION judges that choice.
    stray = [call for call in view.calls if call.entry.unmatched and not view.declared_at_any(call)]
    # A request the server did route is stray too when the card declares no interface of its binding there
    # (an endpoint the server happens to serve, found by guessing).
    stray += [call for call in view.a2a_calls if not view.declared_any(call)]
    # The host counts too: an interface may live on another origin than the card (field: gateways, CDNs). A gRPC
    # call is declared only where its address is the interface's (RunView.declared), so its host is judged already.
    stray += [
        call
        for call in view.a2a_calls
        if view.declared_any(call)
        and call.binding is not Binding.GRPC
        and call.headers.get("host") not in {urlsplit(i.url).netloc for i in view.declared_any(call)}
    ]
    if not view.calls:
        return c.skipped("the client made no request")
    stray = sorted({call.seq: call for call in stray}.values(), key=lambda call: call.seq)
    if stray:
        return c.broken(
            "the client sent requests to URLs the card does not declare",
            "only interface URLs from the card",
            ", ".join(f"{s.entry.method} {s.entry.path}" for s in stray[:5]),
            stray,
        )
    return c.passed("every request went to a URL the card declares")


@check(
    "TENANT",
    Level.MUST,
    "A2A 1.0 §8.3.2 rule 4; AgentInterface.tenant",
    "Tenant copied from the interface",
    "When the chosen interface has a tenant, every request carries exactly that tenant; "
    "when it has none, requests omit it.",
    rule=(
        "A client copies the chosen interface's `tenant` into every request unchanged, and sends none "
        "when the interface has none."
    ),
    fix=(
        "Read `tenant` from the interface you chose and send it on every call (HTTP+JSON: the `/{tenant}`"
        " path prefix; JSON-RPC and gRPC: the request's `tenant` field); leave it out when the interface "
        "has none."
    ),
)
def tenant(view: RunView, c: Check) -> CheckResult:
    if not view.a2a_calls:
        return c.skipped("no A2A call")
    wrong = []
    for call in view.a2a_calls:
        declared = [i for i in view.declared(call) if i.accepts(call.version)]
        want = declared[0].tenant if declared else None
        if call.binding is Binding.HTTP_JSON:
            # read against the declared url: a path segment is a tenant only as the card's url reads it
            have = (
                route_tenant(declared[0], call) if declared else call.entry.route.tenant if call.entry.route else None
            )
        else:
            params = call.params()
            have = params.get("tenant") if isinstance(params, dict) else None
        if (want or None) != (have or None):
            wrong.append((call, want, have))
    if wrong:
        call, want, have = wrong[0]
        return c.broken(
            "a request's tenant differs from the interface's",
            repr(want) if want else "no tenant",
            repr(have) if have else "no tenant",
            [w[0] for w in wrong],
        )
    tenants = {i.tenant for i in view.interfaces if i.tenant}
    return c.passed("tenant copied exactly" if tenants else "no tenant declared and none sent")
