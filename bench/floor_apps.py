"""The floor's reference servers: what a request costs in the libraries alone, without Flightdeck.

``python -m bench.floor_apps starlette|strawberry PORT`` serves, under uvicorn with exactly the options
``flightdeck serve`` uses (``server.cli.uvicorn_options``: the same loop, HTTP parser, logging and access
log) the same garbage-collector threshold and the same lean log records:

- ``starlette``: a bare Starlette app whose ``POST /graphql`` answers a fixed JSON body;
- ``strawberry``: a stock Strawberry app (its own ASGI ``GraphQL`` view, no middleware) with a one-field
  schema and Strawberry's own parse and validation caches, which answers ``{ __typename }``;
- ``mutations``: the same stock app with the three mutations a plan-step agent sends
  (``createResearchPlan``, ``startNextStep``, ``submitStepResult``), declared with the arguments, input
  types (every field, defaults included), enums and payload types of Flightdeck's schema that the
  agent's operations reach, whose resolvers (coroutines, as any that awaits a database must be)
  answer at once with canned objects: what Strawberry and
  graphql-core spend on a transition's requests (parse, validation, variable coercion, input objects,
  execution and completion of the payload, the JSON reply) with no state kept and no check run;
- ``mutations_sql``: ``mutations`` whose resolvers also run the transition's statements in raw ``sqlite3``
  (``bench.scale.RawTransitions``) on the served SQLite file: the libraries and the SQL in one process.

Each answers ``GET /healthz`` so that ``ServerProcess``-style readiness works.
"""

from __future__ import annotations

import gc
import itertools
import sys
from collections.abc import Callable
from enum import Enum
from typing import Any

import strawberry
import uvicorn
from sqlalchemy.engine import make_url
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from strawberry.asgi import GraphQL
from strawberry.extensions import ParserCache, ValidationCache
from strawberry.scalars import JSON

from server.cli import uvicorn_options
from server.config import Settings, load_settings
from server.logs import lean_records


