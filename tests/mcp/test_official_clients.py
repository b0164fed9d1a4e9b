"""The official MCP clients, Python's and TypeScript's, over HTTP and stdio, after listing the tools (as
every host does): every tool succeeds with structured content its output schema admits, and every
refusal code reaches the caller as a tool error (``isError``) with its code, message and advice."""

from __future__ import annotations

import pytest

from server.auth import Role
from server.clock import FakeClock
from server.config import Settings
from server.errors import ErrorCode
from server.mcp.server import server_version
from tests.conftest import keys_per_role
from tests.mcp.every_tool import Reviewer, every_tool
from tests.mcp.official_clients import AGENTS, Target


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, auth_cache_seconds=0)


@pytest.fixture
async def role_keys(settings: Settings, clock: FakeClock) -> dict[Role, str]:
    return await keys_per_role(settings.database_url, clock.now())


def target(request: pytest.FixtureRequest, transport: str, settings: Settings, key: str) -> Target:
    if transport == "http":
        return Target(url=f"{request.getfixturevalue('live_server').url}/mcp", token=key)
    return Target.stdio({"DATABASE_URL": settings.database_url, "FLIGHTDECK_API_KEY": key})


# About 100 calls and four processes (two servers over stdio, two node clients): 47-77 s each at load 14,
# so the hang guard is wider than the suite's 120 s.
@pytest.mark.timeout(600)
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("transport", ["http", "stdio"])
@pytest.mark.parametrize("client", ["typescript", "python"])
async def test_every_tool_succeeds_and_every_refusal_arrives_as_a_tool_error(
    request: pytest.FixtureRequest,
    client: str,
    transport: str,
    settings: Settings,
    role_keys: dict[Role, str],
) -> None:
    connect = AGENTS[client]
    async with (
        connect(target(request, transport, settings, role_keys[Role.ADMIN])) as admin,
        connect(target(request, transport, settings, role_keys[Role.VIEWER])) as viewer,
    ):
        assert admin.server_version == server_version() != ""
        session = await every_tool(admin, viewer, Reviewer(settings.database_url, "t"))
    assert session.succeeded == set(session.tools), set(session.tools) - session.succeeded
    # TOO_MANY_WAITS needs one key's waits held at once, which a one-call-at-a-time client cannot
    # hold; test_mcp_waiting meets it, and it travels through the same refusal as every other code.
    # HISTORY_TRUNCATED answers an event cursor below the archive's cut, and no tool takes a cursor.
    unmet = {ErrorCode.TOO_MANY_WAITS.value, ErrorCode.HISTORY_TRUNCATED.value}
    assert session.codes == {code.value for code in ErrorCode} - unmet
