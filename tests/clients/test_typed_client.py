"""The typed client covers what agents, workers and reviewers do: every operation is valid on a real
server (schema and limits), and the reviewer's, the mission's and the event log's paths run through it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
from flightdeck_client import PlanAgent, connect
from flightdeck_client.generated.enums import (
    DecisionKind,
    DecisionOutcome,
    DecisionStatus,
    HopStatus,
    MissionStatus,
    UserDecision,
    UserErrorCode,
    WorkflowStatus,
)
from flightdeck_client.generated.input_types import (
    DecisionTermsInput,
    EventFilter,
    ProposeHopInput,
    ProposeMissionInput,
)
from graphql import OperationDefinitionNode, OperationType, parse, print_ast, validate
from graphql.language import DocumentNode, FragmentDefinitionNode, FragmentSpreadNode, Visitor, visit

from server.api.schema import build_schema
from server.config import Settings
from tests.conftest import LiveServer
from tests.services.workflow_helpers import seed_4_3_yaml

OPERATIONS = Path(__file__).resolve().parents[2] / "clients" / "python" / "flightdeck_client" / "operations"


def _operations() -> dict[str, tuple[OperationType, str]]:
    """Each operation of the client's .graphql files as the document it sends (with its fragments)."""
    document = parse("\n".join(p.read_text() for p in sorted(OPERATIONS.glob("*.graphql"))))
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}

    def closure(node: object, seen: set[str]) -> set[str]:
        class Spreads(Visitor):
            def enter_fragment_spread(self, spread: FragmentSpreadNode, *_: object) -> None:
                name = spread.name.value
                if name not in seen:
                    seen.add(name)
                    closure(fragments[name], seen)

        visit(node, Spreads())  # type: ignore[arg-type]
        return seen

    found = {}
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode) and definition.name is not None:
            used = [fragments[name] for name in sorted(closure(definition, set()))]
            text = print_ast(DocumentNode(definitions=(definition, *used)))
            found[definition.name.value] = (definition.operation, text)
    return found


async def test_every_operation_is_valid_against_the_schema_and_the_server_limits(
    live_server: LiveServer,
) -> None:
    operations = _operations()
    assert len(operations) >= 80
    schema = build_schema(Settings())._schema
    async with httpx.AsyncClient(base_url=live_server.url, timeout=30) as http:
        for name, (kind, text) in operations.items():
            assert validate(schema, parse(text)) == [], name
            if kind is OperationType.SUBSCRIPTION:
                continue  # served over WebSocket: the same validation, checked above and below
            # No variables: a valid document gets as far as its variables (or runs, with none needed);
            # a document over the depth, token or alias limits is refused before.
            body = (await http.post("/graphql", json={"query": text})).json()
            problems = [e["message"] for e in body.get("errors", []) if "Variable" not in e["message"]]
            assert problems == [], f"{name}: {problems}"


async def test_a_reviewer_finds_decides_and_reads_a_review_through_the_typed_client(
    live_server: LiveServer,
) -> None:
    async with PlanAgent(live_server.url, session_id="s1") as agent:
        plan_id = await agent.create("q", [("search", "look")])
        step = (await agent.next_step(plan_id)).step
        assert step is not None
        await agent.ask_for_review(
            step.id, "please check", decision=DecisionTermsInput(assignee="role:reviewer")
        )
    async with connect(live_server.url) as reviewer:
        inbox = (await reviewer.decision_inbox(kind=DecisionKind.PLAN_REVIEW)).decision_inbox
        assert [edge.node.subject_id for edge in inbox.edges] == [step.id]
        decision_id = inbox.edges[0].node.id
        assert inbox.edges[0].node.assignee == "role:reviewer"
        terms = await reviewer.set_decision_terms(
            decision_id, DecisionTermsInput(deadlineSeconds=3600, defaultOutcome=DecisionOutcome.REJECT)
        )
        assert terms.set_decision_terms.user_errors == []
        assert terms.set_decision_terms.decision is not None
        assert terms.set_decision_terms.decision.deadline_at is not None
        review = (await reviewer.review_inbox()).review_inbox
        assert [edge.node.step.id for edge in review.edges] == [step.id]
        decided = await reviewer.submit_user_decision(step.id, UserDecision.MODIFY, feedback="cite two")
        assert decided.submit_user_decision.user_errors == []
        closed = (await reviewer.decision(decision_id)).decision
        assert closed is not None
        assert (closed.status, closed.outcome) == (DecisionStatus.DECIDED, "modify")
        about = (await reviewer.decisions_about(step.id)).decisions_about
        assert [d.id for d in about] == [decision_id]


