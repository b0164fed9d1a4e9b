"""The mission review inbox as one filtered, paged, counted list, and the duration order of the root
lists, over HTTP on a real server, on both databases."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tests.api import mission_operations as mops
from tests.conftest import GraphQLClient, LiveServer

REVIEWS = """
query($first: Int!, $after: String, $filter: MissionReviewFilter, $newest: Boolean! = false) {
  missionReviews(first: $first, after: $after, filter: $filter, newestFirst: $newest) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { cursor node { kind waitingSince mission { id title } hop { id } asset { id } } }
  }
}
"""

MISSIONS = """
query($first: Int!, $after: String, $orderBy: ListOrderBy, $filter: ListFilter, $status: [MissionStatus!]) {
  missions(first: $first, after: $after, orderBy: $orderBy, filter: $filter, status: $status) {
    totalCount pageInfo { hasNextPage endCursor } edges { node { id title } }
  }
}
"""


async def _propose(client: GraphQLClient, title: str) -> str:
    answer = await client.execute(mops.PROPOSE_MISSION, {"input": {"title": title, "goal": "g"}})
    assert answer["proposeMission"]["userErrors"] == []
    mission_id: str = answer["proposeMission"]["mission"]["id"]
    return mission_id


async def _reviews(client: GraphQLClient, **variables: Any) -> dict[str, Any]:
    page: dict[str, Any] = (await client.execute(REVIEWS, variables))["missionReviews"]
    return page


def _subjects(page: dict[str, Any]) -> list[tuple[str, str]]:
    """(kind, id of the hop, asset or mission) of each edge."""
    nodes = [e["node"] for e in page["edges"]]
    return [(n["kind"], (n["hop"] or n["asset"] or n["mission"])["id"]) for n in nodes]


async def _everything(client: GraphQLClient, first: int, **variables: Any) -> list[tuple[str, str]]:
    """Every page of the inbox, following cursors."""
    seen: list[tuple[str, str]] = []
    after = None
    while True:
        page = await _reviews(client, first=first, after=after, **variables)
        seen += _subjects(page)
        if not page["pageInfo"]["hasNextPage"]:
            return seen
        after = page["pageInfo"]["endCursor"]


async def test_the_mission_review_inbox_is_one_list_by_waiting_time_filtered_paged_and_counted(
    client: GraphQLClient, live_server: LiveServer
) -> None:
    clock = live_server.clock
    proposed = await _propose(client, "Reef survey")  # waits from t0
    clock.advance(timedelta(minutes=1))
    reef = await _propose(client, "Reef census")
    await client.execute(mops.mission_act("approveMission"), {"id": reef})
    clock.advance(timedelta(minutes=1))
    hop = (await client.execute(mops.PROPOSE_HOP, {"input": {"missionId": reef, "name": "h", "plan": "p"}}))[
        "proposeHop"
    ]["hop"]  # t0 + 2m
    clock.advance(timedelta(minutes=1))
    asset = (await client.execute(mops.PROPOSE_ASSET, {"input": {"missionId": reef, "name": "counts"}}))[
        "proposeAsset"
    ]["asset"]  # t0 + 3m
    assert asset["status"] == "PROPOSED"
    clock.advance(timedelta(minutes=1))
    birds = await _propose(client, "Bird count")  # t0 + 4m
    # Equal times across kinds keep one order: a mission and an asset proposed in the same instant.
    same_instant = await _propose(client, "Reef same instant")
    same_asset = (await client.execute(mops.PROPOSE_ASSET, {"input": {"missionId": reef, "name": "twin"}}))[
        "proposeAsset"
    ]["asset"]

    expected = [
        ("MISSION", proposed),
        ("HOP_PLAN", hop["id"]),
        ("ASSET", asset["id"]),
        *sorted([("MISSION", birds), ("MISSION", same_instant)], key=lambda s: s[1]),
        ("ASSET", same_asset["id"]),
    ]
    first = await _reviews(client, first=2)
    assert first["totalCount"] == 6
    assert _subjects(first) == expected[:2]
    assert first["edges"][0]["node"]["mission"]["title"] == "Reef survey"
    # Page sizes 1 to 4 give the same list, nothing lost or repeated at page edges.
    for size in (1, 2, 4):
        assert await _everything(client, size) == expected, size
        assert await _everything(client, size, newest=True) == expected[::-1], size

    # Filters: kinds (the "status" of a proposal), text on the mission's title, waiting-since range.
    assets = await _reviews(client, first=10, filter={"kinds": ["ASSET"]})
    assert (assets["totalCount"], _subjects(assets)) == (
        2,
        [("ASSET", asset["id"]), ("ASSET", same_asset["id"])],
    )
    reefs = await _everything(client, 1, filter={"search": "REEF"})
    assert [s for s in expected if s[1] != birds] == reefs
    window = {"since": (clock.now() - timedelta(seconds=90)).isoformat(), "until": clock.now().isoformat()}
    ranged = await _reviews(client, first=10, filter=window)
    assert (ranged["totalCount"], _subjects(ranged)) == (1, [("ASSET", asset["id"])])
    both = await _reviews(client, first=10, filter={"kinds": ["MISSION", "HOP_PLAN"], "search": "census"})
    assert (both["totalCount"], _subjects(both)) == (1, [("HOP_PLAN", hop["id"])])

    # A decided proposal leaves the list.
    await client.execute(mops.hop_act("approveHopPlan"), {"id": hop["id"]})
    assert (await _reviews(client, first=10))["totalCount"] == 5


@pytest.mark.parametrize(
    "variables",
    [
        {"filter": {"search": "ab"}},
        {"filter": {"since": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"}},
        {"after": "bm90IGEgY3Vyc29y"},
        {"after": "MjAyNi0wMS0wMVQwMDowMDowMCswMDowMHw5fGE="},  # a rank that is no kind
        {"first": 1, "filter": {"search": "x" * 201}},
    ],
)
async def test_out_of_bounds_mission_inbox_input_is_validation_failed(
    client: GraphQLClient, variables: dict[str, Any]
) -> None:
    body = (await client.post(REVIEWS, {"first": 5, **variables})).json()
    assert body["data"] is None
    assert [e["extensions"]["code"] for e in body["errors"]] == ["VALIDATION_FAILED"]


NAIVE_CURSORS = [
    # Cursors whose time has no zone (hand-made): read as UTC, not an unexpected error.
    ("missionReviews", "MjAyNi0wMS0wMVQwMDowMDowMHwwfGE="),  # 2026-01-01T00:00:00|0|a
    ("reviewInbox", "MjAyNi0wMS0wMVQwMDowMDowMHxh"),  # 2026-01-01T00:00:00|a
    ("missions", "MjAyNi0wMS0wMVQwMDowMDowMHxh"),  # created_at|id
]


@pytest.mark.parametrize(("field", "cursor"), NAIVE_CURSORS)
async def test_a_cursor_without_a_time_zone_is_read_as_utc(
    client: GraphQLClient, field: str, cursor: str
) -> None:
    await _propose(client, "Reef survey")
    answer = await client.execute(f'{{ {field}(first: 5, after: "{cursor}") {{ totalCount }} }}')
    assert answer[field]["totalCount"] >= 0


async def test_missions_sort_by_duration_running_first_then_ended_longest_first(
    client: GraphQLClient, live_server: LiveServer
) -> None:
    clock = live_server.clock
    a = await _propose(client, "alpha")  # t0, cancelled at t0+12m: ran 12 minutes
    clock.advance(timedelta(minutes=1))
    b = await _propose(client, "bravo")  # t0+1m, still running
    clock.advance(timedelta(minutes=1))
    c = await _propose(client, "charlie")  # t0+2m, cancelled at t0+13m: ran 11 minutes
    clock.advance(timedelta(minutes=10))
    cancel = mops.mission_act("cancelMission", reason=True)
    assert (await client.execute(cancel, {"id": a, "reason": "done"}))["cancelMission"]["userErrors"] == []
    clock.advance(timedelta(minutes=1))
    assert (await client.execute(cancel, {"id": c, "reason": "done"}))["cancelMission"]["userErrors"] == []
    d = await _propose(client, "delta")  # t0+13m, still running

    async def ids(direction: str, first: int, **extra: Any) -> list[str]:
        seen: list[str] = []
        after = None
        while True:
            variables = {
                "first": first,
                "after": after,
                "orderBy": {"field": "DURATION", "direction": direction},
            }
            page = (await client.execute(MISSIONS, {**variables, **extra}))["missions"]
            seen += [e["node"]["id"] for e in page["edges"]]
            if not page["pageInfo"]["hasNextPage"]:
                return seen
            after = page["pageInfo"]["endCursor"]

    for first in (1, 3, 10):
        assert await ids("DESC", first) == [b, d, a, c], first
        assert await ids("ASC", first) == [c, a, d, b], first
    assert await ids("DESC", 1, status=["CANCELLED"]) == [a, c]
    assert await ids("DESC", 1, filter={"search": "CHARL"}) == [c]

    # A range goes with a time order only; a cursor of another order is refused.
    refused = await client.post(
        MISSIONS,
        {"first": 5, "orderBy": {"field": "DURATION"}, "filter": {"since": "2026-01-01T00:00:00Z"}},
    )
    assert [e["extensions"]["code"] for e in refused.json()["errors"]] == ["VALIDATION_FAILED"]
    page = (await client.execute(MISSIONS, {"first": 1, "orderBy": {"field": "DURATION"}}))["missions"]
    other = await client.post(MISSIONS, {"first": 1, "after": page["pageInfo"]["endCursor"]})
    assert [e["extensions"]["code"] for e in other.json()["errors"]] == ["VALIDATION_FAILED"]
