"""Scenario files: the catalogue loads; broken files are refused with the file, the field path and a hint,
and never take the rest of a folder down."""

from __future__ import annotations

from pathlib import Path

import pytest

from a2a_lab.contract.catalogue import Catalogue, builtin_root, resolve, uncited
from a2a_lab.contract.loader import (
    FIELDS,
    LIMITS_MOST,
    MAX_ANSWER_BYTES,
    MAX_PAD_TO,
    ScenarioError,
    load_file,
    parse,
)
from a2a_lab.contract.scenario import (
    DEFAULT_TASK,
    STREAM_ERROR_MESSAGE,
    ArtifactSpec,
    AuthScope,
    CardPath,
    CardPathMode,
    Conclusion,
    Envelope,
    EnvelopeId,
    Fault,
    FaultKind,
    FirstEvent,
    Returns,
    StreamScript,
)
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version

from .helpers import scenario_text, write_scenario

CATALOGUE_IDS = [
    "quirks/accepted-output-modes-required",
    "quirks/advertised-method-not-found",
    "quirks/cancel-races-completion",
    "quirks/card-redirected",
    "quirks/follow-up-without-context-refused",
    "quirks/grpc-failed-precondition-error-info",
    "quirks/gzip-compressed-answers",
    "quirks/history-length-ignored",
    "quirks/input-required-then-unrelated-message",
    "quirks/interface-url-trailing-slash",
    "quirks/missing-version-header-refused",
    "quirks/mixed-version-direct-message",
    "quirks/patch-version-binding-mix",
    "quirks/rate-limited-429",
    "quirks/rest-stream-as-json-array",
    "quirks/rest-stream-error-before-any-event",
    "quirks/rest-stream-error-without-event",
    "quirks/rest-stream-last-event-unterminated",
    "quirks/stream-as-ndjson",
    "quirks/stream-empty-body",
    "quirks/stream-error-as-plain-json",
    "quirks/stream-events-without-jsonrpc-envelope",
    "quirks/stream-last-event-unterminated",
    "quirks/stream-multiline-data",
    "quirks/submitted-status-message-empty-parts",
    "quirks/task-canceled-without-message",
    "quirks/task-failed-without-message",
    "quirks/task-rejected-without-message",
    "quirks/task-state-cancelled",
    "quirks/tenant-required-by-gateway",
    "quirks/unknown-request-fields-refused",
    "quirks/v03-card-url-is-stream-route",
    "quirks/v03-completed-task-artifacts",
    "quirks/v03-new-request-reuses-completed-task",
    "quirks/v03-result-under-v1-method",
    "quirks/v03-stream-401-json",
    "quirks/v03-stream-as-ndjson",
    "quirks/v03-stream-open-after-input-required",
    "quirks/v03-stream-status-before-task",
    "spec/acts-sut",
    "spec/acts-sut-auth",
    "spec/acts-sut-no-capabilities",
    "spec/conformant",
    "spec/generations-unknown",
    "spec/task/ended-before-follow-up",
    "spec/task/ended-before-follow-up-0.3",
    "spec/task/submitted-needs-get-task",
    "spec/tck-sut",
    "spec/tck-sut-no-capabilities",
    "spec/v1.0.0-server",
    "spec/v1.1-generations-to-1.0-client",
    "spec/v1.1-if-generation-match",
    "spec/v1.1-long-poll",
]


# ------------------------------------------------------------------------------------ the catalogue


def test_every_catalogue_scenario_loads() -> None:
    cat = Catalogue.load()
    assert cat.broken == {}
    assert set(CATALOGUE_IDS) <= set(cat.ids())
    on_disk = {p.relative_to(builtin_root()).with_suffix("").as_posix() for p in builtin_root().rglob("*.yaml")}
    families = cat.families()
    members = {sid for ids in families.values() for sid in ids}
    assert (set(cat.ids()) - members) | set(families) == on_disk, "a file is a scenario, or a family of them"


@pytest.mark.parametrize("scenario_id", CATALOGUE_IDS)
def test_catalogue_scenario_is_usable(catalogue: Catalogue, scenario_id: str) -> None:
    s = catalogue.get(scenario_id)
    assert s.id == scenario_id and s.title and s.description and (s.spec or s.observed), "the catalogue cites"
    assert s.card.object is not None and s.endpoints, "every catalogue scenario answers somewhere"
    assert s.group == scenario_id.split("/")[0]
    assert s.source.endswith(scenario_id + ".yaml")
    for endpoint in s.endpoints:
        assert endpoint.path.startswith("/") and endpoint.versions


