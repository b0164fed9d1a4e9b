"""The hand-written hostile corpus: what a hostile but fair tester sends.

A case is a coroutine that may set things up through ``ctx.run`` (each step must succeed) and returns
the request under test. ``expect`` says what the answer must be beyond the oracle's rules: "refused"
(a 4xx, a request error or a userError), a media type, or anything the oracle accepts.
"""

from __future__ import annotations

import json
import urllib.parse
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from tests.api import mission_operations as mops
from tests.api import operations as plan_ops
from tests.api import workflow_operations as wops

from .harness import Harness
from .oracle import Request

REFUSED = "refused"
ANY = "any"
LEGACY_JSON = "application/json"  # answered as application/json (GraphQL-over-HTTP, for older clients)


class Ctx:
    """What a case may use: the target's ids by kind, and setup requests that must succeed."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness

    def some(self, kind: str) -> str:
        return self.harness.ids_by_kind[kind][0]

    async def run(self, document: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        verdict, failure = await self.harness.send(
            Request("setup", "setup", document, variables or {}, writes=True)
        )
        assert failure is None, failure
        assert not verdict.refused, verdict.body
        (payload,) = verdict.body["data"].values()
        assert isinstance(payload, dict)
        return payload

    async def new_plan(self, steps: int = 2, **extra: object) -> dict[str, Any]:
        return await self.run(plan_ops.CREATE_PLAN, {"input": plan_ops.plan_input(steps, **extra)})

    async def executing_step(self) -> str:
        plan = await self.new_plan()
        started = await self.run(plan_ops.START_NEXT_STEP, {"planId": plan["plan"]["id"]})
        step_id: str = started["step"]["id"]
        return step_id

    async def configurable_tool_step(self, tool: str, schema: dict[str, Any]) -> str:
        """A tool step of a fresh mission with ``tool`` (registered with ``schema``) selected."""
        await self.run(mops.REGISTER_TOOL, {"input": {"name": tool, "parameterSchema": schema}})
        mission = (await self.run(mops.PROPOSE_MISSION, {"input": {"title": "t", "goal": "g"}}))["mission"]
        await self.run(mops.mission_act("approveMission"), {"id": mission["id"]})
        hop = (
            await self.run(
                mops.PROPOSE_HOP,
                {"input": {"missionId": mission["id"], "name": "h", "plan": "p", "isFinal": True}},
            )
        )["hop"]
        await self.run(mops.hop_act("approveHopPlan"), {"id": hop["id"]})
        steps = (
            await self.run(
                mops.PROPOSE_IMPLEMENTATION, {"input": {"hopId": hop["id"], "toolSteps": [{"name": "s"}]}}
            )
        )["toolSteps"]
        await self.run(mops.SELECT_TOOL, {"id": steps[0]["id"], "tool": tool})
        step_id: str = steps[0]["id"]
        return step_id


Build = Callable[[Ctx], Awaitable[Request]]


@dataclass
class Case:
    build: Build
    expect: str = REFUSED  # or ANY, or a media type the answer must have
    open_item: str | None = None  # the open class of defect it fails on until that is fixed
    found: str | None = None  # a defect this suite found itself, still open


def request(label: str, query: str, variables: dict[str, Any] | None = None, **kw: Any) -> Request:
    return Request(label, "corpus", query, variables, writes=query.lstrip().startswith("mutation"), **kw)


def gql(label: str, query: str, variables: dict[str, Any] | None = None, **kw: Any) -> Build:
    async def build(ctx: Ctx) -> Request:
        return request(label, query, variables, **kw)

    return build


def raw(label: str, body: bytes, **headers: str) -> Build:
    async def build(ctx: Ctx) -> Request:
        return Request(label, "corpus", body=body, headers=headers)

    return build


def raw_get(label: str, query: str, variables: str) -> Build:
    async def build(ctx: Ctx) -> Request:
        body = urllib.parse.urlencode({"query": query, "variables": variables}).encode()
        return Request(label, "corpus", body=body, method="GET")

    return build


def _nested_list(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _nested_schema(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return schema


SKILL = (
    "mutation($s: String!, $n: String!) { startSkillExecution(sessionId: $s, skillName: $n) "
    "{ userErrors { code field } } }"
)
PLAN_BY_ID = "query($id: ID!) { researchPlan(id: $id) { id } }"
NEXT = "mutation($id: ID!) { startNextStep(planId: $id) { outcome userErrors { code field } } }"
SUBMIT = "mutation($i: SubmitStepResultInput!) { submitStepResult(input: $i) { userErrors { code field } } }"
ASSET = (
    "mutation($i: ProposeAssetInput!) { proposeAsset(input: $i) { asset { id } userErrors { code field } } }"
)
CONFIGURE = (
    "mutation($id: ID!, $p: JSON!) { configureToolStep(toolStepId: $id, parameters: $p) "
    "{ userErrors { code field } } }"
)
REGISTER = "mutation($i: RegisterToolInput!) { registerTool(input: $i) { userErrors { code field } } }"
YAML = (
    "mutation($y: String!) { createWorkflowFromYaml(yaml: $y) { workflow { id } userErrors { code field } } }"
)
READ_BACK = """{
  researchPlans(first: 100) { edges { node { id stallThresholdSeconds
    branchingConditions { value } steps { resultData confidence } } } }
  tools { name parameterSchema }
  missions(first: 100) { edges { node { id assets { edges { node { expiresAt expiresInSeconds } } } } } }
  events(after: 0, first: 100) { edges { node { seq data } } }
}"""


def _with_plan(label: str, make: Callable[[dict[str, Any]], dict[str, Any]]) -> Build:
    async def build(ctx: Ctx) -> Request:
        return request(label, plan_ops.CREATE_PLAN, {"input": make(plan_ops.plan_input(2))})

    return build


def _submit(label: str, extra: dict[str, Any]) -> Build:
    """submitStepResult on a fresh step in progress, with ``extra`` in the input."""

    async def build(ctx: Ctx) -> Request:
        step = await ctx.executing_step()
        variables = {"i": {"stepId": step, "resultSummary": "s", **extra}}
        return request(label, SUBMIT, variables)

    return build


def _configure(label: str, schema: dict[str, Any], parameters: Any) -> Build:
    async def build(ctx: Ctx) -> Request:
        step = await ctx.configurable_tool_step(f"tool_{uuid.uuid4().hex[:8]}", schema)
        return request(label, CONFIGURE, {"id": step, "p": parameters})

    return build


def _submit_raw(label: str, result_data: str) -> Build:
    """submitStepResult on a fresh step in progress, ``result_data`` spliced into the body as written:
    JSON that Python's json never writes, such as ``1e309`` (valid JSON, past any float)."""

    async def build(ctx: Ctx) -> Request:
        step = await ctx.executing_step()
        body = (
            f'{{"query": {json.dumps(SUBMIT)}, "variables": {{"i": {{"stepId": "{step}", '
            f'"resultSummary": "s", "resultData": {result_data}}}}}}}'
        )
        return Request(label, "corpus", body=body.encode())

    return build


