"""A scripted research agent (no LLM) driving a seed 003 research plan through MCP.

    python examples/research_agent.py --url http://127.0.0.1:8000     # a running `flightdeck serve`
    python examples/research_agent.py --stdio                         # launches `flightdeck mcp`

It does what a model would: starts a skill, creates a plan, loops get_next_step -> "do the step" ->
submit_step_result until get_next_step answers plan_complete, then writes the deliverable following the
formatting notes it was given and stores it. The last line it prints is the plan's id and status.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _connect import arguments, call, connect

STEPS = [
    ("search", "Find recent surveys of the question", "List each source with its year."),
    ("extract", "Pull the figures each survey reports", None),
    ("synthesize", "Say what the figures agree on", "Lead with the answer in one sentence."),
]


async def run(options: object) -> str:
    session = f"example-{uuid.uuid4().hex[:8]}"
    async with connect(options) as mcp:  # type: ignore[arg-type]
        skill = await call(
            mcp,
            "start_skill_execution",
            {
                "sessionId": session,
                "skillName": "deep-research",
                "outputMediaType": "text/markdown",
                "outputFormattingInstructions": "A short report with a sources section.",
            },
        )
        plan = await call(
            mcp,
            "create_research_plan",
            {
                "researchQuestion": "How many teams use AI agents in production?",
                "title": "Agent adoption",
                "sessionId": session,
                "outputFormattingNotes": "Markdown; one table of figures.",
                "steps": [
                    {"stepType": kind, "instructions": what, "outputFormattingNotes": notes}
                    for kind, what, notes in STEPS
                ],
            },
        )
        plan_id = plan["planId"]
        print(f"created plan {plan_id} with {len(plan['stepIds'])} steps")
        findings = []
        while True:
            nxt = await call(mcp, "get_next_step", {"planId": plan_id, "sessionId": session})
            if nxt["status"] != "started":
                break
            step = nxt["step"]
            finding = f"step {step['order']} ({step['stepType']}): done as asked: {step['instructions']}"
            findings.append(finding)
            await call(
                mcp,
                "submit_step_result",
                {
                    "stepId": step["stepId"],
                    "resultSummary": finding,
                    "resultData": {"order": step["order"]},
                    "confidence": 0.8,
                },
            )
            print(f"completed step {step['order']}")
        if nxt["status"] != "plan_complete":
            raise SystemExit(f"the plan stopped: {nxt['status']}")
        notes = [n["notes"] for n in nxt["stepFormattingNotes"] if n["notes"]]
        report = "\n".join(
            [
                f"# Agent adoption ({nxt['outputMediaType']})",
                "",
                *findings,
                "",
                "Formatting followed:",
                *notes,
            ]
        )
        stored = await call(
            mcp,
            "store_research_output",
            {"planId": plan_id, "content": report, "mediaType": nxt["outputMediaType"] or "text/markdown"},
        )
        await call(
            mcp,
            "complete_skill_execution",
            {"skillExecutionId": skill["skillExecutionId"], "resultSummary": f"output {stored['outputId']}"},
        )
        status = await call(mcp, "get_plan_status", {"planId": plan_id})
        return f"plan {plan_id} {status['status']} {status['progressPercent']:g}%"


if __name__ == "__main__":
    print(asyncio.run(run(arguments(__doc__ or "").parse_args())))