def test_endpoints_are_derived_from_the_card(catalogue: Catalogue) -> None:
    conformant = catalogue.get("spec/conformant")
    assert {(e.path, e.binding, e.versions) for e in conformant.endpoints} == {
        ("/a2a/jsonrpc", Binding.JSONRPC, (Version.V1_0, Version.V0_3)),
        ("/a2a/rest", Binding.HTTP_JSON, (Version.V1_0, Version.V0_3)),
        ("/lf.a2a.v1.A2AService", Binding.GRPC, (Version.V1_0,)),  # the {grpc_address} interface
    }
    patch_mix = catalogue.get("quirks/patch-version-binding-mix")
    assert {(e.path, e.binding, e.versions) for e in patch_mix.endpoints} == {
        ("/a2a/jsonrpc", Binding.JSONRPC, (Version.V0_3,)),  # "0.3.0" is read as 0.3
        ("/a2a/rest", Binding.HTTP_JSON, (Version.V1_0,)),
    }
    v03 = catalogue.get("quirks/v03-completed-task-artifacts")
    assert [(e.path, e.binding, e.versions) for e in v03.endpoints] == [("/a2a", Binding.JSONRPC, (Version.V0_3,))]


def test_catalogue_scripts_and_rules(catalogue: Catalogue) -> None:
    submitted = catalogue.get("spec/task/submitted-needs-get-task")
    assert [s.state for s in submitted.task.steps] == [TaskState.SUBMITTED, TaskState.WORKING, TaskState.COMPLETED]
    assert submitted.task.returns is Returns.FIRST and submitted.task.advance_on_get == 1
    (rule,) = catalogue.get("quirks/advertised-method-not-found").rules[Operation.SEND_MESSAGE]
    assert rule.reply.error is not None and rule.reply.error.type is ErrorType.METHOD_NOT_FOUND
    assert catalogue.get("quirks/patch-version-binding-mix").lenient_kind is True
    assert catalogue.get("spec/conformant").lenient_kind is False


def test_catalogue_get_unknown_suggests(catalogue: Catalogue) -> None:
    with pytest.raises(KeyError, match=r"did you mean.*spec/conformant"):
        catalogue.get("spec/conformnt")
    with pytest.raises(KeyError, match="a2a-lab scenarios"):
        catalogue.get("zzzzzzzzzzzzzzzz")


def test_catalogue_select(catalogue: Catalogue) -> None:
    assert [s.id for s in catalogue.select(["quirks/*"])] == [i for i in CATALOGUE_IDS if i.startswith("quirks/")]
    assert "spec/conformant" not in [s.id for s in catalogue.select(None, ["spec/*"])]
    assert [s.id for s in catalogue.select(["spec/**"], ["spec/task/*"])] == [
        i for i in CATALOGUE_IDS if i.startswith("spec/") and not i.startswith("spec/task/")
    ]


def test_resolve_by_id_and_by_path(tmp_path: Path, catalogue: Catalogue) -> None:
    assert resolve("spec/conformant", catalogue).id == "spec/conformant"
    path = write_scenario(tmp_path, scenario_text(), "mine.yaml")
    assert resolve(str(path)).id == "mine"


# ------------------------------------------------------------------------------------ a valid file