async def _health(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def _json(request: Request) -> Response:
    await request.body()
    return JSONResponse({"data": {"__typename": "Query"}})


def starlette_app() -> Starlette:
    return Starlette(routes=[Route("/healthz", _health), Route("/graphql", _json, methods=["POST"])])


@strawberry.type
class Query:
    @strawberry.field
    def version(self) -> str:
        return "1"


def strawberry_app() -> Starlette:
    schema = strawberry.Schema(Query, extensions=[ParserCache(maxsize=256), ValidationCache(maxsize=256)])
    return Starlette(
        routes=[Route("/healthz", _health), Route("/graphql", GraphQL(schema), methods=["POST"])]
    )


@strawberry.enum
class StepType(Enum):
    SEARCH = "search"
    EXTRACT = "extract"
    ANALYZE = "analyze"
    CRITIQUE = "critique"
    SYNTHESIZE = "synthesize"
    CHECKPOINT = "checkpoint"
    CUSTOM = "custom"


@strawberry.enum
class StepStatus(Enum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    AWAITING_INPUT = "awaiting_input"
    COMPLETED = "completed"
    SKIPPED = "skipped"
    FAILED = "failed"


@strawberry.enum
class NextStepOutcome(Enum):
    STARTED = "started"
    PLAN_COMPLETE = "plan_complete"
    PLAN_FAILED = "plan_failed"
    AWAITING_REVIEW = "awaiting_review"
    NO_PENDING_STEPS = "no_pending_steps"


@strawberry.enum
class BranchOperator(Enum):
    EQ = "eq"
    GT = "gt"


@strawberry.enum
class BranchAction(Enum):
    SKIP_TO = "skip_to"
    FAIL = "fail"


@strawberry.input
class StepInput:
    step_type: StepType
    instructions: str
    title: str = ""
    output_formatting_notes: str | None = None


@strawberry.input
class BranchingConditionInput:
    after_step_order: int
    field: str
    op: BranchOperator
    value: JSON
    action: BranchAction
    target_step_order: int | None = None


@strawberry.input
class CreateResearchPlanInput:
    research_question: str
    steps: list[StepInput]
    title: str = ""
    branching_conditions: list[BranchingConditionInput] = strawberry.field(default_factory=list)
    output_formatting_notes: str | None = None
    session_id: str | None = None
    stall_threshold_seconds: float | None = None


@strawberry.input
class SubmitStepResultInput:
    step_id: strawberry.ID
    result_summary: str
    result_data: JSON | None = None
    confidence: float | None = None
    step_execution_report: str | None = None
    output_formatting_notes: str | None = None


@strawberry.type
class UserError:
    code: str
    message: str


@strawberry.type
class ResearchPlan:
    id: strawberry.ID


@strawberry.type
class PlanStep:
    id: strawberry.ID
    status: StepStatus


@strawberry.type
class CreateResearchPlanPayload:
    plan: ResearchPlan | None
    user_errors: list[UserError]


@strawberry.type
class StartNextStepPayload:
    outcome: NextStepOutcome | None
    step: PlanStep | None
    user_errors: list[UserError]


@strawberry.type
class SubmitStepResultPayload:
    step: PlanStep | None
    user_errors: list[UserError]


_ids = itertools.count()


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def create_research_plan(self, input: CreateResearchPlanInput) -> CreateResearchPlanPayload:
        return CreateResearchPlanPayload(
            plan=ResearchPlan(id=strawberry.ID(f"p{next(_ids)}")), user_errors=[]
        )

    @strawberry.mutation
    async def start_next_step(
        self, plan_id: strawberry.ID, session_id: str | None = None
    ) -> StartNextStepPayload:
        step = PlanStep(id=strawberry.ID(f"s{next(_ids)}"), status=StepStatus.IN_PROGRESS)
        return StartNextStepPayload(outcome=NextStepOutcome.STARTED, step=step, user_errors=[])

    @strawberry.mutation
    async def submit_step_result(self, input: SubmitStepResultInput) -> SubmitStepResultPayload:
        step = PlanStep(id=input.step_id, status=StepStatus.COMPLETED)
        return SubmitStepResultPayload(step=step, user_errors=[])


# The raw statements ``mutations_sql`` runs (``bench.scale.RawTransitions``), on the database it serves
# (one connection, made at start; the module is imported only by that app).
_raw: list[Any] = []


@strawberry.type
class SqlMutation:
    """``Mutation`` whose resolvers also run the transition's statements in raw ``sqlite3``."""

    @strawberry.mutation
    async def create_research_plan(self, input: CreateResearchPlanInput) -> CreateResearchPlanPayload:
        (plan_id,) = _raw[0].create(1, len(input.steps))
        return CreateResearchPlanPayload(plan=ResearchPlan(id=strawberry.ID(plan_id)), user_errors=[])

    @strawberry.mutation
    async def start_next_step(
        self, plan_id: strawberry.ID, session_id: str | None = None
    ) -> StartNextStepPayload:
        step = PlanStep(id=strawberry.ID(_raw[0].start(plan_id)), status=StepStatus.IN_PROGRESS)
        return StartNextStepPayload(outcome=NextStepOutcome.STARTED, step=step, user_errors=[])

    @strawberry.mutation
    async def submit_step_result(self, input: SubmitStepResultInput) -> SubmitStepResultPayload:
        _raw[0].submit(input.step_id)
        step = PlanStep(id=input.step_id, status=StepStatus.COMPLETED)
        return SubmitStepResultPayload(step=step, user_errors=[])


def _graphql_app(mutation: type) -> Starlette:
    schema = strawberry.Schema(
        Query, mutation, extensions=[ParserCache(maxsize=256), ValidationCache(maxsize=256)]
    )
    return Starlette(
        routes=[Route("/healthz", _health), Route("/graphql", GraphQL(schema), methods=["POST"])]
    )


def mutations_app(database: str) -> Starlette:
    return _graphql_app(Mutation)


def mutations_sql_app(database: str) -> Starlette:
    """``mutations`` with the raw SQL in its resolvers, on the SQLite file ``database`` (migrated): the
    stock libraries and the transition's statements sharing one process and its caches, as any
    implementation of the same requests on this stack would."""
    from .scale import RawTransitions

    _raw[:] = [RawTransitions(database)]
    return _graphql_app(SqlMutation)


def _database_free(make: Callable[[], Starlette]) -> Callable[[str], Starlette]:
    return lambda database: make()


# Each app by name, made for the SQLite file it may use.
APPS: dict[str, Callable[[str], Starlette]] = {
    "starlette": _database_free(starlette_app),
    "strawberry": _database_free(strawberry_app),
    "mutations": mutations_app,
    "mutations_sql": mutations_sql_app,
}


def prepare_process(settings: Settings) -> None:
    """What a reference server sets for its process before it starts: ``flightdeck serve``'s collector
    threshold and lean log records (not its collector metrics, which the reference apps do not serve)."""
    gc.set_threshold(settings.gc_threshold, *gc.get_threshold()[1:])
    lean_records()


def main() -> None:
    kind, port = sys.argv[1], int(sys.argv[2])
    settings = load_settings(host="127.0.0.1", port=port)
    app = APPS[kind](make_url(settings.database_url).database or "")
    prepare_process(settings)
    uvicorn.run(app, **uvicorn_options(settings))


if __name__ == "__main__":
    main()
