"""protocol/states.py's fast look-ups answer exactly as the enum's own (they stand in for it on the hot path)."""

from __future__ import annotations

import pytest

from a2a_lab.protocol import states
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.forms import Form
from a2a_lab.protocol.states import Role, TaskState
from a2a_lab.protocol.versions import Version


def test_by_value_is_the_enum_lookup_and_fails_as_it_does() -> None:
    for state in TaskState:
        assert states.by_value(state.value) is TaskState(state.value)
    for wrong in ("COMPLETED", "completed", "TASK_STATE_CANCELLED", ""):
        with pytest.raises(ValueError):
            states.by_value(wrong)


@pytest.mark.parametrize("version", list(Version))
def test_roles_parse_and_spell_as_the_version_spells_them(version: Version) -> None:
    form = Form(version, Binding.JSONRPC)
    for role in Role:
        spelled = states.spell_role(role, form)
        assert states.parse_role(spelled, form) is role
    assert states.parse_role("ROLE_SYSTEM", form) is None
    assert states.parse_role(None, form) is None


def test_a_role_spelled_for_the_other_version_is_not_a_role() -> None:
    assert states.parse_role("user", Form(Version.V1_0, Binding.JSONRPC)) is None
    assert states.parse_role("ROLE_USER", Form(Version.V0_3, Binding.JSONRPC)) is None