async def test_a_mission_is_proposed_approved_and_read_through_the_typed_client(
    live_server: LiveServer,
) -> None:
    async with connect(live_server.url) as client:
        proposed = (await client.propose_mission(ProposeMissionInput(title="m", goal="g"))).propose_mission
        assert proposed.user_errors == []
        assert proposed.mission is not None
        mission_id = proposed.mission.id
        reviews = (await client.mission_reviews()).mission_reviews
        assert [edge.node.mission.id for edge in reviews.edges if edge.node.mission] == [mission_id]
        approved = (await client.approve_mission(mission_id)).approve_mission
        assert approved.mission is not None
        assert approved.mission.status is MissionStatus.APPROVED
        hop = (
            await client.propose_hop(ProposeHopInput(missionId=mission_id, name="h", plan="p"))
        ).propose_hop
        assert hop.user_errors == []
        assert hop.hop is not None
        planned = (await client.approve_hop_plan(hop.hop.id)).approve_hop_plan
        assert planned.hop is not None
        assert planned.hop.status is HopStatus.READY_FOR_IMPLEMENTATION
        mission = (await client.mission(mission_id)).mission
        assert mission is not None
        assert [edge.node.id for edge in mission.hops.edges] == [hop.hop.id]
        assert mission.current_hop is not None
        listed = (await client.missions()).missions
        assert [edge.node.id for edge in listed.edges] == [mission_id]


async def test_a_workflow_is_cancelled_and_rerun_through_the_typed_client(live_server: LiveServer) -> None:
    async with connect(live_server.url) as client:
        created = (await client.create_workflow_from_yaml(seed_4_3_yaml())).create_workflow_from_yaml
        assert created.workflow is not None
        old = created.workflow.id
        started = (await client.start_workflow(old)).start_workflow
        assert started.workflow is not None
        assert started.workflow.status is WorkflowStatus.EXECUTING
        running = (await client.rerun_workflow(old)).rerun_workflow
        assert running.workflow is None
        assert [e.code for e in running.user_errors] == [UserErrorCode.INVALID_TRANSITION]
        cancelled = (await client.cancel_workflow(old, "wrong input")).cancel_workflow
        assert cancelled.user_errors == []
        assert cancelled.workflow is not None
        assert cancelled.workflow.status is WorkflowStatus.FAILED
        assert "wrong input" in (cancelled.workflow.failure_reason or "")
        rerun = (await client.rerun_workflow(old)).rerun_workflow
        assert rerun.user_errors == []
        assert rerun.workflow is not None
        assert (rerun.workflow.rerun_of_id, rerun.workflow.status) == (old, WorkflowStatus.EXECUTING)
        assert rerun.workflow.id != old


async def test_the_event_log_is_read_and_followed_through_the_typed_client(live_server: LiveServer) -> None:
    async with PlanAgent(live_server.url, session_id="s1") as agent:
        plan_id = await agent.create("q", [("search", "look")])
        client = agent.client
        history = (await client.events(root_id=plan_id)).events
        assert history.edges
        assert {edge.node.root_id for edge in history.edges} == {plan_id}
        after = (await client.latest_seq()).latest_seq

        async def first_followed() -> tuple[int, str, str]:
            async for update in client.follow_events(after=after, filter_=EventFilter(rootId=plan_id)):
                return update.events.seq, update.events.kind, update.events.root_id
            raise AssertionError("the subscription ended")

        following = asyncio.create_task(first_followed())
        started = await agent.next_step(plan_id)
        assert started.step is not None
        seq, kind, root = await asyncio.wait_for(following, 30)
        assert (seq, root) == (after + 1, plan_id)
        logged = (await client.events(root_id=plan_id, after=after, first=1)).events.edges[0].node
        assert (logged.seq, logged.kind) == (seq, kind)