def test_a_full_scenario_file_loads(tmp_path: Path) -> None:
    path = write_scenario(
        tmp_path,
        scenario_text("""
        task:
          steps: [SUBMITTED, {state: WORKING, message: "thinking about {text}"}, INPUT_REQUIRED, COMPLETED]
          artifacts: [{name: out, text: "got {text}"}]
          advance: {get_task: 2}
        behaviour:
          SendMessage:
            - when: {calls: {to: 2}, binding: jsonrpc}
              reply: {error: {code: InternalError, http_status: 503}}
            - when: {call: 3}
              reply: {message: [{text: a}, {data: {k: 1}}], delay_ms: 5, headers: {X-Test: ok}}
          SendStreamingMessage:
            reply: {stream: {duplicate_events: true, comments: [hi]}}
        limits: {body_bytes: 1000}
        push: {allow: [hooks.example]}
    """),
    )
    s = load_file(path)
    assert s.id == "scenario" and s.seed == 7
    assert [st.state for st in s.task.steps] == [
        TaskState.SUBMITTED,
        TaskState.WORKING,
        TaskState.INPUT_REQUIRED,
        TaskState.COMPLETED,
    ]
    assert s.task.steps[1].message == "thinking about {text}"
    assert s.task.artifacts == (
        ArtifactSpec({"artifactId": "artifact-1", "name": "out", "parts": [{"text": "got {text}"}]}),
    )
    assert s.task.advance_on_get == 2
    first, second = s.rules[Operation.SEND_MESSAGE]
    assert first.when.calls == (1, 2) and first.when.binding is Binding.JSONRPC
    assert (
        first.reply.error is not None
        and first.reply.error.type is ErrorType.INTERNAL_ERROR
        and first.reply.error_http_status == 503
    )
    assert second.when.calls == (3, 3) and second.reply.message == ({"text": "a"}, {"data": {"k": 1}})
    assert second.reply.headers == (("X-Test", "ok"),) and second.reply.delay_ms == 5
    (stream_rule,) = s.rules[Operation.SEND_STREAMING_MESSAGE]  # a single mapping is a one-rule list
    assert stream_rule.reply.stream.duplicate_events and stream_rule.reply.stream.comments == ("hi",)
    assert s.limits.body_bytes == 1000 and s.push_allow == ("hooks.example",)


def test_reply_task_overrides_inherit_the_scenario_task(tmp_path: Path) -> None:
    s = load_file(
        write_scenario(
            tmp_path,
            scenario_text("""
        behaviour:
          SendMessage:
            - reply: {task: {returns: first}}
    """),
        )
    )
    (rule,) = s.rules[Operation.SEND_MESSAGE]
    assert (
        rule.reply.task is not None
        and rule.reply.task.steps == DEFAULT_TASK.steps
        and rule.reply.task.returns is Returns.FIRST
    )


def test_numeric_error_codes(tmp_path: Path) -> None:
    s = load_file(
        write_scenario(
            tmp_path,
            scenario_text("""
        behaviour:
          GetTask: [{reply: {error: -32001}}]
          CancelTask: [{reply: {error: {code: -31999, message: custom}}}]
    """),
        )
    )
    get_err = s.rules[Operation.GET_TASK][0].reply.error
    custom = s.rules[Operation.CANCEL_TASK][0].reply.error
    assert get_err is not None and get_err.type is ErrorType.TASK_NOT_FOUND
    assert custom is not None and custom.code == -31999 and custom.text == "custom"


def test_raw_bodies_as_text_or_base64(tmp_path: Path) -> None:
    s = load_file(
        write_scenario(
            tmp_path,
            scenario_text("""
        behaviour:
          SendMessage: [{reply: {raw: {body_base64: "CgX/AGFiYw=="}}}]
          GetTask: [{reply: {raw: {body: "é"}}}]
    """),
        )
    )
    assert s.rules[Operation.SEND_MESSAGE][0].reply.raw_body == b"\n\x05\xff\x00abc"
    assert s.rules[Operation.GET_TASK][0].reply.raw_body == "é".encode()


def test_choices_and_errors_are_typed_on_load(tmp_path: Path) -> None:
    """What the server consumes is parsed once here: enums, A2AErrors, artifact specs; never raw YAML."""
    s = load_file(
        write_scenario(
            tmp_path,
            scenario_text("""
        task: {steps: [SUBMITTED, COMPLETED], artifacts: [{text: a, chunked: true}], returns: first}
        behaviour:
          SendMessage:
            - reply: {fault: {kind: drip, chunk_bytes: 3}, envelope: {id: "null", both: true}}
          SendStreamingMessage:
            - when: {call: 1}
              reply: {stream: {first_event: status, error_after: 1, error: {code: -31999, message: custom}}}
            - reply: {stream: {error_after: 2, error: TaskNotFound}}
        auth: {bearer: t, scope: extended_card}
        expect: {result: [none, task]}
    """),
        )
    )
    assert s.task.returns is Returns.FIRST and s.task.artifacts[0].chunked is True
    assert s.task.artifacts[0].artifact == {"artifactId": "artifact-1", "parts": [{"text": "a"}]}
    (send,) = s.rules[Operation.SEND_MESSAGE]
    assert send.reply.fault == Fault(FaultKind.DRIP, chunk_bytes=3)
    assert send.reply.envelope == Envelope(EnvelopeId.NULL, both=True)
    custom, named = (rule.reply.stream for rule in s.rules[Operation.SEND_STREAMING_MESSAGE])
    assert custom.first_event is FirstEvent.STATUS
    assert (custom.error.code, custom.error.text, custom.error.type) == (-31999, "custom", ErrorType.INTERNAL_ERROR)
    assert (named.error.code, named.error.text) == (-32001, STREAM_ERROR_MESSAGE)
    assert StreamScript().error.type is ErrorType.INTERNAL_ERROR and StreamScript().error.text == STREAM_ERROR_MESSAGE
    assert s.auth is not None and s.auth.scope is AuthScope.EXTENDED_CARD
    assert s.expect.results == (Conclusion.NONE, Conclusion.TASK) and s.expect.no_call_allowed
    assert s.card.well_known == CardPath(CardPathMode.SERVE) and s.card.legacy == CardPath(CardPathMode.MISSING, 404)


