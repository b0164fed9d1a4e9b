"""Lists filter by state, time and text, sort by their columns and page by cursor, per tenant.

Run on both databases: the text search is FTS5 (trigram) on SQLite and pg_trgm on PostgreSQL, and both
must find the same rows.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from server.clock import FakeClock
from server.db.models import ResearchPlan
from server.errors import ErrorCode, ServiceError
from server.services import history, listing
from server.services.listing import ListOrder, ListQuery
from server.services.plans.inbox import count_awaiting_input, inbox_cursor, steps_awaiting_input
from server.services.plans.queries import PLANS
from tests.services.helpers import OTHER_TENANT, Flight


async def _all(flight: Flight, query: ListQuery, size: int = 2, tenant: str | None = None) -> list[str]:
    """Every matching plan id, walking the pages with their cursors."""
    wanted = listing.checked(query)
    ids: list[str] = []
    after: str | None = None
    while True:
        page = await flight.read(
            lambda s, after=after: listing.list_page(
                s, PLANS, tenant or flight.tenant_id, wanted, size, after
            )
        )
        ids += [p.id for p in page.items]
        if not page.has_next_page:
            return ids
        after = listing.list_cursor(PLANS, wanted, page.items[-1])


async def _count(flight: Flight, query: ListQuery) -> int:
    return await flight.read(lambda s: listing.count(s, PLANS, flight.tenant_id, listing.checked(query)))


async def test_search_finds_a_case_insensitive_substring_of_title_or_question_in_the_tenant(
    flight: Flight, clock: FakeClock
) -> None:
    cold = await flight.create(1, "What limits Battery life in cold weather?")
    clock.advance(timedelta(seconds=1))
    titled = await flight.create(1, "Something else", title="Cold-chain BATTERIES")
    await flight.create(1, "Where do tides come from?")
    await flight.as_(OTHER_TENANT).create(1, "Battery chemistry, another tenant's")

    found = await _all(flight, ListQuery(search="batter"))
    assert found == [titled.plan.id, cold.plan.id]
    assert await _count(flight, ListQuery(search="batter")) == 2
    assert len(await _all(flight, ListQuery(search="  TIDES "))) == 1
    assert await _all(flight, ListQuery(search="nothing like this")) == []
    # Quotes and LIKE wildcards are text, not syntax, on both databases.
    assert await _all(flight, ListQuery(search='"%_')) == []


async def test_every_order_pages_through_all_matches_once_in_order(flight: Flight, clock: FakeClock) -> None:
    ids = []
    for _ in range(5):
        ids.append((await flight.create(2)).plan.id)
        clock.advance(timedelta(seconds=1))
    await flight.start(ids[1])  # executing, and updated last
    clock.advance(timedelta(seconds=1))
    await flight.start(ids[3])

    assert await _all(flight, ListQuery()) == ids[::-1]
    assert await _all(flight, ListQuery(descending=False)) == ids
    updated = await _all(flight, ListQuery(order=ListOrder.UPDATED_AT))
    assert updated[:2] == [ids[3], ids[1]]
    assert sorted(updated) == sorted(ids)
    by_status = await _all(flight, ListQuery(order=ListOrder.STATUS, descending=False))
    assert by_status == [ids[1], ids[3], ids[0], ids[2], ids[4]]  # executing < pending, then by creation
    executing = ListQuery(statuses=["executing"], order=ListOrder.UPDATED_AT)
    assert await _all(flight, executing, size=1) == [ids[3], ids[1]]
    assert await _count(flight, executing) == 2


async def test_a_time_range_keeps_what_was_created_within_it(flight: Flight, clock: FakeClock) -> None:
    before = (await flight.create(1)).plan
    clock.advance(timedelta(hours=1))
    inside = (await flight.create(1)).plan
    clock.advance(timedelta(hours=1))
    after = (await flight.create(1)).plan

    window = ListQuery(since=inside.created_at, until=after.created_at)
    assert await _all(flight, window) == [inside.id]
    assert await _all(flight, ListQuery(until=inside.created_at)) == [before.id]
    assert await _count(flight, window) == 1


@pytest.mark.parametrize(
    ("query", "field"),
    [
        (ListQuery(search="ab"), "search"),
        (ListQuery(search="x" * 201), "search"),
        (ListQuery(search="bad\x00text"), "search"),
    ],
)
def test_a_search_out_of_bounds_is_refused(query: ListQuery, field: str) -> None:
    with pytest.raises(ServiceError) as refused:
        listing.checked(query)
    assert [(p.code, p.field) for p in refused.value.problems] == [
        (ErrorCode.VALIDATION_FAILED, ["filter", field])
    ]


def test_a_time_range_with_the_state_order_is_refused() -> None:
    with pytest.raises(ServiceError) as refused:
        listing.checked(ListQuery(since=datetime(2026, 1, 1, tzinfo=UTC), order=ListOrder.STATUS))
    assert refused.value.problems[0].code is ErrorCode.VALIDATION_FAILED


async def test_a_backwards_time_range_and_a_cursor_of_another_order_are_refused(flight: Flight) -> None:
    plan = (await flight.create(1)).plan
    with pytest.raises(ServiceError) as backwards:
        listing.checked(ListQuery(since=plan.created_at, until=plan.created_at))
    assert backwards.value.problems[0].field == ["filter", "until"]

    by_created = listing.list_cursor(PLANS, ListQuery(), plan)
    by_updated = listing.list_cursor(PLANS, ListQuery(order=ListOrder.UPDATED_AT), plan)
    for query, cursor in [(ListQuery(order=ListOrder.UPDATED_AT), by_created), (ListQuery(), by_updated)]:
        with pytest.raises(ServiceError) as foreign:
            await flight.read(
                lambda s, q=query, c=cursor: listing.list_page(s, PLANS, flight.tenant_id, q, 5, c)
            )
        assert foreign.value.problems[0].code is ErrorCode.VALIDATION_FAILED


async def test_history_filters_events_by_kind_object_and_time_and_pages_newest_first(
    flight: Flight, clock: FakeClock
) -> None:
    first = await flight.create(2)
    clock.advance(timedelta(minutes=1))
    second = await flight.create(2)
    started = await flight.start(second.plan.id)
    assert started.step is not None

    async def page(query: history.EventQuery, after: int = 0, newest: bool = False) -> list[int]:
        found = await flight.read(
            lambda s: history.events_page(s, flight.tenant_id, query, after, 50, newest_first=newest)
        )
        return [e.seq for e in found.items]

    everything_rows = await flight.events()
    everything = await page(history.EventQuery())
    assert everything == [e.seq for e in everything_rows]
    assert await page(history.EventQuery(), newest=True) == everything[::-1]
    assert await page(history.EventQuery(), everything[-2], newest=True) == everything[-3::-1]
    step_events = [e.seq for e in everything_rows if e.entity_id == started.step.id]
    assert step_events
    assert await page(history.EventQuery(entity_id=started.step.id)) == step_events
    kind = everything_rows[0].kind  # what creating a plan writes first
    of_kind = [e for e in everything_rows if e.kind == kind]
    assert len(of_kind) >= 2
    assert len(of_kind) < len(everything_rows)
    assert await page(history.EventQuery(kinds=(kind, "no_such_kind"))) == [e.seq for e in of_kind]
    later = await page(history.EventQuery(kinds=(kind,), since=second.plan.created_at))
    assert later == [e.seq for e in of_kind if e.created_at >= second.plan.created_at]
    assert later
    assert later != [e.seq for e in of_kind]
    assert await page(history.EventQuery(root_id=first.plan.id)) == [
        e.seq for e in await flight.events(root_id=first.plan.id)
    ]
    with pytest.raises(ServiceError):
        history.check_event_query(history.EventQuery(kinds=tuple(f"k{i}" for i in range(51))))


async def test_the_review_inbox_filters_by_waiting_time_and_plan_text_both_ways(
    flight: Flight, clock: FakeClock
) -> None:
    older = await flight.awaiting_review()
    clock.advance(timedelta(minutes=5))
    cut = clock.now()
    newer = await flight.awaiting_review()
    clock.advance(timedelta(seconds=1))
    other = await flight.create(1, "Why is the sea salty?")
    started = await flight.start(other.plan.id)
    assert started.step is not None
    await flight.review(started.step.id)
    await flight.as_(OTHER_TENANT).awaiting_review()

    async def inbox(wanted: ListQuery, first: int = 50, after: str | None = None) -> list[tuple[str, str]]:
        page = await flight.read(
            lambda s: steps_awaiting_input(s, flight.tenant_id, first, after, listing.checked(wanted))
        )
        return [(item.plan.id, item.step.id) for item in page.items]

    salty = (other.plan.id, started.step.id)
    assert await inbox(ListQuery(descending=False)) == [older, newer, salty]
    assert await inbox(ListQuery(descending=True)) == [salty, newer, older]
    assert await inbox(ListQuery(search="SALTY", descending=False)) == [salty]
    assert await inbox(ListQuery(since=cut, descending=False)) == [newer, salty]
    assert await inbox(ListQuery(until=cut, descending=False)) == [older]
    counted = ListQuery(since=cut, search="question", descending=False)  # the helper's plans ask one
    assert (
        await flight.read(lambda s: count_awaiting_input(s, flight.tenant_id, listing.checked(counted))) == 1
    )
    page = await flight.read(
        lambda s: steps_awaiting_input(s, flight.tenant_id, 1, None, ListQuery(descending=True))
    )
    after = inbox_cursor(page.items[0])
    assert await inbox(ListQuery(descending=True), after=after) == [newer, older]


async def test_search_follows_a_changed_title_and_question(flight: Flight) -> None:
    plan_id = (await flight.create(1, "First wording of the question")).plan.id
    async with flight.runtime.db.transaction() as session:
        changed = {"title": "Renamed heading", "research_question": "Second wording"}
        await session.execute(update(ResearchPlan).where(ResearchPlan.id == plan_id).values(**changed))

    assert await _all(flight, ListQuery(search="first wording")) == []
    assert await _all(flight, ListQuery(search="second wording")) == [plan_id]
    assert await _all(flight, ListQuery(search="RENAMED")) == [plan_id]
