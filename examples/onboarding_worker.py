"""Workers running seed 002 §4.3's onboarding workflow through MCP, compensation included.

    python examples/onboarding_worker.py --url http://127.0.0.1:8000
    python examples/onboarding_worker.py --url http://127.0.0.1:8000 --fail setup-analytics
    python examples/onboarding_worker.py --stdio

It defines the workflow from the seed's YAML, starts it, and then plays every agent: each asks
claim_workflow_step for work and reports it. send-welcome fails (the email service is down) and is
skipped, as its onFailure says. With --fail STEP that step fails too: the workflow compensates, and
the agents the compensation list names undo the completed steps, newest first. The last line it
prints is the workflow's status and outcome.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _connect import arguments, call, connect

ONBOARDING = """\
metadata:
  name: onboarding
spec:
  steps:
    - name: create-account      # Mutates: creates user record
      onFailure: compensate
    - name: provision-workspace  # Mutates: allocates resources
      onFailure: compensate
    - name: setup-analytics      # Mutates: creates tracking config
      onFailure: compensate
    - name: send-welcome         # Side effect: sends email
      onFailure: skip            # Can't unsend email, so skip

  compensation:
    - step: setup-analytics
      action: "Remove analytics configuration"
      agent: data-pipeline
    - step: provision-workspace
      action: "Delete workspace and release resources"
      agent: product-analyst
    - step: create-account
      action: "Deactivate account (soft delete)"
      agent: growth-optimizer
"""
AGENTS = ["worker-1", "data-pipeline", "product-analyst", "growth-optimizer"]
FINISHED = {"completed", "failed"}


async def work(mcp: Any, agent: str, workflow_id: str, fail: set[str]) -> bool:
    """One claim by ``agent`` and its report; False when there was nothing for it."""
    got = await call(mcp, "claim_workflow_step", {"agent": agent, "workflowId": workflow_id})
    if got["outcome"] == "step":
        step = got["step"]
        args = {"stepId": step["stepId"], "agent": agent, "attempt": step["attempt"]}
        if step["name"] in fail:
            why = "the email service is down" if step["name"] == "send-welcome" else "it broke"
            await call(mcp, "fail_workflow_step", {**args, "category": "external", "message": why})
            print(f"{agent}: {step['name']} failed ({why})")
        else:
            await call(mcp, "complete_workflow_step", {**args, "output": {"done": step["name"]}})
            print(f"{agent}: {step['name']} completed")
        return True
    if got["outcome"] == "compensation":
        comp = got["compensation"]
        args = {"compensationId": comp["compensationId"], "agent": agent}
        await call(mcp, "complete_workflow_compensation", args)
        print(f"{agent}: undid {comp['stepName']} ({comp['action']})")
        return True
    return False


async def run(options: Any) -> str:
    fail = {"send-welcome", *options.fail}
    async with connect(options) as mcp:
        created = await call(mcp, "create_workflow_from_yaml", {"yaml": ONBOARDING})
        workflow_id = created["workflow"]["workflowId"]
        await call(mcp, "start_workflow", {"workflowId": workflow_id})
        print(f"started workflow {workflow_id}")
        while True:
            busy = [await work(mcp, agent, workflow_id, fail) for agent in AGENTS]
            workflow = (await call(mcp, "get_workflow", {"workflowId": workflow_id}))["workflow"]
            if workflow["status"] in FINISHED or not any(busy):
                return f"workflow {workflow_id} {workflow['status']} {workflow['outcome']}"


if __name__ == "__main__":
    parser = arguments(__doc__ or "")
    parser.add_argument("--fail", action="append", default=[], help="Make this step fail (repeatable).")
    print(asyncio.run(run(parser.parse_args())))