# ------------------------------------------------------------------------------------ broken files


def refused(tmp_path: Path, text: str) -> ScenarioError:
    path = write_scenario(tmp_path, text, "broken.yaml")
    with pytest.raises(ScenarioError) as info:
        load_file(path)
    err = info.value
    assert err.source == str(path)
    assert str(path) in str(err), "the error names the file"
    return err


def test_unknown_top_level_field_suggests_the_near_one(tmp_path: Path) -> None:
    err = refused(tmp_path, scenario_text("behavior: {}\n"))
    assert err.field_path == "behavior" and err.problem == "unknown field"
    assert err.hint == "did you mean 'behaviour'?"
    assert "behavior: unknown field" in str(err) and "hint: did you mean 'behaviour'?" in str(err)


def test_unknown_nested_field_names_its_path(tmp_path: Path) -> None:
    err = refused(
        tmp_path,
        scenario_text("""
        behaviour:
          SendMessage:
            - when: {text_contain: x}
              reply: {message: hi}
    """),
    )
    assert err.field_path == "behaviour.SendMessage[0].when.text_contain"
    assert err.hint == "did you mean 'text_contains'?"


def test_unknown_field_without_a_near_name_lists_the_allowed_ones(tmp_path: Path) -> None:
    err = refused(tmp_path, scenario_text("task: {steps: [COMPLETED], zzz: 1}\n"))
    assert err.field_path == "task.zzz" and "allowed here:" in err.hint and "steps" in err.hint


def test_bad_state_name(tmp_path: Path) -> None:
    err = refused(tmp_path, scenario_text("task: {steps: [SUBMITTED, WORKIN, COMPLETED]}\n"))
    assert err.field_path == "task.steps[1]"
    assert "unknown task state 'WORKIN'" in err.problem
    assert "WORKING" in err.hint and "COMPLETED" in err.hint


def test_unspecified_is_not_a_usable_state(tmp_path: Path) -> None:
    err = refused(tmp_path, scenario_text("task: {steps: [{state: UNSPECIFIED}]}\n"))
    assert err.field_path == "task.steps[0].state"


def test_bad_yaml_names_the_line(tmp_path: Path) -> None:
    text = scenario_text() + "task:\n  steps: [SUBMITTED\n  returns: first\n: x\n"
    err = refused(tmp_path, text)
    assert err.field_path.startswith("line ") and ", column " in err.field_path
    line = int(err.field_path.split()[1].rstrip(","))
    assert line > text.count("\n") - 4, "the line number points at the broken part, not the top of the file"
    assert "not valid YAML" in err.problem and err.hint


def test_bad_yaml_tab_indentation(tmp_path: Path) -> None:
    err = refused(tmp_path, "title: x\n\tdescription: y\n")
    assert err.field_path == "line 2, column 1"


def test_missing_title(tmp_path: Path) -> None:
    err = refused(tmp_path, scenario_text(head="description: d\nspec: s\n"))
    assert err.field_path == "title" and err.problem == "required field is missing" and "title" in err.hint


def test_a_file_of_ones_own_may_cite_nothing_with_a_warning(tmp_path: Path) -> None:
    """A quick local reproduction need not cite the spec or an observation: it loads, and `uncited` warns, naming the
    file and what to add (test_catalogue_scenario_is_usable still requires a citation of the catalogue)."""
    bare = write_scenario(tmp_path, scenario_text(head="title: t\ndescription: d\n"), "bare.yaml")
    cited = write_scenario(tmp_path, scenario_text(), "cited.yaml")
    scenarios = [load_file(bare), load_file(cited)]
    assert [s.cited for s in scenarios] == [False, True]
    [warning] = uncited(scenarios)
    assert warning.startswith(f"warning: {bare} cites neither `spec:`") and "`observed:`" in warning