def _on_other_id(
    label: str,
    query: str,
    arg: str,
    kind: str,
    wrap: Callable[[str], dict[str, Any]] | None = None,
    **more: Any,
) -> Build:
    """``query`` with an existing id of ``kind`` as ``arg`` (or as ``wrap`` places it)."""

    async def build(ctx: Ctx) -> Request:
        found = ctx.some(kind)
        return request(label, query, wrap(found) if wrap else {arg: found, **more})

    return build


def _asset(label: str, ttl: float) -> Build:
    async def build(ctx: Ctx) -> Request:
        return request(
            label, ASSET, {"i": {"missionId": ctx.some("mission"), "name": "a", "ttlSeconds": ttl}}
        )

    return build


def _billion_laughs() -> str:
    """Nine levels of nine aliases each: 9**9 strings if anything expands it."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [{','.join([f'*{previous}'] * 9)}]")
    return "\n".join([*lines, "metadata: {name: *i}", "spec: {steps: [{name: x}]}"])


BILLION_LAUGHS = _billion_laughs()
LONG = "x" * 201
DEEP_BRACES = "{ latestSeq " + "... on Query { " * 900 + "latestSeq " + "} " * 900 + "}"
REDOS_SCHEMA = {"type": "object", "properties": {"q": {"type": "string", "pattern": "^(a+)+$"}}}
LONG_STRINGS: dict[str, Build] = {
    # 201 characters, where many columns hold 200 (PostgreSQL refuses more, SQLite stores it): both
    # databases must accept or refuse alike.
    "a session id": gql("long", SKILL, {"s": LONG, "n": "n"}),
    "a skill name": gql("long", SKILL, {"s": "s", "n": LONG}),
    "a skill's output media type": gql(
        "long",
        'mutation($m: String) { startSkillExecution(sessionId: "s", skillName: "n", outputMediaType: $m) '
        "{ userErrors { code } } }",
        {"m": LONG},
    ),
    "an output's media type": _on_other_id(
        "long",
        'mutation($id: ID!, $m: String!) { storeResearchOutput(planId: $id, content: "c", mediaType: $m) '
        "{ userErrors { code } } }",
        "id",
        "plan",
        m=LONG,
    ),
    "a branching field": _with_plan(
        "long",
        lambda p: {
            **p,
            "branchingConditions": [
                {"afterStepOrder": 1, "field": LONG, "op": "EQ", "value": 1, "action": "FAIL"}
            ],
        },
    ),
    "a mission title": gql("long", mops.PROPOSE_MISSION, {"input": {"title": LONG, "goal": "g"}}),
    "a hop name": _on_other_id(
        "long",
        mops.PROPOSE_HOP,
        "id",
        "mission",
        wrap=lambda i: {"input": {"missionId": i, "name": LONG, "plan": "p"}},
    ),
    "an asset name": _on_other_id(
        "long", ASSET, "id", "mission", wrap=lambda i: {"i": {"missionId": i, "name": LONG}}
    ),
    "an asset media type": _on_other_id(
        "long", ASSET, "id", "mission", wrap=lambda i: {"i": {"missionId": i, "name": "n", "mediaType": LONG}}
    ),
    "a tool name": gql("long", REGISTER, {"i": {"name": LONG, "parameterSchema": {}}}),
    "a workflow name": gql("long", wops.CREATE, {"input": {"name": LONG, "steps": [{"name": "a"}]}}),
    "a workflow step name": gql("long", wops.CREATE, {"input": {"name": "w", "steps": [{"name": LONG}]}}),
    "a workflow step agent": gql(
        "long", wops.CREATE, {"input": {"name": "w", "steps": [{"name": "a", "agent": LONG}]}}
    ),
    "a claiming agent": gql("long", wops.CLAIM, {"agent": LONG}),
    "a resuming session id": _on_other_id(
        "long",
        "mutation($id: ID!, $s: String) { startNextStep(planId: $id, sessionId: $s) "
        "{ userErrors { code } } }",
        "id",
        "plan",
        s=LONG,
    ),
    "a resuming session id (resumeSession)": _on_other_id(
        "long",
        "mutation($id: ID!, $s: String!) { resumeSession(planId: $id, sessionId: $s) "
        "{ userErrors { code } } }",
        "id",
        "plan",
        s=LONG,
    ),
}

CASES: dict[str, Case] = {
    # -- malformed bodies --
    "body is a JSON number": Case(raw("body", b"42")),
    "body is a JSON string": Case(raw("body", b'"{ latestSeq }"')),
    "body is null": Case(raw("body", b"null")),
    "body is true": Case(raw("body", b"true")),
    "body is an empty list": Case(raw("body", b"[]")),
    "body is empty": Case(raw("body", b"")),
    "body is truncated JSON": Case(raw("body", b'{"query": "{ latestSeq ')),
    "body is not UTF-8": Case(raw("body", b'{"query": "{ latestSeq }", "x": "\xff\xfe"}')),
    "body has a UTF-8 BOM": Case(raw("body", b'\xef\xbb\xbf{"query": "{ latestSeq }"}'), expect=ANY),
    "query is a number": Case(raw("body", b'{"query": 5}')),
    "query is an object": Case(raw("body", b'{"query": {"a": 1}}')),
    "query is missing": Case(raw("body", b'{"variables": {}}')),
    "variables is a list": Case(raw("body", b'{"query": "{ latestSeq }", "variables": [1]}')),
    "variables is a string": Case(raw("body", b'{"query": "{ latestSeq }", "variables": "x"}')),
    "operationName is a number": Case(raw("body", b'{"query": "{ latestSeq }", "operationName": 5}')),
    "variables nested 1000 deep": Case(
        raw(
            "body",
            b'{"query": "{ latestSeq }", "variables": {"v": ' + b"[" * 1000 + b"1" + b"]" * 1000 + b"}}",
        ),
        expect=ANY,
    ),
    "an integer of 5000 digits": Case(
        raw("body", b'{"query": "{ latestSeq }", "variables": {"v": ' + b"7" * 5000 + b"}}"), expect=ANY
    ),
    "a NaN token in the variables": Case(raw("body", b'{"query": "{ latestSeq }", "variables": {"v": NaN}}')),
    "operationName with a NUL": Case(
        raw("body", b'{"query": "query A { latestSeq }", "operationName": "A\\u0000"}')
    ),
    "an operation name of 300 characters": Case(gql("doc", f"query {'A' * 300} {{ latestSeq }}"), expect=ANY),
    "content-type text/plain": Case(
        raw("body", b'{"query": "{ latestSeq }"}', **{"content-type": "text/plain"})
    ),
    "no Accept header": Case(raw("body", b'{"query": "{ latestSeq }"}', accept=""), expect=LEGACY_JSON),
    "Accept */*": Case(raw("body", b'{"query": "{ latestSeq }"}', accept="*/*"), expect=LEGACY_JSON),
    # -- documents --
    "syntax error": Case(gql("doc", "{ latestSeq ")),
    "query nested 900 inline fragments": Case(gql("doc", DEEP_BRACES)),
    "query past the token limit": Case(gql("doc", "{ " + "latestSeq " * 5000 + "}")),
    "1000 aliases": Case(gql("doc", "{ " + " ".join(f"a{i}: latestSeq" for i in range(1000)) + " }")),
    "two operations without operationName": Case(gql("doc", "query A { latestSeq } query B { latestSeq }")),
    "unknown directive": Case(gql("doc", "{ latestSeq @nope }")),
    "NUL byte in the document": Case(gql("doc", "{ latestSeq \x00 }")),
    "subscription over POST": Case(gql("doc", "subscription { events(after: 0) { seq } }")),
    "subscription over GET": Case(gql("doc", "subscription { events(after: 0) { seq } }", method="GET")),
    "mutation over GET": Case(
        gql("get", 'mutation { failPlan(planId: "x", reason: "r") { userErrors { code } } }', method="GET")
    ),
    "GET with variables that are not JSON": Case(raw_get("get", "{ latestSeq }", "{not json")),
    # -- strings --
    "lone surrogate in a String variable": Case(
        _with_plan("surrogate", lambda p: {**p, "researchQuestion": "q\ud800"})
    ),
    "lone surrogate in an ID variable": Case(gql("surrogate", NEXT, {"id": "\udc00"})),
    "lone surrogate in a String literal": Case(
        gql(
            "surrogate",
            'mutation { startSkillExecution(sessionId: "s\\ud800", skillName: "n") { userErrors { code } } }',
        )
    ),
    "lone surrogate in a JSON key": Case(_submit("surrogate", {"resultData": {"k\udfff": 1}})),
    "NUL in a String variable": Case(gql("nul", SKILL, {"s": "a\x00b", "n": "n"})),
    "NUL in a String literal": Case(
        gql(
            "nul",
            'mutation { startSkillExecution(sessionId: "a\\u0000b", skillName: "n") { userErrors { code } }}',
        ),
    ),
    "NUL in a query argument": Case(gql("nul", 'query { researchPlans(after: "a\\u0000b") { totalCount } }')),
    "NUL in a JSON value": Case(_submit("nul", {"resultData": {"k": "a\x00b"}})),
    **{f"{what} of 201 characters": Case(build, expect=ANY) for what, build in LONG_STRINGS.items()},
    "control characters in text": Case(
        _with_plan("control", lambda p: {**p, "title": "\x1b[2J\x07\x08\r\n\t\x7f\u202e"}), expect=ANY
    ),
    "text over the byte limit": Case(_with_plan("limit", lambda p: {**p, "researchQuestion": "q" * 70_000})),
    # -- numbers --
    "Float literal 1e309": Case(
        gql(
            "float",
            'mutation { createResearchPlan(input: {researchQuestion: "q", stallThresholdSeconds: 1e309, '
            'steps: [{stepType: SEARCH, instructions: "i"}]}) { userErrors { code field } } }',
        ),
    ),
    "Float literal 1e309 in a query": Case(
        _on_other_id(
            "float",
            "query($id: ID!) { planStatus(planId: $id, stallThresholdSeconds: 1e309) { stalled } }",
            "id",
            "plan",
        ),
    ),
    "Float literal 1e309 in a JSON value": Case(
        gql(
            "float",
            'mutation { createResearchPlan(input: {researchQuestion: "q", steps: [{stepType: SEARCH, '
            'instructions: "i"}], branchingConditions: [{afterStepOrder: 1, field: "confidence", op: LT, '
            "value: 1e309, action: FAIL}]}) { userErrors { code field } } }",
        ),
    ),
    "Infinity as a branching value": Case(
        _with_plan(
            "infinity",
            lambda p: {
                **p,
                "branchingConditions": [
                    {
                        "afterStepOrder": 1,
                        "field": "confidence",
                        "op": "LT",
                        "value": float("inf"),
                        "action": "FAIL",
                    }
                ],
            },
        ),
    ),
    "1e309 in result data (a JSON number past any float)": Case(_submit_raw("float", '{"x": 1e309}')),
    "NaN in result data": Case(_submit("nan", {"resultData": {"x": float("nan")}})),
    "1e308 confidence": Case(_submit("huge", {"confidence": 1e308})),
    "10**400 in result data": Case(_submit("huge", {"resultData": {"x": 10**400}}), expect=ANY),
    "Int past 32 bits": Case(gql("int", "{ researchPlans(first: 2147483648) { totalCount } }")),
    "huge stall threshold": Case(_with_plan("huge", lambda p: {**p, "stallThresholdSeconds": 1e308})),
    "huge asset TTL": Case(_asset("huge", 1e308)),
    "huge workflow timeout": Case(
        gql(
            "huge", wops.CREATE, {"input": {"name": "w", "timeout": "99999999999d", "steps": [{"name": "a"}]}}
        )
    ),
    "huge retry delay": Case(
        gql(
            "huge",
            wops.CREATE,
            {
                "input": {
                    "name": "w",
                    "steps": [
                        {
                            "name": "a",
                            "retryPolicy": {
                                "maxRetries": 2147483647,
                                "backoff": "EXPONENTIAL",
                                "initialDelay": "1e300s",
                                "maxDelay": "99999999999d",
                            },
                        }
                    ],
                }
            },
        )
    ),
    # -- paging --
    # `first` is clamped to [1, max_page_size] (pagination.py), not refused.
    "negative first": Case(gql("paging", "{ researchPlans(first: -1) { edges { cursor } } }"), expect=ANY),
    "huge first": Case(gql("paging", "{ researchPlans(first: 2147483647) { totalCount } }"), expect=ANY),
    "zero first": Case(gql("paging", "{ missions(first: 0) { totalCount } }"), expect=ANY),
    "negative events after": Case(
        gql("paging", "{ events(after: -5, first: -5) { edges { cursor } } }"), expect=ANY
    ),
    "garbage cursor": Case(gql("paging", '{ researchPlans(after: "garbage!") { totalCount } }')),
    "base64 junk cursor": Case(gql("paging", '{ workflows(after: "bm90IGEgY3Vyc29y") { totalCount } }')),
    "cursor of another connection": Case(
        gql("paging", '{ missions(after: "eyJzZXEiOiAxfQ==") { totalCount } }'), expect=ANY
    ),
    "huge cursor": Case(
        gql("paging", "query($a: String) { researchPlans(after: $a) { totalCount } }", {"a": "A" * 100_000})
    ),
    # -- ids --
    "a mission id as a plan id": Case(_on_other_id("ids", NEXT, "id", "mission")),
    "a step id as a plan id (query)": Case(_on_other_id("ids", PLAN_BY_ID, "id", "step"), expect=ANY),
    "a 100 kB id": Case(gql("ids", NEXT, {"id": "9" * 100_000})),
    "an id as an Int": Case(
        gql("ids", "mutation { startNextStep(planId: 12) { userErrors { code field } } }")
    ),
    "an upper-case uuid": Case(gql("ids", NEXT, {"id": str(uuid.uuid4()).upper()})),
    # -- JSON and schemas --
    "result data nested 300 deep": Case(_submit("deep", {"resultData": {"x": _nested_list(300)}})),
    "JSON Schema nested 300 deep": Case(
        gql("deep", REGISTER, {"i": {"name": "deep", "parameterSchema": _nested_schema(300)}}),
    ),
    "an invalid JSON Schema": Case(
        gql("schema", REGISTER, {"i": {"name": "bad", "parameterSchema": {"type": 5}}})
    ),
    "a remote $ref": Case(
        gql(
            "schema",
            REGISTER,
            {"i": {"name": "remote", "parameterSchema": {"$ref": "http://169.254.169.254/x"}}},
        ),
        expect=ANY,
    ),
    "catastrophic regex pattern": Case(_configure("redos", REDOS_SCHEMA, {"q": "a" * 25 + "!"})),
    # -- YAML --
    "YAML billion laughs": Case(gql("yaml", YAML, {"y": BILLION_LAUGHS})),
    "YAML python tag": Case(gql("yaml", YAML, {"y": "!!python/object/apply:os.system ['true']"})),
    "YAML nested 5000 deep": Case(gql("yaml", YAML, {"y": "[" * 5000 + "]" * 5000})),
    "YAML that is a number": Case(gql("yaml", YAML, {"y": "42"})),
    # -- auth headers --
    "Authorization Basic": Case(
        gql("auth", "{ latestSeq }", headers={"authorization": "Basic dXNlcjpwYXNz"})
    ),
    "Authorization Bearer 100 kB": Case(
        gql("auth", "{ latestSeq }", headers={"authorization": "Bearer " + "k" * 100_000})
    ),
    "Authorization Bearer without a key": Case(
        gql("auth", "{ latestSeq }", headers={"authorization": "Bearer"})
    ),
    # -- and, last, everything stored so far must read back as JSON --
    # Runs last: what the cases above stored (the Infinity branching value on SQLite) must read back as JSON.
    "read everything back": Case(gql("read", READ_BACK), expect=ANY),
}
