"""``wake_reason`` on a finished step: only a step others depend on wakes,
and an event logged before the event said so (no ``dependents``) still wakes, as it always did."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from server.events.workflow_kinds import ROOT
from server.realtime import LoggedEvent
from server.services.workflows.wakeups import wake_reason


def finished(to: str, data: dict[str, Any]) -> LoggedEvent:
    return LoggedEvent(
        1, "t", "workflow_step", "s", ROOT, "w", "workflow_step_transitioned", "running", to, "a", data,
        datetime.now(UTC),
    )  # fmt: skip


@pytest.mark.parametrize("to", ["completed", "skipped"])
def test_a_finished_step_wakes_only_when_something_depends_on_it(to: str) -> None:
    assert wake_reason(finished(to, {"agent": "a", "dependents": True})) == f"step_{to}"
    assert wake_reason(finished(to, {"agent": "a", "dependents": False})) is None
    assert wake_reason(finished(to, {"agent": "a"})) == f"step_{to}"  # logged before: conservative