def test_terminal_step_followed_by_another(tmp_path: Path) -> None:
    err = refused(tmp_path, scenario_text("task: {steps: [SUBMITTED, COMPLETED, WORKING]}\n"))
    assert err.field_path == "task.steps[1]"
    assert "COMPLETED is terminal" in err.problem and "never changes" in err.hint


def test_terminal_step_in_a_reply_task(tmp_path: Path) -> None:
    err = refused(
        tmp_path,
        scenario_text("""
        behaviour:
          SendMessage: [{reply: {task: {steps: [CANCELED, COMPLETED]}}}]
    """),
    )
    assert err.field_path == "behaviour.SendMessage[0].reply.task.steps[0]"


def test_unknown_operation_in_behaviour(tmp_path: Path) -> None:
    err = refused(tmp_path, scenario_text("behaviour:\n  SendMesage: [{reply: {message: hi}}]\n"))
    assert err.field_path == "behaviour.SendMesage" and err.problem == "unknown operation"
    assert err.hint == "did you mean 'SendMessage'?"


def test_v03_method_names_are_not_operations(tmp_path: Path) -> None:
    err = refused(tmp_path, scenario_text("behaviour:\n  message/send: [{reply: {message: hi}}]\n"))
    assert err.field_path == "behaviour.message/send" and err.problem == "unknown operation"


@pytest.mark.parametrize(
    ("body", "field", "needle"),
    [
        ("behaviour: {SendMessage: [{when: {}}]}\n", "behaviour.SendMessage[0].reply", "required"),
        ("behaviour: {SendMessage: []}\n", "behaviour.SendMessage", "list of rules"),
        (
            "behaviour: {SendMessage: [{reply: {message: hi, error: InternalError}}]}\n",
            "behaviour.SendMessage[0].reply",
            "at most one",
        ),
        (
            "behaviour: {SendMessage: [{reply: {error: TaskNotFund}}]}\n",
            "behaviour.SendMessage[0].reply.error.code",
            "unknown error",
        ),
        (
            "behaviour: {SendMessage: [{reply: {fault: explode}}]}\n",
            "behaviour.SendMessage[0].reply.fault.kind",
            "unknown fault",
        ),
        (
            "behaviour: {SendMessage: [{reply: {envelope: {id: random}}}]}\n",
            "behaviour.SendMessage[0].reply.envelope.id",
            "unknown value",
        ),
        (
            "behaviour: {SendMessage: [{reply: {delay_ms: -5}}]}\n",
            "behaviour.SendMessage[0].reply.delay_ms",
            "whole number",
        ),
        (
            "behaviour: {SendMessage: [{when: {version: '2.0'}, reply: {}}]}\n",
            "behaviour.SendMessage[0].when.version",
            "unknown protocol version",
        ),
        (
            "behaviour: {SendMessage: [{when: {binding: soap}, reply: {}}]}\n",
            "behaviour.SendMessage[0].when.binding",
            "unknown binding",
        ),
        (
            "behaviour: {SendMessage: [{when: {calls: {to: 0}}, reply: {}}]}\n",
            "behaviour.SendMessage[0].when.calls.to",
            "whole number",
        ),
        (
            "behaviour: {SendStreamingMessage: [{reply: {stream: {first_event: artifact}}}]}\n",
            "behaviour.SendStreamingMessage[0].reply.stream.first_event",
            "unknown value",
        ),
        (
            "behaviour: {SendMessage: [{reply: {message: []}}]}\n",
            "behaviour.SendMessage[0].reply.message",
            "non-empty list of parts",
        ),
        (
            "behaviour: {SendMessage: [{reply: {message: [{text: a, url: b}]}}]}\n",
            "behaviour.SendMessage[0].reply.message[0]",
            "exactly one",
        ),
        ("task: {steps: []}\n", "task.steps", "non-empty list"),
        ("task: {steps: [COMPLETED], returns: last}\n", "task.returns", "unknown value"),
        ("task: {steps: [COMPLETED], artifacts: [{name: x}]}\n", "task.artifacts[0]", "`parts` or `text`"),
        ("endpoints: [{path: rpc, binding: JSONRPC, versions: ['1.0']}]\n", "endpoints[0].path", "must start with /"),
        ("endpoints: [{path: /rpc, binding: JSONRPC, versions: []}]\n", "endpoints[0].versions", "non-empty list"),
        ("auth: {bearer: x, scope: some}\n", "auth.scope", "unknown value"),
        ("limits: {body_bytes: 0}\n", "limits.body_bytes", "whole number"),
        ("timeout: -1\n", "timeout", "positive number"),
        ("seed: abc\n", "seed", "whole number"),
        ("checks: check-1\n", "checks", "list of check ids"),
        # values the loader now types (the server used to re-read them from the YAML)
        (
            "behaviour: {SendStreamingMessage: [{reply: {stream: {error: {code: TaskNotFund}}}}]}\n",
            "behaviour.SendStreamingMessage[0].reply.stream.error.code",
            "unknown error",
        ),
        (
            "behaviour: {SendStreamingMessage: [{reply: {stream: {error: {code: -1, message: [x]}}}}]}\n",
            "behaviour.SendStreamingMessage[0].reply.stream.error.message",
            "expected text",
        ),
        (
            "behaviour: {SendStreamingMessage: [{reply: {stream: {error: {code: -1, http_status: 500}}}}]}\n",
            "behaviour.SendStreamingMessage[0].reply.stream.error.http_status",
            "unknown field",
        ),
        (
            "behaviour: {SendMessage: [{reply: {error: {code: InternalError, message: 42}}}]}\n",
            "behaviour.SendMessage[0].reply.error.message",
            "expected text",
        ),
        (
            "behaviour: {SendMessage: [{reply: {message: {parts: hi, text: hi}}}]}\n",
            "behaviour.SendMessage[0].reply.message.text",
            "unknown field",
        ),
        ("task: {returns: 1}\n", "task.returns", "unknown value"),
        ("task: {artifacts: [{text: a, chunked: yes please}]}\n", "task.artifacts[0].chunked", "true or false"),
        ("card: {object: {}, well_known: serv}\n", "card.well_known", "unknown value"),
        ("card: {object: {}, legacy: raw}\n", "card.legacy", "raw takes a mapping"),
        ("push: {allow: hooks.example}\n", "push.allow", "list of host names"),
        ("expect: {result: [task, maybe]}\n", "expect.result[1]", "unknown value"),
        (
            "behaviour: {SendMessage: [{reply: {raw: {body: a, body_base64: YQ==}}}]}\n",
            "behaviour.SendMessage[0].reply.raw",
            "not both",
        ),
        (
            "behaviour: {SendMessage: [{reply: {raw: {body_base64: '%%'}}}]}\n",
            "behaviour.SendMessage[0].reply.raw.body_base64",
            "not base64",
        ),
    ],
)
def test_more_broken_fields(tmp_path: Path, body: str, field: str, needle: str) -> None:
    err = refused(tmp_path, scenario_text(body))
    assert err.field_path == field
    assert needle in err.problem


