"""GraphQL over HTTP (the GraphQL-over-HTTP spec) and the protections that are on by default.

Transport behaviour does not depend on the database, so this module runs on SQLite only.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx
import pytest

from server.config import Settings
from server.db.migrate import upgrade_async
from server.services import listing
from server.services.plans import execution as plan_execution
from tests.api import operations as ops
from tests.conftest import LiveServer

GRAPHQL_RESPONSE = "application/graphql-response+json"
MAX_DEPTH = 3  # small, so a real query of this schema can exceed it; the other limits keep their defaults


@pytest.fixture
async def db_url(tmp_path: object) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path}/flightdeck.db"
    await upgrade_async(url)
    return url


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, max_query_depth=MAX_DEPTH)


@pytest.fixture
async def http(live_server: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=30) as c:
        yield c


def media_type(response: httpx.Response) -> str:
    return response.headers["content-type"].split(";")[0].strip()


async def post(http: httpx.AsyncClient, query: str, accept: str | None = GRAPHQL_RESPONSE) -> httpx.Response:
    headers = {"accept": accept} if accept is not None else {}
    return await http.post("/graphql", json={"query": query}, headers=headers)


def assert_request_error(response: httpx.Response, *fragments: str) -> list[str]:
    """A 400 with errors and no data entry; each fragment appears in some message."""
    assert response.status_code == 400, response.text
    assert media_type(response) == GRAPHQL_RESPONSE
    body = response.json()
    assert "data" not in body, body
    messages = [e["message"] for e in body["errors"]]
    for fragment in fragments:
        assert any(fragment in m for m in messages), (fragment, messages)
    return messages


# -- media types --

COUNT = "{ researchPlans { totalCount } }"


@pytest.mark.parametrize(
    "accept",
    [
        GRAPHQL_RESPONSE,
        f"{GRAPHQL_RESPONSE}, application/json;q=0.9",
        f"application/json;q=0.9, {GRAPHQL_RESPONSE}",
        f"*/*, {GRAPHQL_RESPONSE}",
    ],
)
async def test_responses_are_graphql_response_json_when_the_client_takes_it(
    accept: str, http: httpx.AsyncClient
) -> None:
    response = await post(http, COUNT, accept=accept)
    assert response.status_code == 200
    assert media_type(response) == GRAPHQL_RESPONSE
    assert response.json() == {"data": {"researchPlans": {"totalCount": 0}}}


@pytest.mark.parametrize("accept", [None, "", "*/*", "application/*", "text/html, */*;q=0.8"])
async def test_a_client_without_accept_or_with_only_wildcards_gets_application_json(
    accept: str | None, http: httpx.AsyncClient
) -> None:
    # The GraphQL-over-HTTP spec's "legacy watershed" advice: such a client may predate the new type.
    request = http.build_request("POST", "/graphql", json={"query": COUNT})
    if accept is None:
        del request.headers["accept"]
    else:
        request.headers["accept"] = accept
    response = await http.send(request)
    assert response.status_code == 200
    assert media_type(response) == "application/json"
    assert response.json() == {"data": {"researchPlans": {"totalCount": 0}}}


async def test_a_client_that_accepts_only_application_json_gets_application_json(
    http: httpx.AsyncClient,
) -> None:
    response = await post(http, COUNT, accept="application/json")
    assert response.status_code == 200
    assert media_type(response) == "application/json"
    assert response.json() == {"data": {"researchPlans": {"totalCount": 0}}}


# -- request errors: 400, errors, no data --


async def test_a_syntax_error_is_a_400_with_errors_and_no_data(http: httpx.AsyncClient) -> None:
    assert_request_error(await post(http, "{ researchPlans { "), "Syntax Error")


async def test_a_request_error_for_a_legacy_json_client_is_200_with_errors_and_no_data(
    http: httpx.AsyncClient,
) -> None:
    # The spec's application/json rules: 200 for every well-formed request, whatever its errors.
    response = await post(http, "{ researchPlans { ", accept="application/json")
    assert response.status_code == 200
    assert media_type(response) == "application/json"
    body = response.json()
    assert "data" not in body
    assert "Syntax Error" in body["errors"][0]["message"]


async def test_a_body_that_is_not_json_is_a_400(http: httpx.AsyncClient) -> None:
    response = await http.post(
        "/graphql", content=b'{"query": "{ researchPlans', headers={"content-type": "application/json"}
    )
    assert response.status_code == 400


# Each names something close to a real name, so graphql-core would normally suggest the real one.
UNKNOWN_NAMES = {
    "field": ("{ researchPlans { totalCoun } }", "Cannot query field 'totalCoun'"),
    "argument": ('{ researchPlan(idd: "x") { id } }', "Unknown argument 'idd'"),
    "type": (
        "query($s: PlanStatu) { researchPlans(status: [$s]) { totalCount } }",
        "Unknown type 'PlanStatu'",
    ),
    "enum value": ("{ researchPlans(status: [EXECUTIN]) { totalCount } }", "EXECUTIN"),
    "input field": (
        'mutation { createResearchPlan(input: {researchQuestio: "q", steps: []}) { userErrors { code } } }',
        "researchQuestio",
    ),
    "fragment type": ("{ ...F } fragment F on Querry { __typename }", "Unknown type 'Querry'"),
}


@pytest.mark.parametrize("case", UNKNOWN_NAMES.values(), ids=UNKNOWN_NAMES.keys())
async def test_a_validation_error_is_a_400_that_suggests_no_names(
    case: tuple[str, str], http: httpx.AsyncClient
) -> None:
    query, fragment = case
    response = await post(http, query)
    assert_request_error(response, fragment)
    assert "Did you mean" not in response.text
    assert "suggest" not in response.text.lower()


async def test_a_variable_of_the_wrong_type_is_a_400_that_suggests_no_names(http: httpx.AsyncClient) -> None:
    response = await http.post(
        "/graphql",
        json={"query": ops.CREATE_PLAN, "variables": {"input": {"researchQuestio": "q", "steps": []}}},
        headers={"accept": GRAPHQL_RESPONSE},
    )
    assert_request_error(response, "Variable '$input'", "researchQuestio")
    assert "Did you mean" not in response.text


# The limiter counts levels below the root field: this one is 3 deep, one more level is 4.
AT_DEPTH_LIMIT = "query Deep { researchPlans { edges { node { id } } } }"
BEYOND_DEPTH_LIMIT = "query Deeper { researchPlans { edges { node { steps { id } } } } }"


async def test_a_query_at_the_depth_limit_runs(http: httpx.AsyncClient) -> None:
    response = await post(http, AT_DEPTH_LIMIT)
    assert response.status_code == 200, response.text
    assert "errors" not in response.json()


async def test_a_query_deeper_than_the_limit_is_a_400(http: httpx.AsyncClient) -> None:
    assert_request_error(await post(http, BEYOND_DEPTH_LIMIT), f"maximum operation depth of {MAX_DEPTH}")


async def test_deeply_nested_introspection_is_a_400(http: httpx.AsyncClient) -> None:
    # The depth limiter skips introspection; graphql-core's MaxIntrospectionDepthRule covers it.
    inner = "name"
    for _ in range(6):
        inner = f"fields {{ type {{ {inner} }} }}"
    assert_request_error(await post(http, f'{{ __type(name: "Query") {{ {inner} }} }}'), "introspection")


async def test_thirty_aliases_run_and_thirty_one_are_a_400(http: httpx.AsyncClient) -> None:
    def aliased(n: int) -> str:
        return "{ " + " ".join(f"a{i}: __typename" for i in range(n)) + " }"

    limit = Settings().max_aliases
    allowed = await post(http, aliased(limit))
    assert allowed.status_code == 200, allowed.text
    assert_request_error(await post(http, aliased(limit + 1)), "aliases")


async def test_too_many_tokens_are_a_400(http: httpx.AsyncClient) -> None:
    limit = Settings().max_tokens
    # "{", "researchPlans", "{", n x "totalCount", "}", "}" (plus the end-of-file token).
    assert_request_error(await post(http, "{ researchPlans { " + "totalCount " * limit + "} }"), "token")


# -- GET --


async def test_a_query_over_get_works(http: httpx.AsyncClient) -> None:
    response = await http.get("/graphql", params={"query": COUNT}, headers={"accept": GRAPHQL_RESPONSE})
    assert response.status_code == 200
    assert media_type(response) == GRAPHQL_RESPONSE
    assert response.json() == {"data": {"researchPlans": {"totalCount": 0}}}


async def test_a_query_over_get_from_a_browser_runs_rather_than_showing_graphiql(
    http: httpx.AsyncClient,
) -> None:
    response = await http.get("/graphql", params={"query": COUNT}, headers={"accept": "text/html, */*"})
    assert response.status_code == 200
    assert response.json() == {"data": {"researchPlans": {"totalCount": 0}}}


async def test_a_mutation_over_get_is_a_405(http: httpx.AsyncClient) -> None:
    query = (
        'mutation { failPlan(planId: "00000000-0000-0000-0000-000000000000", reason: "r") { plan { id } } }'
    )
    response = await http.get("/graphql", params={"query": query}, headers={"accept": GRAPHQL_RESPONSE})
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert response.headers["content-type"].startswith(GRAPHQL_RESPONSE)
    [error] = response.json()["errors"]
    assert "POST" in error["message"]
    assert error["extensions"] == {"code": "METHOD_NOT_ALLOWED"}


async def test_a_body_that_is_not_json_gets_a_graphql_shaped_400(http: httpx.AsyncClient) -> None:
    response = await http.post("/graphql", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"]


MALFORMED_BODIES = {
    "a JSON number": (b"42", "got a number"),
    "a JSON string": (b'"{ researchPlans { totalCount } }"', "got a string"),
    "null": (b"null", "got null"),
    "true": (b"true", "got a boolean"),
    "not UTF-8": (b'{"query": "{ researchPlans { totalCount } }", "x": "\xff\xfe"}', "not UTF-8"),
    "variables nested 1000 deep": (
        b'{"query": "{ latestSeq }", "variables": {"v": ' + b"[" * 1000 + b"1" + b"]" * 1000 + b"}}",
        "nested deeper than 512",
    ),
    "variables nested 600 deep": (
        b'{"query": "{ latestSeq }", "variables": {"v": ' + b"[" * 600 + b"1" + b"]" * 600 + b"}}",
        "nested deeper than 512",
    ),
    "a NaN token": (b'{"query": "{ latestSeq }", "variables": {"v": NaN}}', "NaN is not JSON"),
    "an Infinity token": (
        b'{"query": "{ latestSeq }", "variables": {"v": -Infinity}}',
        "-Infinity is not JSON",
    ),
    "a byte order mark first": (b'\xef\xbb\xbf{"query": "{ latestSeq }"}', "byte order mark"),
    "an integer of 5000 digits": (
        b'{"query": "{ latestSeq }", "variables": {"v": ' + b"7" * 5000 + b"}}",
        "not valid JSON",
    ),
}


@pytest.mark.parametrize("accept", [GRAPHQL_RESPONSE, "application/json"])
@pytest.mark.parametrize("case", MALFORMED_BODIES.values(), ids=MALFORMED_BODIES.keys())
async def test_a_malformed_body_is_a_graphql_shaped_400_and_the_connection_stays_usable(
    case: tuple[bytes, str], accept: str, http: httpx.AsyncClient
) -> None:
    body, says = case
    headers = {"content-type": "application/json", "accept": accept}
    response = await http.post("/graphql", content=body, headers=headers)
    assert response.status_code == 400, response.text
    assert media_type(response) == accept
    [error] = response.json()["errors"]
    assert says in error["message"], error
    assert error["extensions"] == {"code": "BAD_REQUEST"}
    # Keep-alive: the same client (and connection) answers the next request.
    again = await post(http, COUNT)
    assert again.status_code == 200
    assert again.json() == {"data": {"researchPlans": {"totalCount": 0}}}


async def test_variables_nested_within_the_request_limit_parse(http: httpx.AsyncClient) -> None:
    body = b'{"query": "{ latestSeq }", "variables": {"v": ' + b"[" * 500 + b"1" + b"]" * 500 + b"}}"
    response = await http.post(
        "/graphql", content=body, headers={"content-type": "application/json", "accept": GRAPHQL_RESPONSE}
    )
    assert response.status_code == 200, response.text
    assert response.json() == {"data": {"latestSeq": 0}}


@pytest.mark.parametrize("method", ["POST", "GET"])
async def test_a_subscription_over_http_is_a_400_pointing_at_the_websocket(
    method: str, http: httpx.AsyncClient
) -> None:
    query = "subscription { events(after: 0) { seq } }"
    headers = {"accept": GRAPHQL_RESPONSE}
    if method == "GET":
        response = await http.get("/graphql", params={"query": query}, headers=headers)
    else:
        response = await http.post("/graphql", json={"query": query}, headers=headers)
    assert response.status_code == 400, response.text
    [error] = response.json()["errors"]
    assert "WebSocket" in error["message"]
    assert error["extensions"] == {"code": "BAD_REQUEST"}


# -- internal errors are masked --


async def test_an_internal_error_in_a_query_is_masked(
    http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def explode(*args: object, **kwargs: object) -> int:
        raise RuntimeError("secret detail: SELECT * FROM research_plans WHERE tenant_id = 'default'")

    monkeypatch.setattr(listing, "count", explode)
    response = await post(http, "query Count { researchPlans { totalCount } }")
    assert response.status_code == 200  # a field error: execution ran, data is null
    body = response.json()
    assert body["data"] is None
    assert [(e["message"], e["path"]) for e in body["errors"]] == [("Unexpected error.", ["researchPlans"])]
    for leak in ("secret detail", "SELECT", "research_plans", "RuntimeError", "Traceback", 'File "'):
        assert leak not in response.text


async def test_an_internal_error_in_a_mutation_is_masked(
    http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def explode(*args: object, **kwargs: object) -> None:
        raise KeyError("secret detail")

    monkeypatch.setattr(plan_execution, "start_next_step", explode)
    response = await http.post(
        "/graphql",
        json={"query": ops.START_NEXT_STEP, "variables": {"planId": "00000000-0000-0000-0000-000000000000"}},
        headers={"accept": GRAPHQL_RESPONSE},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["data"] is None
    assert [e["message"] for e in body["errors"]] == ["Unexpected error."]
    assert "secret detail" not in response.text
    assert "KeyError" not in response.text


# -- pages --


async def test_graphiql_is_served_to_a_browser_from_our_own_static_assets(http: httpx.AsyncClient) -> None:
    response = await http.get("/graphql", headers={"accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert response.status_code == 200
    assert media_type(response) == "text/html"
    page = response.text
    assert "graphiql" in page.lower()
    # data: URLs are inline (the empty favicon) and fetch nothing.
    assets = [url for url in re.findall(r'(?:src|href)="([^"]+)"', page) if not url.startswith("data:")]
    assert assets, page
    assert all(url.startswith("/static/") for url in assets), assets
    assert not re.search(r"https?://", page), "the page must not load anything from another host"


async def test_healthz_says_ok(http: httpx.AsyncClient) -> None:
    response = await http.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


# -- media types and documents of several operations --


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "application/graphql", None]
)
async def test_a_post_that_is_not_json_is_a_415(http: httpx.AsyncClient, content_type: str | None) -> None:
    headers = {"accept": GRAPHQL_RESPONSE, **({"content-type": content_type} if content_type else {})}
    response = await http.post("/graphql", content=b'{"query": "{ latestSeq }"}', headers=headers)
    assert response.status_code == 415, response.text
    assert media_type(response) == GRAPHQL_RESPONSE
    [error] = response.json()["errors"]
    assert "application/json" in error["message"]
    assert error["extensions"] == {"code": "UNSUPPORTED_MEDIA_TYPE"}


async def test_json_with_a_charset_is_accepted(http: httpx.AsyncClient) -> None:
    headers = {"accept": GRAPHQL_RESPONSE, "content-type": "application/json; charset=utf-8"}
    response = await http.post("/graphql", content=b'{"query": "{ latestSeq }"}', headers=headers)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("accept", ["text/html", "application/xml, text/*", "application/json;q=0"])
@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_an_accept_that_takes_no_json_is_a_406(
    http: httpx.AsyncClient, accept: str, method: str
) -> None:
    if method == "GET":
        response = await http.get("/graphql", params={"query": COUNT}, headers={"accept": accept})
    else:
        response = await post(http, COUNT, accept=accept)
    assert response.status_code == 406, response.text
    assert media_type(response) in (GRAPHQL_RESPONSE, "application/json")
    [error] = response.json()["errors"]
    assert GRAPHQL_RESPONSE in error["message"]
    assert "application/json" in error["message"]
    assert error["extensions"] == {"code": "NOT_ACCEPTABLE"}


@pytest.mark.parametrize("accept", ["text/html, application/*;q=0.5", "application/json;q=0.1"])
async def test_an_accept_that_takes_json_among_others_runs(http: httpx.AsyncClient, accept: str) -> None:
    response = await post(http, COUNT, accept=accept)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("accept", [GRAPHQL_RESPONSE, "application/json"])
async def test_several_operations_without_operation_name_are_a_request_error(
    http: httpx.AsyncClient, accept: str
) -> None:
    document = "query A { latestSeq } query B { researchPlans { totalCount } }"
    response = await http.post("/graphql", json={"query": document}, headers={"accept": accept})
    assert response.status_code == 400, response.text
    body = response.json()
    assert "data" not in body, body
    [error] = body["errors"]
    assert "2 operations (A, B)" in error["message"]
    assert "operationName" in error["message"]
    assert error["extensions"] == {"code": "BAD_REQUEST"}
    named = await http.post(
        "/graphql", json={"query": document, "operationName": "B"}, headers={"accept": accept}
    )
    assert named.json() == {"data": {"researchPlans": {"totalCount": 0}}}
    over_get = await http.get("/graphql", params={"query": document}, headers={"accept": accept})
    assert over_get.status_code == 400
    assert over_get.json()["errors"][0]["extensions"] == {"code": "BAD_REQUEST"}
