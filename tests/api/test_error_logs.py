"""What the server log says about errors and what error messages repeat, on a real server.

An expected refusal (FORBIDDEN, UNAUTHENTICATED, a userError, a request error, a bad argument) is at most
one log line, no traceback. An unexpected error is one traceback naming the request id, and the client's
"Unexpected error." carries the same id. Whatever a message repeats of the client's input is cut short.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.health import Readiness
from server.realtime.feed import EventFeed
from tests.api import mission_operations as mops
from tests.conftest import GraphQLClient, LiveServer, start_server, stop_server

MEGABYTE = "x" * 1_000_000


async def key(settings: Settings, clock: FakeClock, role: Role) -> str:
    db = Database(settings.database_url)
    try:
        return (await create_key(db, "tenant-a", role, role.value, clock.now()))[1]
    finally:
        await db.dispose()


def server_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What the server logged about the refusal: not the test's HTTP client nor the database drivers, nor
    the one ``server.operations`` record every answered operation gets, refused or not."""
    return [
        r
        for r in caplog.records
        if r.name.startswith(("server", "strawberry", "uvicorn")) and r.name != "server.operations"
    ]


def no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert "Traceback" not in caplog.text
    assert all(r.exc_info is None and r.levelno < logging.ERROR for r in server_lines(caplog)), caplog.text


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO)
    return caplog


@pytest.fixture
async def viewer_key(settings: Settings, clock: FakeClock) -> str:
    return await key(settings, clock, Role.VIEWER)


@pytest.fixture
def keyed_server(viewer_key: str, settings: Settings, clock: FakeClock) -> Iterator[LiveServer]:
    """A server started with a key already made: it requires keys from the start."""
    live = start_server(settings, clock)
    yield live
    stop_server(live)


async def test_a_forbidden_mutation_logs_one_line_without_a_traceback(
    keyed_server: LiveServer, viewer_key: str, logs: pytest.LogCaptureFixture
) -> None:
    viewer = GraphQLClient(keyed_server.url, viewer_key)
    try:
        logs.clear()
        body = (await viewer.post(mops.PROPOSE_MISSION, {"input": {"title": "t", "goal": "g"}})).json()
    finally:
        await viewer.aclose()
    assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    no_traceback(logs)
    [line] = server_lines(logs)
    assert "refused FORBIDDEN at proposeMission" in line.getMessage()


async def test_an_unauthenticated_request_logs_no_traceback(
    keyed_server: LiveServer, logs: pytest.LogCaptureFixture
) -> None:
    stranger = GraphQLClient(keyed_server.url, "not-a-key")
    try:
        logs.clear()
        response = await stranger.post("{ latestSeq }")
    finally:
        await stranger.aclose()
    assert response.status_code == 401
    no_traceback(logs)
    assert len(server_lines(logs)) <= 1


@pytest.mark.parametrize(
    ("document", "variables"),
    [
        ("{ nope }", {}),  # a request error
        ("query($id: ID!) { mission(id: $id) { id } }", {"id": "m-1"}),  # a malformed id
        (mops.PROPOSE_MISSION, {"input": {"title": "", "goal": "g"}}),  # a userError
        (
            mops.PROPOSE_HOP,
            {"input": {"missionId": "0" * 8 + "-0000-0000-0000-" + "0" * 12, "name": "h", "plan": "p"}},
        ),
    ],
    ids=["request error", "malformed id", "user error", "not found"],
)
async def test_an_ordinary_refusal_is_at_most_one_line(
    client: GraphQLClient, logs: pytest.LogCaptureFixture, document: str, variables: dict[str, Any]
) -> None:
    logs.clear()
    await client.post(document, variables)
    no_traceback(logs)
    assert len(server_lines(logs)) <= 1, logs.text


