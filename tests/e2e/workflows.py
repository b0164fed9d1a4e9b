"""Helpers for the workflow views' browser tests: drive workflows through the API as workers would."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Locator, Page

from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient

# Three steps with an approval gate in the middle: once "draft" is done, the workflow waits for a reviewer.
GATED = {
    "name": "publish",
    "steps": [
        {"name": "draft"},
        {"name": "sign-off", "dependsOn": ["draft"], "approval": True},
        {"name": "send", "dependsOn": ["sign-off"]},
    ],
}


async def create_workflow(client: GraphQLClient, definition: dict[str, Any]) -> str:
    created = (await client.execute(ops.CREATE, {"input": definition}))["createWorkflow"]
    assert created["userErrors"] == [], created
    return str(created["workflow"]["id"])


async def create_from_yaml(client: GraphQLClient, yaml: str) -> str:
    created = (await client.execute(ops.CREATE_FROM_YAML, {"yaml": yaml}))["createWorkflowFromYaml"]
    assert created["userErrors"] == [], created
    return str(created["workflow"]["id"])


async def start_workflow(client: GraphQLClient, workflow_id: str) -> str:
    started = (await client.execute(ops.START, {"id": workflow_id}))["startWorkflow"]
    assert started["userErrors"] == [], started
    return str(started["workflow"]["status"])


async def claim(client: GraphQLClient, workflow_id: str, agent: str = "worker-1") -> dict[str, Any]:
    """Claim the next step (or compensation) of one workflow; fails the test if nothing was handed out."""
    answer = (await client.execute(ops.CLAIM, {"agent": agent, "workflowId": workflow_id}))[
        "claimWorkflowStep"
    ]
    assert answer["userErrors"] == [], answer
    assert answer["outcome"] in ("STEP", "COMPENSATION"), answer
    return dict(answer["step"] or answer["compensation"])


async def complete(client: GraphQLClient, step_id: str, agent: str = "worker-1") -> dict[str, Any]:
    done = (await client.execute(ops.COMPLETE, {"stepId": step_id, "agent": agent}))["completeWorkflowStep"]
    assert done["userErrors"] == [], done
    return dict(done)


async def fail(
    client: GraphQLClient, step_id: str, category: str, message: str, agent: str = "worker-1"
) -> None:
    variables = {"stepId": step_id, "agent": agent, "category": category, "message": message}
    failed = (await client.execute(ops.FAIL, variables))["failWorkflowStep"]
    assert failed["userErrors"] == [], failed


async def undo(client: GraphQLClient, workflow_id: str, agent: str) -> str:
    """The agent claims its compensation and reports it done; returns the step it undid."""
    compensation = await claim(client, workflow_id, agent)
    report = (await client.execute(ops.COMPLETE_COMPENSATION, {"id": compensation["id"], "agent": agent}))[
        "completeWorkflowCompensation"
    ]
    assert report["userErrors"] == [], report
    return str(compensation["stepName"])


def node(page: Page, name: str) -> Locator:
    """A step of the DAG on the workflow page (a button)."""
    return page.locator(f".dag [data-step-name='{name}']")
