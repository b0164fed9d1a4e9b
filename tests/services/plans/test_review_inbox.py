"""The review inbox lists every step awaiting input across the tenant's plans, oldest request first."""

from __future__ import annotations

from datetime import timedelta

import pytest

from server.clock import FakeClock
from server.errors import ErrorCode, ServiceError
from server.services.plans.inbox import count_awaiting_input, inbox_cursor, steps_awaiting_input
from server.services.plans.inputs import Decision
from tests.services.helpers import OTHER_TENANT, Flight, problem_codes


async def inbox(flight: Flight, first: int = 50, after: str | None = None) -> list[tuple[str, str]]:
    page = await flight.read(lambda s: steps_awaiting_input(s, flight.tenant_id, first, after))
    return [(item.plan.id, item.step.id) for item in page.items]


async def test_steps_awaiting_input_of_every_plan_are_listed_oldest_request_first(
    flight: Flight, clock: FakeClock
) -> None:
    first = await flight.awaiting_review()
    clock.advance(timedelta(seconds=5))
    second = await flight.awaiting_review()
    await flight.create(2)  # a plan with nothing waiting

    assert await inbox(flight) == [first, second]
    assert await flight.read(lambda s: count_awaiting_input(s, flight.tenant_id)) == 2


async def test_a_decided_step_leaves_the_inbox(flight: Flight) -> None:
    plan_id, step_id = await flight.awaiting_review()
    other = await flight.awaiting_review()

    await flight.decide(step_id, Decision.APPROVE)

    assert await inbox(flight) == [other]
    assert (await flight.plan(plan_id)).status == "executing"


async def test_another_tenants_waiting_steps_are_not_listed(flight: Flight) -> None:
    await flight.as_(OTHER_TENANT).awaiting_review()
    mine = await flight.awaiting_review()

    assert await inbox(flight) == [mine]
    assert await flight.read(lambda s: count_awaiting_input(s, OTHER_TENANT.tenant_id)) == 1


async def test_the_inbox_pages_with_cursors_and_refuses_foreign_ones(
    flight: Flight, clock: FakeClock
) -> None:
    waiting = []
    for _ in range(3):
        waiting.append(await flight.awaiting_review(steps=1))
        clock.advance(timedelta(seconds=1))

    page = await flight.read(lambda s: steps_awaiting_input(s, flight.tenant_id, 2, None))
    assert [(i.plan.id, i.step.id) for i in page.items] == waiting[:2]
    assert page.has_next_page
    assert await inbox(flight, after=inbox_cursor(page.items[-1])) == waiting[2:]

    with pytest.raises(ServiceError) as refused:
        await inbox(flight, after="bm90LWEtY3Vyc29y")
    assert problem_codes(refused.value) == [ErrorCode.VALIDATION_FAILED]
