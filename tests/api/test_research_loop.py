"""The whole research-plan loop of seed 003 through GraphQL over HTTP against a real server."""

from __future__ import annotations

from tests.api import operations as ops
from tests.conftest import GraphQLClient


async def test_agent_runs_a_plan_from_creation_to_stored_output(client: GraphQLClient) -> None:
    skill = (
        await client.execute(
            ops.START_SKILL,
            {
                "sessionId": "sess-1",
                "skillName": "deep-research",
                "mediaType": "text/markdown",
                "instructions": "Write a short report.",
            },
        )
    )["startSkillExecution"]["skillExecution"]

    created = (
        await client.execute(
            ops.CREATE_PLAN,
            {
                "input": ops.plan_input(
                    2,
                    sessionId="sess-1",
                    outputFormattingNotes="Use headings.",
                )
            },
        )
    )["createResearchPlan"]
    assert created["userErrors"] == []
    plan_id = created["plan"]["id"]
    assert created["plan"]["status"] == "PLANNING"
    assert created["firstStep"]["order"] == 1
    assert len(created["stepIds"]) == 2

    for i in range(2):
        nxt = (await client.execute(ops.START_NEXT_STEP, {"planId": plan_id, "sessionId": "sess-1"}))[
            "startNextStep"
        ]
        assert nxt["outcome"] == "STARTED"
        assert nxt["step"]["id"] == created["stepIds"][i]
        assert nxt["plan"]["status"] == "EXECUTING"
        done = (
            await client.execute(
                ops.SUBMIT_RESULT,
                {
                    "input": {
                        "stepId": nxt["step"]["id"],
                        "resultSummary": f"found {i}",
                        "confidence": 0.8,
                        "outputFormattingNotes": f"notes {i}",
                    }
                },
            )
        )["submitStepResult"]
        assert done["userErrors"] == []
        assert done["step"]["status"] == "COMPLETED"

    assert done["plan"]["status"] == "COMPLETED"
    final = (await client.execute(ops.START_NEXT_STEP, {"planId": plan_id}))["startNextStep"]
    assert final["outcome"] == "PLAN_COMPLETE"
    assert final["outputMediaType"] == "text/markdown"
    assert final["outputFormattingInstructions"] == "Write a short report."
    assert final["planFormattingNotes"] == "Use headings."
    assert [n["notes"] for n in final["stepFormattingNotes"]] == ["notes 0", "notes 1"]

    stored = (
        await client.execute(
            ops.STORE_OUTPUT,
            {
                "planId": plan_id,
                "content": "# Report",
                "mediaType": "text/markdown",
                "title": "Report",
            },
        )
    )["storeResearchOutput"]
    assert stored["userErrors"] == []
    completed = await client.execute(ops.COMPLETE_SKILL, {"id": skill["id"], "summary": "done"})
    assert completed["completeSkillExecution"]["skillExecution"]["planId"] == plan_id

    events = (await client.execute(ops.EVENTS, {"rootId": plan_id, "after": 0, "first": 100}))["events"]
    kinds = [e["node"]["kind"] for e in events["edges"]]
    assert kinds[0] == "plan_modified"
    assert kinds.count("step_started") == 2
    assert kinds.count("step_completed") == 2
    assert "skill_completed" in kinds
    seqs = [e["node"]["seq"] for e in events["edges"]]
    assert seqs == sorted(seqs)


async def test_a_plan_failed_by_branching_reads_as_finished_everywhere(client: GraphQLClient) -> None:
    fail_on_low_confidence = {
        "afterStepOrder": 1,
        "field": "confidence",
        "op": "LT",
        "value": 0.5,
        "action": "FAIL",
    }
    created = (
        await client.execute(
            ops.CREATE_PLAN, {"input": ops.plan_input(3, branchingConditions=[fail_on_low_confidence])}
        )
    )["createResearchPlan"]
    plan_id = created["plan"]["id"]
    nxt = (await client.execute(ops.START_NEXT_STEP, {"planId": plan_id}))["startNextStep"]
    submitted = (
        await client.execute(
            ops.SUBMIT_RESULT,
            {"input": {"stepId": nxt["step"]["id"], "resultSummary": "thin", "confidence": 0.2}},
        )
    )["submitStepResult"]
    assert submitted["userErrors"] == []
    plan = submitted["plan"]
    assert plan["status"] == "FAILED"
    assert [s["status"] for s in plan["steps"]] == ["COMPLETED", "FAILED", "FAILED"]
    assert plan["progressPercent"] == 100.0

    status = (await client.execute(ops.PLAN_STATUS, {"planId": plan_id}))["planStatus"]
    assert (status["status"], status["derivedStatus"]) == ("FAILED", "COMPLETED")
    assert status["progressPercent"] == 100.0
    assert status["counts"] == {
        "pending": 0,
        "inProgress": 0,
        "awaitingInput": 0,
        "completed": 1,
        "skipped": 0,
        "failed": 2,
    }

    events = (await client.execute(ops.EVENTS, {"rootId": plan_id, "after": 0, "first": 100}))["events"]
    kinds = [e["node"]["kind"] for e in events["edges"]]
    failed_steps = [e["node"] for e in events["edges"] if e["node"]["kind"] == "step_failed"]
    assert [e["entityId"] for e in failed_steps] == created["stepIds"][1:]
    assert {e["data"]["via"] for e in failed_steps} == {"branching"}
    assert kinds[-1] == "plan_failed"
