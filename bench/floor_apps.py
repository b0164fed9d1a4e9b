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
  execution and completion of the payload, the JSON reply) with no state kept and no check run.

Each answers ``GET /healthz`` so that ``ServerProcess``-style readiness works.
"""

from __future__ import annotations

import gc
import itertools
import sys
from enum import Enum

import strawberry
import uvicorn
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


def mutations_app() -> Starlette:
    schema = strawberry.Schema(
        Query, Mutation, extensions=[ParserCache(maxsize=256), ValidationCache(maxsize=256)]
    )
    return Starlette(
        routes=[Route("/healthz", _health), Route("/graphql", GraphQL(schema), methods=["POST"])]
    )


APPS = {"starlette": starlette_app, "strawberry": strawberry_app, "mutations": mutations_app}


def prepare_process(settings: Settings) -> None:
    """What a reference server sets for its process before it starts: ``flightdeck serve``'s collector
    threshold and lean log records (not its collector metrics, which the reference apps do not serve)."""
    gc.set_threshold(settings.gc_threshold, *gc.get_threshold()[1:])
    lean_records()


def main() -> None:
    kind, port = sys.argv[1], int(sys.argv[2])
    app = APPS[kind]()
    settings = load_settings(host="127.0.0.1", port=port)
    prepare_process(settings)
    uvicorn.run(app, **uvicorn_options(settings))


if __name__ == "__main__":
    main()
