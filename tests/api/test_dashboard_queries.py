"""The queries the dashboard reads: stateMachines, reviewInbox and latestSeq, over HTTP on a real server."""

from __future__ import annotations

from datetime import timedelta

from server.machines.registry import MACHINES
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer

STATE_MACHINES = """
{ stateMachines { domain entity description initial states { name initial final } transitions { from to } } }
"""

INBOX = """
query Inbox($first: Int!, $after: String) {
  reviewInbox(first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { node { waitingSince plan { id status } step { id status reviewSummary reviewQuestions } } }
  }
}
"""


async def test_state_machines_returns_every_registered_machine_with_its_whole_table(
    client: GraphQLClient,
) -> None:
    machines = (await client.execute(STATE_MACHINES))["stateMachines"]

    assert [(m["domain"], m["entity"]) for m in machines] == [(d, m.entity) for d, m in MACHINES]
    for answer, (_, machine) in zip(machines, MACHINES, strict=True):
        assert answer["initial"] == machine.initial.value
        assert answer["description"] == machine.description
        assert answer["states"] == [
            {"name": s.value, "initial": s == machine.initial, "final": s in machine.final}
            for s in machine.states
        ]
        assert {(t["from"], t["to"]) for t in answer["transitions"]} == {
            (a.value, b.value) for a, b in machine.edges()
        }
        assert len(answer["transitions"]) == len(machine.edges())


async def _awaiting_review(client: GraphQLClient, summary: str) -> tuple[str, str]:
    created = await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(2)})
    plan_id = created["createResearchPlan"]["plan"]["id"]
    started = await client.execute(ops.START_NEXT_STEP, {"planId": plan_id, "sessionId": None})
    step_id = started["startNextStep"]["step"]["id"]
    review = {"stepId": step_id, "summary": summary, "questions": ["LFP or NMC?"]}
    answer = await client.execute(ops.REQUEST_REVIEW, review)
    assert answer["requestUserReview"]["userErrors"] == []
    return plan_id, step_id


async def test_review_inbox_lists_waiting_steps_with_their_plans_until_decided(
    client: GraphQLClient, live_server: LiveServer
) -> None:
    first = await _awaiting_review(client, "Which chemistry?")
    live_server.clock.advance(timedelta(seconds=1))
    second = await _awaiting_review(client, "Which climate?")

    page = (await client.execute(INBOX, {"first": 1, "after": None}))["reviewInbox"]
    assert page["totalCount"] == 2
    assert page["pageInfo"]["hasNextPage"] is True
    [edge] = page["edges"]
    assert edge["node"]["plan"] == {"id": first[0], "status": "AWAITING_REVIEW"}
    assert edge["node"]["step"] == {
        "id": first[1],
        "status": "AWAITING_INPUT",
        "reviewSummary": "Which chemistry?",
        "reviewQuestions": ["LFP or NMC?"],
    }
    rest = (await client.execute(INBOX, {"first": 5, "after": page["pageInfo"]["endCursor"]}))["reviewInbox"]
    assert [e["node"]["step"]["id"] for e in rest["edges"]] == [second[1]]

    decided = await client.execute(ops.DECIDE, {"stepId": first[1], "decision": "APPROVE", "feedback": None})
    assert decided["submitUserDecision"]["userErrors"] == []
    after = (await client.execute(INBOX, {"first": 5, "after": None}))["reviewInbox"]
    assert after["totalCount"] == 1
    assert [e["node"]["step"]["id"] for e in after["edges"]] == [second[1]]


async def test_review_inbox_refuses_a_cursor_it_did_not_issue(client: GraphQLClient) -> None:
    response = await client.post(INBOX, {"first": 5, "after": "garbage"})
    body = response.json()
    assert body["data"] is None
    assert body["errors"][0]["extensions"]["code"] == "VALIDATION_FAILED"


async def test_latest_seq_is_the_last_event_of_the_log(client: GraphQLClient) -> None:
    assert (await client.execute("{ latestSeq }"))["latestSeq"] == 0
    await _awaiting_review(client, "Anything?")

    history = await client.execute(ops.EVENTS, {"rootId": None, "after": 0, "first": 100})
    last = history["events"]["edges"][-1]["node"]["seq"]
    assert last > 0
    assert (await client.execute("{ latestSeq }"))["latestSeq"] == last
