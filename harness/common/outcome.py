"""A scenario's outcome from its checks, the one rule every judge shares (the runner's, the probe's, the proxy's, the
pytest plugin's): the worst check, the runs that could not be judged, and the evidence floor (`Subject`: never PASS
where the scenario's subject did not happen)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from a2a_lab.harness.common.model import NONE, REACHED, REFUSED, REFUSED_CARD, SEVERITY, CheckResult, Level, Outcome

#: The check that judges a client stopped at the scenario's time limit while it waited for an answer that never came:
#: there the timeout is the verdict's subject, not a run that could not be judged (scenario_outcome).
GIVES_UP = "GIVES-UP"


@dataclass(frozen=True)
class Subject:
    """Whether a scenario's subject happened: what a PASS must point at (the evidence floor)."""

    #: The client sent the agent at least one request beyond the card fetch (a call, right or wrong).
    reached: bool
    #: The client left the agent alone where a correct client may (`expect: {result: none}`, or a card that offers a
    #: client of its known generation and bindings nothing it speaks), and ended by itself without crashing: the
    #: refusal the scenario exists for. A crash is no refusal: why it stopped is not shown.
    refused: bool
    #: Why the subject did not happen, for the scenario's message ("" when it did).
    missing: str = ""
    #: The refusal is of a card that offers this client's generation or bindings nothing, in a scenario whose own
    #: subject is something else: right, but the subject was not judged (counted apart in every report).
    card_refusal: bool = False

    @property
    def happened(self) -> bool:
        return self.reached or self.refused

    @property
    def label(self) -> str:
        """How reports name it (ScenarioResult.subject): `reached`, `refused` (the refusal the scenario exists for),
        `refused-card` (a correct refusal of a card for another generation or binding), `none`."""
        if self.reached:
            return REACHED
        if self.refused:
            return REFUSED_CARD if self.card_refusal else REFUSED
        return NONE


#: Check outcomes that judge nothing.
_UNJUDGED = frozenset({Outcome.UNIMPLEMENTED, Outcome.SKIPPED, Outcome.INFORMATIONAL})


def scenario_outcome(
    checks: list[CheckResult],
    timed_out: bool,
    contacted: bool,
    error: str | None,
    purpose: Collection[str] = (),
    subject: Subject | None = None,
) -> Outcome:
    """The worst of the checks (a PASS at least); TIMEOUT, NO_CONTACT or ERROR when the run could not be judged.

    A timeout is the verdict only where no check judged it (GIVES-UP judges a client stopped while it waited for an
    answer that never came). UNIMPLEMENTED, not PASS, when the checks the scenario exists for (`purpose`, else all)
    judged nothing: each was UNIMPLEMENTED or SKIPPED, at least one UNIMPLEMENTED (the client did not show on the wire
    what the scenario asks, and wrote no A2A_LAB_RESULT); a MAY check among them counts only where no MUST or SHOULD
    check is among them. The evidence floor: never PASS when the scenario's `subject`
    did not happen (the client neither reached the agent nor refused it where a correct client may): a card fetch
    alone is no PASS.
    """
    if error:
        return Outcome.ERROR
    judged = [c for c in checks if c.baseline is None]
    if timed_out and not any(c.id == GIVES_UP and c.outcome is not Outcome.SKIPPED for c in judged):
        return Outcome.TIMEOUT
    if not contacted:
        return Outcome.NO_CONTACT
    worst = max((c.outcome for c in judged), key=lambda o: SEVERITY[o], default=Outcome.PASS)
    if SEVERITY[worst] > SEVERITY[Outcome.PASS]:
        return worst
    if subject is not None and not subject.happened:
        return Outcome.UNIMPLEMENTED
    focus = [c for c in judged if c.id in purpose] if purpose else judged
    # A MAY check (STREAMING-USED) stands for the scenario's subject only where nothing stronger is its purpose: a
    # client that streamed but showed nothing of the answer the scenario exists for has not shown its subject.
    stronger = [c.outcome for c in focus if c.level in (Level.MUST, Level.SHOULD)]
    outcomes = stronger or [c.outcome for c in focus]
    if Outcome.UNIMPLEMENTED in outcomes and all(o in _UNJUDGED for o in outcomes):
        return Outcome.UNIMPLEMENTED
    return Outcome.PASS
