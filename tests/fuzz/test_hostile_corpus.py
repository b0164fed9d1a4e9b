"""The hostile corpus against SQLite and PostgreSQL side by side (dev mode).

Every case goes to both databases. Each answer must pass the oracle (no 5xx, JSON, no ``"Unexpected
error."``, nothing written on a refusal), be refused where the case says so, leave the connection
usable, cost the server under 1 s of CPU with the health probe answered throughout; and both databases
must give the same answer (the same status, the same refusal, the same userError codes and fields):
they accept and refuse the same inputs.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio

from .corpus import CASES, REFUSED, Case, Ctx
from .harness import HEALTH_WITHIN, Harness, HealthProbe, Tally
from .known import xfail_found, xfail_open
from .oracle import Request, Verdict
from .target import Target, open_target

PROBE = Request("probe", "query", "{ latestSeq }")


# One event loop for the module: each database's client, engine and probe serve every case.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass
class Side:
    """One database's server, with the module's client of it, its tally and its health probe."""

    target: Target
    tally: Tally
    harness: Harness
    probe: HealthProbe


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sides(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[list[Side]]:
    """SQLite, and PostgreSQL when it is there (FLIGHTDECK_REQUIRE_SERVICES=1 makes it required)."""
    with contextlib.ExitStack() as stack:
        found: list[Side] = []
        for database in ("sqlite", "postgres"):
            opened = open_target(request, tmp_path_factory.mktemp(f"corpus-{database}"), database, "dev")
            try:
                target = next(opened)
            except pytest.skip.Exception:
                continue
            stack.callback(opened.close)
            tally = Tally(target.name)
            probe = stack.enter_context(HealthProbe(target, tmp_path_factory.mktemp("probe") / "probe.log"))
            found.append(Side(target, tally, await Harness(target, tally).__aenter__(), probe))
        try:
            yield found
        finally:
            for side in found:
                await side.harness.__aexit__(None, None, None)
                print("\ncorpus on", side.tally.headline(side.tally.write("corpus")))


def _marks(case: Case) -> list[pytest.MarkDecorator]:
    if case.open_item:
        return xfail_open(case.open_item)
    return [xfail_found(case.found)] if case.found else []


def _params() -> list[object]:
    return [pytest.param(name, id=name, marks=_marks(case)) for name, case in CASES.items()]


def _signature(verdict: Verdict) -> tuple[int, bool, list[str]]:
    return verdict.status, verdict.refused, sorted(verdict.user_error_codes)


@pytest.mark.parametrize("name", _params())
async def test_hostile_input_is_refused_cleanly_and_alike_on_both_databases(
    name: str, sides: list[Side]
) -> None:
    case = CASES[name]
    problems: list[str] = []
    answers: dict[str, Verdict] = {}
    for side in sides:
        sent = await case.build(Ctx(side.harness))
        started = time.monotonic()
        verdict, failure = await side.harness.send(sent)
        after, _ = await side.harness.send(PROBE)  # the same connection, still usable
        took_long = time.monotonic() - started > HEALTH_WITHIN / 2
        slow = side.tally.absorb(await side.probe.settle(wait=took_long), side.harness.during)
        answers[side.target.name] = verdict
        where = f"{side.target.name}: "
        if failure is not None:
            problems += [where + p for p in failure.problems]
        if case.expect == REFUSED and not verdict.refused:
            problems.append(f"{where}accepted (HTTP {verdict.status}): {str(verdict.body)[:300]}")
        if "/" in case.expect and verdict.media_type != case.expect:
            problems.append(f"{where}answered as {verdict.media_type}, not {case.expect}")
        if after.status != 200 or after.problems:
            problems.append(f"{where}the next request on the connection failed: HTTP {after.status}")
        problems += [where + p for p in slow]
    signatures = {database: _signature(v) for database, v in answers.items()}
    if len(set(map(repr, signatures.values()))) > 1:
        problems.append(f"the databases disagree: {signatures}")
    if problems:
        for side in sides:
            side.tally.failing_cases[name] = problems
    assert not problems, "\n".join([*problems, sent.reproducer()])
