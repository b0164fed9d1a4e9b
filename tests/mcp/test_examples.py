"""The examples in examples/ run as the MCP guide (docs/guides/mcp.md) shows them, so they never rot.
(Their --stdio path is left out to keep CI short: stdio itself is tested in test_mcp_stdio.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import LiveServer
from tests.waiting import patient

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run(*args: str, env: dict[str, str] | None = None) -> list[str]:
    done = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=patient(120),
        env={**os.environ, "FLIGHTDECK_API_KEY": "", **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_research_agent_completes_its_plan_over_http(live_server: LiveServer) -> None:
    lines = run(str(EXAMPLES / "research_agent.py"), "--url", live_server.url)
    assert lines[-1].endswith(" completed 100%")
    assert [line for line in lines if line.startswith("completed step")] == [
        "completed step 1",
        "completed step 2",
        "completed step 3",
    ]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_onboarding_workers_skip_the_email_and_succeed(live_server: LiveServer) -> None:
    lines = run(str(EXAMPLES / "onboarding_worker.py"), "--url", live_server.url)
    assert lines[-1].endswith(" completed succeeded")
    assert any(line.endswith("send-welcome failed (the email service is down)") for line in lines)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_onboarding_workers_compensate_when_a_step_breaks(live_server: LiveServer) -> None:
    lines = run(str(EXAMPLES / "onboarding_worker.py"), "--url", live_server.url, "--fail", "setup-analytics")
    assert lines[-1].endswith(" completed rolled_back")
    undone = [line.split(":")[0] for line in lines if ": undid " in line]
    assert undone == ["product-analyst", "growth-optimizer"]
