"""A whole scenario file's data into scenarios: the top level, read section by section, and family files expanded
into their members."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from a2a_lab.protocol.revisions import DEFAULT as DEFAULT_REVISION
from a2a_lab.protocol.revisions import SpecRevision

from ..scenario import (
    DEFAULT_TASK,
    DEFAULT_TIMEOUT,
    PushDelivery,
    Scenario,
    UnknownFields,
)
from . import family
from .behaviour import read_behaviour
from .card import (
    check_origin_root,
    derive_endpoints,
    read_base_path,
    read_card,
    read_endpoints,
    read_not_found,
    read_tenants,
    read_typed_card,
)
from .changes import read_edits
from .client import read_auth, read_client, read_expect
from .error_texts import read_error_messages
from .limits import ANSWER_BYTES_WHY, read_limits, read_tls
from .reader import Reader, ScenarioError
from .styling import read_style
from .tables import MAX_ANSWER_BYTES
from .task import read_task_script


def parse_with(r: Reader, data: Any, scenario_id: str) -> Scenario:
    top = r.mapping(data, "", "scenario")
    for required in ("title", "description", "card"):
        if required not in top:
            raise r.fail(
                required,
                "required field is missing",
                "every scenario has a title, a description a client author understands, and a card",
            )
    # `spec:` / `observed:` / `recorded:` may be absent from a file of the user's own (a quick local reproduction):
    # `uncited` says so as a warning; the built-in catalogue's test requires them.
    card = read_card(r, top["card"])
    base_path = read_base_path(r, top["base_path"]) if "base_path" in top else ""
    check_origin_root(r, top["card"], base_path)
    task = read_task_script(r, top["task"], "task", DEFAULT_TASK) if "task" in top else DEFAULT_TASK
    rules = read_behaviour(r, top.get("behaviour", {}), task)
    endpoints = read_endpoints(r, top["endpoints"]) if "endpoints" in top else derive_endpoints(card)
    client = read_client(r, top.get("client", {}), card)
    leniency = r.mapping(top.get("leniency", {}), "leniency", "leniency")
    push = r.mapping(top.get("push", {}), "push", "push")
    return Scenario(
        id=scenario_id,
        title=r.string(top["title"], "title"),
        description=r.string(top["description"], "description").strip(),
        source=r.source,
        spec=r.string(top["spec"], "spec") if "spec" in top else None,
        observed=r.mapping(top["observed"], "observed") if "observed" in top else None,
        seed=r.integer(top.get("seed", 0), "seed"),
        timeout=r.number(top.get("timeout", DEFAULT_TIMEOUT), "timeout"),
        client=client,
        card=card,
        extended_card=read_typed_card(r, top["extended_card"], "extended_card") if "extended_card" in top else None,
        endpoints=endpoints,
        task=task,
        rules=rules,
        lenient_kind=r.boolean(leniency.get("missing_kind", False), "leniency.missing_kind"),
        gzip_min_bytes=(
            r.integer(top["gzip_min_bytes"], "gzip_min_bytes", 1, MAX_ANSWER_BYTES, ANSWER_BYTES_WHY)
            if "gzip_min_bytes" in top
            else None
        ),
        refuse_unknown_fields=r.choice(
            leniency.get("unknown_fields", UnknownFields.IGNORE.value),
            "leniency.unknown_fields",
            "leniency.unknown_fields",
        )
        is UnknownFields.REFUSE,
        auth=read_auth(r, top["auth"]) if "auth" in top else None,
        push_allow=r.strings(push.get("allow", []), "push.allow", "host names"),
        push_probe=r.boolean(push.get("probe_bad_credentials", False), "push.probe_bad_credentials"),
        push_delivery=_push_delivery(r, push),
        limits=read_limits(r, top.get("limits", {})),
        checks=r.strings(top.get("checks", []), "checks", "check ids"),
        expect=read_expect(r, top.get("expect", {})),
        recorded=r.mapping(top["recorded"], "recorded") if "recorded" in top else None,
        spec_revision=_spec_revision(r, top),
        tls=read_tls(r, top["tls"]) if "tls" in top else None,
        error_messages=read_error_messages(r, top.get("error_messages", {})),
        style=read_style(r, top.get("style", {})),
        not_found=read_not_found(r, top["not_found"]) if "not_found" in top else None,
        tenants=read_tenants(r, top["tenant_routes"], card) if "tenant_routes" in top else None,
        lenient_content_type=r.boolean(leniency.get("any_content_type", False), "leniency.any_content_type"),
        ignore_version=r.boolean(leniency.get("ignore_version", False), "leniency.ignore_version"),
        lenient_minor=r.boolean(leniency.get("minor_versions", False), "leniency.minor_versions"),
        route_version=r.boolean(leniency.get("route_version", False), "leniency.route_version"),
        answer_notifications=r.boolean(leniency.get("notifications", False), "leniency.notifications"),
        base_path=base_path,
    )


def parse(data: Any, scenario_id: str, source: str) -> Scenario:
    """Validate decoded YAML and build the Scenario, or raise ScenarioError (also for a family: see parse_all)."""
    if family.is_family(data):
        raise ScenarioError(
            source,
            "matrix",
            "this file is a scenario family: it makes one scenario per combination of its matrix",
            "run all its members with `a2a-lab run --scenario FILE`, or name one member by id from the catalogue",
        )
    return parse_with(Reader(source), data, scenario_id)


def parse_all(data: Any, scenario_id: str, source: str) -> dict[str, Scenario]:
    """The scenarios of decoded YAML by id: the one scenario of a plain file (its id `scenario_id`), or every member
    of a family (ids `scenario_id/<member>`, see contract/loader/family.py); raises ScenarioError."""
    return _parse_all(Reader(source), data, scenario_id)


def _parse_all(r: Reader, data: Any, scenario_id: str) -> dict[str, Scenario]:
    if not family.is_family(data):
        return {scenario_id: parse_with(r, data, scenario_id)}
    top = r.mapping(data, "", "scenario")
    out: dict[str, Scenario] = {}
    for member in family.expand(r, top):
        sid = f"{scenario_id}/{member.suffix}"
        try:
            out[sid] = replace(parse_with(r, member.data, sid), family=scenario_id)
        except ScenarioError as exc:
            raise ScenarioError(
                exc.source, exc.field_path, f"{exc.problem} (matrix member {member.suffix})", exc.hint
            ) from None
    return out


def options_used(data: Any, source: str = "<options>") -> set[tuple[str, str]]:
    """The options (section, name) and named values (option, value) a scenario's data uses (every member of a
    family); raises ScenarioError."""
    r = Reader(source)
    _parse_all(r, data, "options")
    return r.used


def _push_delivery(r: Reader, push: dict[str, Any]) -> PushDelivery:
    """How `push:` delivers notifications: again, out of order, for a task the client never named, edited."""
    return PushDelivery(
        redeliver=r.boolean(push.get("redeliver", False), "push.redeliver"),
        reorder=r.boolean(push.get("reorder", False), "push.reorder"),
        foreign_task=r.boolean(push.get("foreign_task", False), "push.foreign_task"),
        edits=read_edits(r, push["edit"], "push.edit") if "edit" in push else (),
    )


def _spec_revision(r: Reader, top: dict[str, Any]) -> SpecRevision:
    """The spec revision the server follows (`spec_revision:`, quoted), else the default."""
    if "spec_revision" not in top:
        return DEFAULT_REVISION
    revision: SpecRevision = r.choice(
        top["spec_revision"],
        "spec_revision",
        "scenario.spec_revision",
        'write "1.0.0", "1.0.1", "1.0.2" or "1.1" (quoted): the spec revision the server follows',
        "spec revision",
    )
    return revision
