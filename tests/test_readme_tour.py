"""The tours run: every GraphQL block of the README's short tour and of the tutorial's pages, in order,
against a real server, each answered without an error or a userError. A block may use the ids earlier
blocks created (``PLAN_ID``, ``STEP_ID``, ...); BINDINGS says which answer defines each, so a tour that
reuses an id for the wrong object fails here as it would for a reader. ``<!-- tour: advance 2s -->``
moves the server's clock and runs its timers once (a back-off, a stall)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from graphql import OperationType, get_operation_ast, parse

from server.loops.asset_expiry import expire_assets
from server.loops.stalls import scan_stalls
from server.loops.workflow_timers import run_workflow_timers
from server.services.runtime import Runtime
from tests.conftest import GraphQLClient, LiveServer
from tests.realtime.wsclient import collect, ws_session

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial"
# (page, the section of it that is a tour, or None for the whole page), in the order a reader walks them.
TOURS: list[tuple[Path, str | None]] = [
    (ROOT / "README.md", "## A short tour"),
    (TUTORIAL / "plans.md", None),
    (TUTORIAL / "workflows.md", None),
    (ROOT / "docs" / "guides" / "workers.md", None),
    (TUTORIAL / "live-updates.md", None),
    (TUTORIAL / "dashboard.md", None),
    (TUTORIAL / "missions.md", None),
]
PLACEHOLDER = re.compile(r'"([A-Z][A-Z_]*_ID)"')
ADVANCE = re.compile(r"<!-- tour: advance (\d+)s -->")

# root field -> (placeholder, path in its answer); a list index picks an element.
BINDINGS: dict[str, list[tuple[str, tuple[str | int, ...]]]] = {
    "createResearchPlan": [("PLAN_ID", ("plan", "id"))],
    "startNextStep": [("STEP_ID", ("step", "id"))],
    "createWorkflowFromYaml": [("WORKFLOW_ID", ("workflow", "id"))],
    "claimWorkflowStep": [("STEP_ID", ("step", "id")), ("COMPENSATION_ID", ("compensation", "id"))],
    "workflowStepsAwaitingReview": [("STEP_ID", ("edges", 0, "node", "id"))],
    "proposeMission": [("MISSION_ID", ("mission", "id"))],
    "proposeHop": [("HOP_ID", ("hop", "id"))],
    "startHop": [("TOOL_STEP_ID", ("toolSteps", 0, "id"))],
    "proposeAsset": [("ASSET_ID", ("asset", "id"))],
}


def tour_steps(page: Path, section: str | None) -> list[tuple[str, str]]:
    """("graphql", document) and ("advance", seconds) in the order the page (or its section) has them."""
    body = text = page.read_text()
    if section is not None:
        start = text.index(section)
        end = text.find("\n## ", start + 1)
        body = text[start : end if end > 0 else len(text)]
    steps: list[tuple[str, str]] = []
    for match in re.finditer(r"```graphql\n(.*?)```|" + ADVANCE.pattern, body, re.S):
        steps.append(
            ("graphql", match.group(1)) if match.group(1) is not None else ("advance", match.group(2))
        )
    return steps


def _dig(value: Any, path: tuple[str | int, ...]) -> Any:
    for key in path:
        if isinstance(key, int):
            value = value[key] if isinstance(value, list) and len(value) > key else None
        else:
            value = value.get(key) if isinstance(value, dict) else None
    return value


def _user_errors(value: Any, where: str = "") -> list[str]:
    if isinstance(value, dict):
        found = [f"{where}: {value['userErrors']}"] if value.get("userErrors") else []
        return found + [e for k, v in value.items() for e in _user_errors(v, f"{where}.{k}")]
    if isinstance(value, list):
        return [e for v in value for e in _user_errors(v, where)]
    return []


@pytest.fixture
async def tour_client(live_server: LiveServer) -> AsyncIterator[GraphQLClient]:
    client = GraphQLClient(live_server.url)
    yield client
    await client.aclose()


async def test_the_tours_run_block_by_block_in_order(
    live_server: LiveServer, tour_client: GraphQLClient
) -> None:
    bound = await run_tours(live_server, tour_client)
    assert {"PLAN_ID", "STEP_ID", "WORKFLOW_ID", "COMPENSATION_ID", "MISSION_ID", "HOP_ID"} <= set(bound)


async def run_tours(live_server: LiveServer, client: GraphQLClient) -> dict[str, str]:
    """Every tour block in order; the ids the blocks defined. Fails on any error or userError."""
    bound: dict[str, str] = {}  # a reader carries ids from one tour to the next (Live updates uses PLAN_ID)
    for page, section in TOURS:
        steps = tour_steps(page, section)
        assert any(kind == "graphql" for kind, _ in steps), (
            f"no GraphQL blocks in {page.name} {section or ''}"
        )
        for number, (kind, text) in enumerate(steps, 1):
            if kind == "advance":  # time passes, and the server's timers see it
                live_server.clock.advance(timedelta(seconds=int(text)))
                live_server.call(_timers_run(live_server.app.state.runtime))
                continue
            where = f"{page.relative_to(ROOT)} {section or ''}, block {number}"
            missing = sorted({name for name in PLACEHOLDER.findall(text) if name not in bound})
            assert not missing, f"{where} uses {missing} before an earlier block defines it:\n{text}"
            document = PLACEHOLDER.sub(lambda m: json.dumps(bound[m.group(1)]), text)
            data = await _run(live_server, client, document, where)
            problems = _user_errors(data)
            assert not problems, f"{where} was refused: {problems}\n{text}"
            for field, answer in data.items():
                for name, path in BINDINGS.get(field, []):
                    if (value := _dig(answer, path)) is not None:
                        bound[name] = value
    return bound


async def _timers_run(runtime: Runtime) -> None:
    await scan_stalls(runtime)
    await run_workflow_timers(runtime)
    await expire_assets(runtime)


async def _run(live_server: LiveServer, client: GraphQLClient, document: str, where: str) -> dict[str, Any]:
    """The block's data: a query or mutation over HTTP, a subscription's first result over WebSocket."""
    operation = get_operation_ast(parse(document))
    assert operation is not None
    if operation.operation is OperationType.SUBSCRIPTION:
        async with ws_session(live_server.ws_url) as session:
            (result,) = await collect(session, document, {}, 1)
        return result
    response = await client.post(document)
    body = response.json()
    assert response.status_code == 200, f"{where}: {body}\n{document}"
    assert "errors" not in body, f"{where}: {body}\n{document}"
    data: dict[str, Any] = body["data"]
    return data


def test_every_graphql_block_of_the_documentation_is_in_a_tour() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    total = sum(page.read_text().count("```graphql\n") for page in pages)
    toured = sum(kind == "graphql" for page, section in TOURS for kind, _ in tour_steps(page, section))
    assert toured == total, (
        "a GraphQL block outside the tours would never run: add its page or section to TOURS"
    )
