"""The in-process harness: each app it drives answers every request it sends, and a run's figures say
how many it made."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest


def _process(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench.in_process", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _run(*args: str) -> dict[str, object]:
    done = _process(*args)
    assert done.returncode == 0, done.stderr
    figures: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    "args",
    [
        (),
        ("--typename",),
        ("--app", "mutations"),
        ("--app", "mutations_sql"),
        ("--app", "strawberry", "--typename"),
        ("--app", "services"),
        ("--app", "sql"),
    ],
)
def test_every_request_of_two_rounds_is_answered(args: tuple[str, ...]) -> None:
    # Two rounds of 16 agents, 40 requests each; a reply with errors (or a failed assertion on it)
    # ends the run with an exception, so a count means every request was answered as expected.
    figures = _run("--rounds", "2", *args)
    assert figures["requests"] == 2 * 16 * 40
    assert isinstance(figures["cpu_us_per_request"], float)
    assert figures["cpu_us_per_request"] > 0


@pytest.mark.timeout(900)
def test_a_run_on_a_filled_database_adds_its_agents_plans_to_the_loaded_ones() -> None:
    figures = _run("--rounds", "1", "--plans", "300")
    assert figures["requests"] == 16 * 40
    assert figures["plans_in_database"] == 300 + 16


def test_an_app_that_answers_only_typename_is_refused_the_agents() -> None:
    done = _process("--app", "starlette")
    assert done.returncode == 2
    assert "answers only --typename" in done.stderr


def test_the_parts_without_an_app_are_refused_typename() -> None:
    done = _process("--app", "services", "--typename")
    assert done.returncode == 2
    assert "no --typename" in done.stderr


@pytest.mark.timeout(900)
@pytest.mark.parametrize("app", ["services", "sql"])
def test_the_parts_without_an_app_make_a_plan_an_agent_as_the_agents_do(app: str) -> None:
    """The services and the raw SQL make the same transitions as the agents' requests: a round is 16
    plans of 20 steps, each step started and submitted."""
    figures = _run("--app", app, "--rounds", "1")
    assert figures["requests"] == 16 * 40
    assert figures["plans_in_database"] == 16


@pytest.mark.timeout(900)
@pytest.mark.parametrize("app", ["flightdeck", "services"])
@pytest.mark.parametrize("db_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
async def test_on_postgresql_a_run_reports_the_backends_cpu_beside_its_own(app: str, db_url: str) -> None:
    """``--database-url``: the same agents on a PostgreSQL database of the run's own (emptied and
    migrated first), and the CPU its backends used per transition."""
    figures = await asyncio.to_thread(_run, "--app", app, "--rounds", "2", "--database-url", db_url)
    assert figures["requests"] == 2 * 16 * 40
    assert figures["plans_in_database"] == 2 * 16
    assert isinstance(figures["database_cpu_us_per_request"], float)
    assert figures["database_cpu_us_per_request"] > 0


def test_the_parts_that_run_only_on_sqlite_are_refused_a_database_url() -> None:
    done = _process("--app", "sql", "--database-url", "postgresql+asyncpg://unused@127.0.0.1/unused")
    assert done.returncode == 2
    assert "the other parts are SQLite's" in done.stderr