def test_card_needs_object_or_raw(tmp_path: Path) -> None:
    err = refused(tmp_path, "title: t\ndescription: d\nspec: s\ncard: {content_type: application/json}\n")
    assert err.field_path == "card" and "exactly one of `object`" in err.problem


def test_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    err = refused(tmp_path, "- just\n- a list\n")
    assert err.field_path == "" and "expected a mapping" in err.problem
    assert "(top level)" in str(err)


def test_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ScenarioError, match="cannot read the scenario file") as info:
        load_file(missing)
    assert info.value.source == str(missing)
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"title: \xff\xfe\n")
    with pytest.raises(ScenarioError, match="not UTF-8"):
        load_file(binary)


def test_parse_takes_decoded_data_directly() -> None:
    with pytest.raises(ScenarioError) as info:
        parse({"title": "t"}, "x/y", "inline")
    assert info.value.source == "inline" and info.value.field_path == "description"


# ------------------------------------------------------------------------------------ a folder with a broken file


def test_a_broken_file_does_not_stop_the_others(tmp_path: Path) -> None:
    write_scenario(tmp_path, scenario_text(), "good/one.yaml")
    write_scenario(tmp_path, scenario_text("task: {steps: [COMPLETED]}\n"), "good/two.yaml")
    write_scenario(tmp_path, scenario_text("task: {steps: [DONE]}\n"), "bad/state.yaml")
    write_scenario(tmp_path, "title: [unclosed\n", "bad/yaml.yaml")
    (tmp_path / "notes.txt").write_text("not a scenario")
    cat = Catalogue.load(tmp_path)
    assert cat.ids() == ["good/one", "good/two"]
    assert set(cat.broken) == {"bad/state", "bad/yaml"}
    assert cat.broken["bad/state"].field_path == "task.steps[0]"
    assert cat.broken["bad/yaml"].field_path.startswith("line ")
    assert cat.get("good/two").task.steps[0].state is TaskState.COMPLETED
    with pytest.raises(ScenarioError) as info:
        cat.get("bad/state")  # asking for a broken one gives its error, not "unknown scenario"
    assert info.value.source.endswith("state.yaml")