async def test_an_unexpected_error_logs_one_traceback_with_the_request_id_the_client_gets(
    client: GraphQLClient, logs: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(self: EventFeed, tenant_id: str) -> int:
        raise RuntimeError("the feed broke")

    monkeypatch.setattr(EventFeed, "position", broken)
    logs.clear()
    response = await client.post("{ latestSeq }", headers={"X-Request-ID": "trace-me-42"})
    [error] = response.json()["errors"]
    assert error["message"] == "Unexpected error."
    assert error["extensions"] == {"requestId": "trace-me-42"}
    assert response.headers["x-request-id"] == "trace-me-42"
    [line] = [r for r in server_lines(logs) if r.levelno >= logging.ERROR]
    assert "[request trace-me-42]" in line.getMessage()
    assert line.exc_info is not None
    assert "the feed broke" in str(line.exc_info[1])
    assert logs.text.count("Traceback") == 1


async def test_an_error_outside_graphql_is_logged_and_answered_with_the_request_id(
    live_server: LiveServer, logs: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(self: Readiness) -> list[str]:
        raise RuntimeError("readiness broke")

    monkeypatch.setattr(Readiness, "reasons", broken)
    logs.clear()
    async with httpx.AsyncClient(base_url=live_server.url) as http:
        response = await http.get("/readyz")
    assert response.status_code == 500
    request_id = response.headers["x-request-id"]
    assert response.json()["errors"][0]["extensions"] == {"requestId": request_id}
    [line] = [r for r in server_lines(logs) if r.levelno >= logging.ERROR]
    assert f"[request {request_id}]" in line.getMessage()
    assert line.exc_info is not None
    assert logs.text.count("Traceback") == 1


@pytest.mark.parametrize(
    ("sent", "kept"),
    [("abc-123.x:y_z", True), ("", False), ("a" * 129, False), ("two words", False), ("é", False)],
    ids=["plain", "empty", "too long", "space", "not ascii"],
)
async def test_a_plain_request_id_is_kept_and_any_other_replaced(
    live_server: LiveServer, sent: str, kept: bool
) -> None:
    async with httpx.AsyncClient(base_url=live_server.url) as http:
        answered = (await http.get("/healthz", headers={"X-Request-ID": sent.encode()})).headers[
            "x-request-id"
        ]
        fresh = (await http.get("/healthz")).headers["x-request-id"]
    assert (answered == sent) is kept
    assert len(fresh) == 32
    assert fresh != answered


# -- echoes --


async def test_a_megabyte_id_comes_back_as_a_short_message(client: GraphQLClient) -> None:
    query = (await client.post("query($id: ID!) { mission(id: $id) { id } }", {"id": MEGABYTE})).json()
    [error] = query["errors"]
    assert error["extensions"]["code"] == "VALIDATION_FAILED"
    assert "(1000000 characters)" in error["message"]
    assert len(error["message"]) < 300

    mutation = await client.execute(mops.mission_act("cancelMission", True), {"id": MEGABYTE, "reason": "r"})
    [user_error] = mutation["cancelMission"]["userErrors"]
    assert "(1000000 characters)" in user_error["message"]
    assert len(user_error["message"]) < 300


async def test_a_megabyte_value_graphql_cannot_coerce_comes_back_short(client: GraphQLClient) -> None:
    response = await client.post("query($n: Int) { missions(first: $n) { totalCount } }", {"n": MEGABYTE})
    [error] = response.json()["errors"]
    assert response.status_code == 400
    assert len(error["message"]) < 2100


async def test_a_megabyte_field_name_in_a_workflow_comes_back_short(client: GraphQLClient) -> None:
    yaml = f"name: w\nsteps:\n  - name: a\n    ? {'k' * 200_000}\n    : 1\n"  # an explicit key: any length
    done = await client.execute(
        "mutation($y: String!) { createWorkflowFromYaml(yaml: $y) { userErrors { message field } } }",
        {"y": yaml},
    )
    [error] = done["createWorkflowFromYaml"]["userErrors"]
    assert "(200000 characters)" in error["message"]
    assert len(error["message"]) < 400
    assert max(len(f) for f in error["field"]) < 200
