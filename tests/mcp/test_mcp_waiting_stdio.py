"""wait_for_decision over stdio, where the server can ask the client: a reviewer answers a plan review
in the agent's client (elicitation), declines it, or is never asked (no capability, a key that may not
decide). Decisions "made elsewhere" come from this test's own runtime on the same SQLite file, which
the stdio process hears of through its event feed."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client
from sqlalchemy import select

from server.auth import DEV_PRINCIPAL, Principal, Role
from server.clock import SystemClock
from server.config import Settings
from server.db.engine import Database
from server.db.models import Event
from server.services.plans import queries as plan_queries
from server.services.plans import review as plan_review
from server.services.plans.inputs import Decision
from server.services.runtime import Runtime, unit_of_work
from tests.mcp.helpers import refusal_errors
from tests.mcp.test_mcp_stdio import _cli, _params
from tests.mcp.waiting_helpers import Progress, step_awaiting_review

REVIEWER = Principal(DEV_PRINCIPAL.tenant_id, Role.REVIEWER, "key:elsewhere")


class Person:
    """The client's elicitation handler: what it was asked, and the answer it gives."""

    def __init__(self, action: str, content: dict[str, Any] | None = None) -> None:
        self.action, self.content = action, content
        self.asked: list[types.ElicitRequestFormParams] = []
        self.answered = asyncio.Event()

    async def __call__(self, context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        self.asked.append(params)
        self.answered.set()
        return types.ElicitResult(action=self.action, content=self.content)  # type: ignore[arg-type]


async def _decide_elsewhere(db_file: Path, step_id: str, decision: Decision, who: Principal) -> None:
    url = f"sqlite+aiosqlite:///{db_file}"
    db = Database(url)
    runtime = Runtime(db, SystemClock(), Settings(database_url=url))
    try:
        async with unit_of_work(runtime, who) as tx:
            await plan_review.submit_user_decision(tx, step_id, decision, None)
    finally:
        await db.dispose()


async def _read(db_file: Path, step_id: str) -> tuple[str, list[dict[str, Any]]]:
    """The step's instructions, and the data of every decision_made event."""
    db = Database(f"sqlite+aiosqlite:///{db_file}")
    try:
        async with db.reader() as session:
            step = await plan_queries.get_step(session, DEV_PRINCIPAL.tenant_id, step_id)
            made = (await session.scalars(select(Event).where(Event.kind == "decision_made"))).all()
            return step.instructions, [{"actor": e.actor, **e.data} for e in made]
    finally:
        await db.dispose()


async def test_a_reviewer_answers_in_the_client_through_the_decision_service(
    tmp_path: Path, sqlite_template: Path
) -> None:
    db_file = tmp_path / "asked.db"
    shutil.copyfile(sqlite_template, db_file)  # flightdeck mcp creates no database
    person = Person("accept", {"decision": "modify", "feedback": "use primary sources"})
    async with Client(_params(db_file), cache=None, mode="legacy", elicitation_callback=person) as client:
        _, step_id = await step_awaiting_review(client, ["is it recent?", "is it peer reviewed?"])
        result = await client.call_tool("wait_for_decision", {"id": step_id})
    assert not result.is_error, result.content
    data = result.structured_content
    assert data is not None
    assert data["status"] == "decided"
    assert data["decision"]["outcome"] == "modify"
    assert data["askedInClient"] is True
    [asked] = person.asked
    assert "is this source good?" in asked.message
    assert "- is it peer reviewed?" in asked.message
    schema = asked.requested_schema
    assert schema["properties"]["decision"]["enum"] == ["approve", "reject", "modify", "skip"]
    assert schema["required"] == ["decision"]
    instructions, made = await _read(db_file, step_id)
    assert instructions.endswith("use primary sources")  # modify appended the feedback, as GraphQL's does
    assert [(m["actor"], m["outcome"], m["by"]) for m in made] == [("dev", "modify", "dev")]


async def test_a_bad_answer_in_the_form_is_refused_and_changes_nothing(
    tmp_path: Path, sqlite_template: Path
) -> None:
    db_file = tmp_path / "bad.db"
    shutil.copyfile(sqlite_template, db_file)
    person = Person("accept", {"decision": "modify"})  # modify needs feedback
    async with Client(_params(db_file), cache=None, mode="legacy", elicitation_callback=person) as client:
        _, step_id = await step_awaiting_review(client)
        result = await client.call_tool("wait_for_decision", {"id": step_id})
        assert result.is_error
        assert result.structured_content is None  # a refusal is text every client accepts
        assert refusal_errors(result.content[0].text)[0]["code"] == "VALIDATION_FAILED"  # type: ignore[union-attr]
        person.content = {"decision": "maybe"}
        result = await client.call_tool("wait_for_decision", {"id": step_id})
        assert result.is_error
        assert result.structured_content is None  # a refusal is text every client accepts
        assert refusal_errors(result.content[0].text)[0]["code"] == "VALIDATION_FAILED"  # type: ignore[union-attr]
    _, made = await _read(db_file, step_id)
    assert made == []


async def test_a_declined_form_leaves_the_ordinary_wait_which_a_decision_elsewhere_ends(
    tmp_path: Path, sqlite_template: Path
) -> None:
    db_file = tmp_path / "declined.db"
    shutil.copyfile(sqlite_template, db_file)
    person = Person("decline")
    async with Client(_params(db_file), cache=None, mode="legacy", elicitation_callback=person) as client:
        _, step_id = await step_awaiting_review(client)
        progress = Progress()
        waiting = asyncio.create_task(
            client.call_tool("wait_for_decision", {"id": step_id}, progress_callback=progress)
        )
        await person.answered.wait()
        await progress.first.wait()
        assert not waiting.done()
        await _decide_elsewhere(db_file, step_id, Decision.SKIP, REVIEWER)
        result = await waiting
    assert not result.is_error, result.content
    data = result.structured_content
    assert data is not None
    assert data["decision"]["outcome"] == "skip"
    assert data["askedInClient"] is True
    _, made = await _read(db_file, step_id)
    assert [(m["outcome"], m["by"]) for m in made] == [("skip", "key:elsewhere")]


async def test_a_key_that_may_not_decide_and_a_client_without_elicitation_are_not_asked(
    tmp_path: Path, sqlite_template: Path
) -> None:
    db_file = tmp_path / "unasked.db"
    shutil.copyfile(sqlite_template, db_file)
    shutil.copyfile(sqlite_template, tmp_path / "modern.db")
    made = _cli(db_file, "keys", "create", "--tenant", DEV_PRINCIPAL.tenant_id, "--role", "agent")
    assert made.returncode == 0, made.stderr
    agent_key = made.stdout.strip()
    person = Person("accept", {"decision": "approve"})
    # An agent key's client that could be asked; then the dev admin's over the 2026 protocol, which has
    # no server-to-client requests, with the same handler.
    clients = [
        Client(_params(db_file, "--key", agent_key), cache=None, mode="legacy", elicitation_callback=person),
        Client(_params(tmp_path / "modern.db"), cache=None, elicitation_callback=person),
    ]
    for client_of, decided_in in zip(clients, [db_file, tmp_path / "modern.db"], strict=True):
        async with client_of as client:
            _, step_id = await step_awaiting_review(client)
            progress = Progress()
            waiting = asyncio.create_task(
                client.call_tool("wait_for_decision", {"id": step_id}, progress_callback=progress)
            )
            await progress.first.wait()
            await _decide_elsewhere(decided_in, step_id, Decision.APPROVE, REVIEWER)
            result = await waiting
        assert not result.is_error, result.content
        assert result.structured_content is not None
        assert result.structured_content["decision"]["outcome"] == "approve"
        assert result.structured_content["askedInClient"] is False
    assert person.asked == []