# Issue 28 item 5: every size option capped at load.


def test_every_whole_number_limit_has_a_cap() -> None:
    assert set(FIELDS["limits"]) - set(LIMITS_MOST) == {"body_seconds", "stream_idle_seconds", "stream_ping_seconds"}


@pytest.mark.parametrize(
    ("option", "most"),
    [
        *((f"limits: {{{key}: {{n}}}}\n", most) for key, most in sorted(LIMITS_MOST.items())),
        ("card: {pad_to: {n}}\n", MAX_PAD_TO),
        ("gzip_min_bytes: {n}\n", MAX_ANSWER_BYTES),
        ("behaviour: {SendMessage: [{reply: {fault: {kind: truncate, after_bytes: {n}}}}]}\n", MAX_ANSWER_BYTES),
        ("behaviour: {SendMessage: [{reply: {fault: {kind: drip, chunk_bytes: {n}}}}]}\n", MAX_ANSWER_BYTES),
    ],
    ids=[*sorted(LIMITS_MOST), "pad_to", "gzip_min_bytes", "after_bytes", "chunk_bytes"],
)
def test_a_size_option_is_capped_at_load_naming_the_field_and_the_most(tmp_path: Path, option: str, most: int) -> None:
    """At its cap it loads; one more is refused with the file, the field, the most and why (before: card.pad_to
    3 000 000 000 reached 2.5 GB at start-up, then a MemoryError)."""

    def text(n: int) -> str:
        given = option.replace("{n}", str(n))
        if given.startswith("card:"):  # the card section is the test card's: pad_to goes in it
            return scenario_text().replace("card:\n", f"card:\n  pad_to: {n}\n", 1)
        return scenario_text(given)

    assert load_file(write_scenario(tmp_path, text(most), "at-most.yaml"))
    err = refused(tmp_path, text(most + 1))
    assert err.problem == f"{most + 1} is more than {most}, the most a2a-lab allows here" and err.hint, err
    assert err.field_path.rsplit(".", 1)[-1] in option, err


@pytest.mark.parametrize(
    "body, field, meant",
    [
        ("task: {steps: [SUBMITED, COMPLETED]}\n", "task.steps[0]", "SUBMITTED"),
        ("tls: {certificate: expird}\n", "tls.certificate", "expired"),
        ("expect: {result: mesage}\n", "expect.result", "message"),
    ],
)
def test_a_misspelt_value_gets_the_nearest_spelling(tmp_path: Path, body: str, field: str, meant: str) -> None:
    err = refused(tmp_path, scenario_text(body))
    assert err.field_path == field and err.hint.startswith(f"did you mean {meant!r}? one of ")


def test_a_value_near_nothing_gets_the_list_alone(tmp_path: Path) -> None:
    err = refused(tmp_path, scenario_text("tls: {certificate: zzzzzz}\n"))
    assert err.hint == "one of valid, unknown-ca, expired, wrong-host"


TYPED_CARD = """\
title: A card whose protocolVersion YAML reads as a number
description: d
card:
  object:
    name: x
    description: y
    version: "1"
    capabilities: {streaming: true}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills: []
    supportedInterfaces:
      - url: "{base_url}/a2a"
        protocolBinding: JSONRPC
        protocolVersion: VERSION
"""


def test_a_card_member_of_the_wrong_type_is_refused_with_its_line_and_a_hint(tmp_path: Path) -> None:
    """`protocolVersion: 1.0` unquoted is YAML's number 1.0, which a strict client's card model refuses: the loader says
    where, what, and how to quote it (or to give the card raw, to serve the number on purpose)."""
    path = tmp_path / "typed.yaml"
    path.write_text(TYPED_CARD.replace("VERSION", "1.0"), encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        load_file(path)
    assert err.value.field_path == "card.object.supportedInterfaces[0].protocolVersion"
    assert err.value.where == "line 15, column 26"
    assert "a number (1.0) where A2A types it as a string" in err.value.problem
    assert 'protocolVersion: "1.0"' in err.value.hint and "card.edit" in err.value.hint
    assert str(err.value).startswith(f"{path}, line 15, column 26: card.object.supportedInterfaces[0].protocolVersion")
    path.write_text(TYPED_CARD.replace("VERSION", '"1.0"'), encoding="utf-8")
    assert load_file(path).card.object is not None
    path.write_text(TYPED_CARD.replace("streaming: true", "streaming: 'yes'").replace("VERSION", '"1.0"'), "utf-8")
    with pytest.raises(
        ScenarioError, match=r"capabilities\.streaming: a string \('yes'\) where A2A types it as a boolean"
    ):
        load_file(path)


def test_every_refusal_of_a_file_names_the_line_where_its_path_leads(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("title: t\ndescription: d\ncard:\n  object: {}\ntimeout: -3\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        load_file(path)
    assert err.value.field_path == "timeout" and err.value.where == "line 5, column 10"


@pytest.mark.parametrize(
    ("edit", "field", "says"),
    [
        ("[{set: 1}]", "behaviour.GetTask[0].reply.edit[0].at", "required: the path"),
        ("[{at: 'a..b', set: 1}]", "behaviour.GetTask[0].reply.edit[0].at", "is not a path"),
        ("[{at: result, wrap: task, unwrap: true}]", "behaviour.GetTask[0].reply.edit[0]", "exactly one of"),
        ("[{at: result, delete: false}]", "behaviour.GetTask[0].reply.edit[0].delete", "edits nothing"),
        ("[{at: '', rename: x}]", "behaviour.GetTask[0].reply.edit[0].at", "cannot be renamed"),
        ("[]", "behaviour.GetTask[0].reply.edit", "non-empty list"),
    ],
)
def test_a_bad_edit_is_refused_with_where_and_how(tmp_path: Path, edit: str, field: str, says: str) -> None:
    path = tmp_path / "e.yaml"
    path.write_text(
        "title: t\ndescription: d\ncard:\n  object: {name: x}\n"
        f"behaviour:\n  GetTask:\n    - reply: {{edit: {edit}}}\n",
        encoding="utf-8",
    )
    with pytest.raises(ScenarioError) as err:
        load_file(path)
    assert err.value.field_path == field and says in err.value.problem, err.value


# Issue 43 item 6 (api7/aisix#913): a scenario served under a path prefix.


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ("agents/demo", "must start with /"),
        ("/agents/demo?x=1", "query or fragment"),
        ("/agents/demo#top", "query or fragment"),
        ("/agents/../demo", "empty, . or .. segment"),
        ("/agents/./demo", "empty, . or .. segment"),
        ("/agents//demo", "empty, . or .. segment"),
        ("/", "leave base_path out"),
        ("/agents/de mo", "which a URL path segment cannot hold"),
        ("/agents/%2e%2e", "which a URL path segment cannot hold"),
        ("/.well-known/x", "shadows the origin's own paths"),
        ("/_lab", "shadows the origin's own paths"),
        ("7", "expected text"),
    ],
)
def test_a_bad_base_path_is_refused_naming_the_field_and_a_fix(tmp_path: Path, given: str, problem: str) -> None:
    value = given if given == "7" else f'"{given}"'
    err = refused(tmp_path, scenario_text(f"base_path: {value}\n"))
    assert err.field_path == "base_path" and problem in err.problem, err
    assert given == "7" or "/agents/demo" in err.hint, err


def test_a_base_path_is_kept_without_its_trailing_slash_and_fills_base_url(tmp_path: Path) -> None:
    scenario = load_file(write_scenario(tmp_path, scenario_text("base_path: /agents/demo/\n")))
    assert scenario.base_path == "/agents/demo"
    assert scenario.served_at("http://127.0.0.1:8000") == "http://127.0.0.1:8000/agents/demo"
    assert load_file(write_scenario(tmp_path, scenario_text(), "plain.yaml")).base_path == ""


def test_origin_root_needs_a_base_path(tmp_path: Path) -> None:
    text = scenario_text().replace("card:\n", "card:\n  origin_root: {status: 405, body: Method Not Allowed}\n", 1)
    err = refused(tmp_path, text)
    assert err.field_path == "card.origin_root" and "prefix" in err.problem and "base_path" in err.hint, err
    served = load_file(write_scenario(tmp_path, text + "base_path: /agents/demo\n", "prefixed.yaml"))
    assert served.card.origin_root.status == 405
