"""wait_for_decision: an agent waits for a person's answer instead of calling again in a loop.

The tool is thin: the wait itself (the event feed, the bound, the per-key cap) is the decisions
service's. What is MCP's own is here: progress notifications to a caller that sent a progressToken,
and, where the client can be asked (a session with a back-channel and the elicitation capability) and
the key's role may decide, a form that lets the person answer a plan review in the agent's client.
The answer goes through submit_user_decision's service, as the key's principal.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext

from ..config import Settings
from ..db.decision_models import Decision
from ..errors import ErrorCode, ServiceError
from ..machines.decision import OPEN_STATUSES, DecisionKind, DecisionStatus
from ..services.decisions import waiting
from ..services.decisions.waiting import LONGEST_WAIT_SECONDS, Waited
from ..services.plans import reads as plan_reads
from ..services.plans import review as plan_review
from ..services.plans.inputs import Decision as PlanDecision
from .arguments import (
    STR,
    STR_OR_NULL,
    ArgumentCheck,
    Shape,
    Vocabulary,
    boolean,
    enum,
    number,
    obj,
    output,
    states,
)
from .tools import Access, Answer, Call, Tool

logger = logging.getLogger(__name__)

# The MCP request a tool call runs in (set by the server's call_tool): progress and elicitation
# need it, and the tools' common signature does not carry it.
REQUEST: ContextVar[ServerRequestContext[Any, Any] | None] = ContextVar(
    "flightdeck_mcp_request", default=None
)

DEFAULT_WAIT_SECONDS = 50  # under the 60 s request timeout most clients (the TypeScript SDK's) default to

DECISION = Shape(
    {
        "decisionId": STR,
        "kind": states(DecisionKind),
        "status": states(DecisionStatus),
        "outcome": STR_OR_NULL,
        "subjectType": STR,
        "subjectId": STR,
        "rootType": STR,
        "rootId": STR,
        "assignee": STR_OR_NULL,
        "defaultOutcome": STR_OR_NULL,
        "deadlineAt": STR_OR_NULL,
        "statusReason": STR_OR_NULL,
        "createdAt": STR,
        "closedAt": STR_OR_NULL,
    },
    ["decisionId", "kind", "status", "subjectType", "subjectId", "rootType", "rootId"],
    ident="decisionId",
)

# What the agent does next, by kind and outcome (the plan review's are seed 003's).
_NEXT = {
    (DecisionKind.PLAN_REVIEW, "approve"): "the step is completed: call get_next_step.",
    (DecisionKind.PLAN_REVIEW, "skip"): "the step is skipped: call get_next_step.",
    (DecisionKind.PLAN_REVIEW, "modify"): "the step is in_progress again with the feedback appended to its "
    "instructions: redo it (get_step_context) and call submit_step_result.",
    (DecisionKind.PLAN_REVIEW, "reject"): "the step failed and the plan with it.",
    (DecisionKind.WORKFLOW_GATE, "approve"): "the gate's step runs on: its worker reports it as usual.",
    (DecisionKind.MISSION_APPROVAL, "approve"): "the mission is approved: propose its first hop.",
    (DecisionKind.HOP_PLAN, "approve"): "the hop plan is approved: call propose_hop_implementation.",
    (DecisionKind.HOP_IMPLEMENTATION, "approve"): "the implementation is approved: call start_hop.",
}


@dataclass(frozen=True)
class WaitingTool(Tool):
    """Readable by every key, but not read-only: a person's answer in the form is written."""

    def describe(self) -> types.Tool:
        described = super().describe()
        assert described.annotations is not None
        described.annotations = described.annotations.model_copy(
            update={"read_only_hint": False, "destructive_hint": False, "idempotent_hint": False}
        )
        return described


class ReviewForm:
    """The typed form a reviewer answers in the agent's client; checked like a tool's arguments."""

    def __init__(self, v: Vocabulary) -> None:
        self.schema = obj(
            {
                "decision": {
                    **enum(PlanDecision, "approve, reject, modify (with feedback) or skip"),
                    "title": "Decision",
                },
                "feedback": {
                    **v.long_text("Required for modify: appended to the step's instructions"),
                    "title": "Feedback",
                },
            },
            ["decision"],
        )
        self.check = ArgumentCheck(self.schema)

    @property
    def requested(self) -> dict[str, Any]:
        """The schema as elicitation takes it: flat primitive properties, nothing else."""
        return {k: v for k, v in self.schema.items() if k != "additionalProperties"}


async def _wait_for_decision(form: ReviewForm, call: Call) -> Answer:
    ctx = REQUEST.get()
    given = call.args.get("timeoutSeconds")
    seconds = waiting.checked_bound(DEFAULT_WAIT_SECONDS if given is None else float(given))
    decision = await waiting.find_decision(call.runtime, call.principal.tenant_id, call.args["id"])

    async def progress(waited: float, total: float, message: str) -> None:
        if ctx is not None:
            await ctx.session.report_progress(waited, total, message)

    with waiting.slot(call.runtime, call.principal):  # before asking: a refused wait asks nobody
        wait = asyncio.create_task(
            waiting.wait_for_decision(call.runtime, call.principal, decision, seconds, progress)
        )
        asked = False
        try:
            if call.args.get("askInClient", True) and _may_ask(ctx, call, decision):
                assert ctx is not None
                asked = True
                answered = await _ask_while_waiting(ctx, call, form, decision, wait)
                if answered is not None:
                    return _answer(answered, seconds, asked)
            return _answer(await wait, seconds, asked)
        finally:
            if not wait.done():
                wait.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await wait


def wait_for_decision(v: Vocabulary) -> Tool:
    return WaitingTool(
        "wait_for_decision",
        "Wait for a person's decision",
        "Wait up to timeoutSeconds for a person to answer a decision point, instead of polling. id: a "
        "plan step in review (or its plan), a workflow step at an approval gate (or its workflow), a "
        "mission or hop awaiting approval, or a decision. status: decided, defaulted (its deadline "
        "applied the default), withdrawn, or waiting (time is up: call again). Sends progress given a "
        "progressToken. A reviewer or admin key's client with elicitation (stdio) may be asked the plan "
        "review as a form (askInClient: false not to). Too many waits per key: TOO_MANY_WAITS.",
        obj(
            {
                "id": v.id_arg("plan step, plan, workflow step, workflow, mission, hop or decision"),
                "timeoutSeconds": number(
                    f"Seconds to wait at most, in [1, {LONGEST_WAIT_SECONDS}]; default "
                    f"{DEFAULT_WAIT_SECONDS} (under most clients' request timeout).",
                    minimum=1,
                    maximum=LONGEST_WAIT_SECONDS,
                ),
                "askInClient": boolean("false: never ask the client directly; default true."),
            },
            ["id"],
        ),
        output(
            {
                "status": {"type": "string", "enum": ["decided", "defaulted", "withdrawn", "waiting"]},
                "decision": DECISION.schema,
                "waitedSeconds": {"type": "number"},
                "askedInClient": {"type": "boolean"},
                "retryAfterSeconds": {"type": "number"},
            },
            ["status", "decision", "waitedSeconds", "askedInClient"],
        ),
        Access.READ,
        functools.partial(_wait_for_decision, ReviewForm(v)),
    )


def waiting_tools(settings: Settings) -> list[Tool]:
    return [wait_for_decision(Vocabulary.of(settings))]


def _may_ask(ctx: ServerRequestContext[Any, Any] | None, call: Call, decision: Decision) -> bool:
    """A plan review still open, a key whose role may decide, a client that can be asked."""
    if ctx is None or not call.principal.can_decide:
        return False
    if decision.kind != DecisionKind.PLAN_REVIEW or DecisionStatus(decision.status) not in OPEN_STATUSES:
        return False
    capabilities = ctx.session.client_capabilities
    return ctx.session.can_send_request and capabilities is not None and capabilities.elicitation is not None


async def _ask_while_waiting(
    ctx: ServerRequestContext[Any, Any],
    call: Call,
    form: ReviewForm,
    decision: Decision,
    wait: asyncio.Task[Waited],
) -> Waited | None:
    """Ask the person while the wait goes on; whichever ends first wins. None: no answer from the form
    (declined, cancelled, or the client failed to ask), so the ordinary wait goes on."""
    message = await _review_message(call, decision)
    ask = asyncio.create_task(
        ctx.session.elicit_form(message, form.requested, related_request_id=ctx.request_id)
    )
    try:
        await asyncio.wait({ask, wait}, return_when=asyncio.FIRST_COMPLETED)
        if not ask.done():
            return None  # decided elsewhere, or the bound: the wait has the answer
        try:
            result = ask.result()
        except Exception:
            logger.info("could not ask the client for a decision", exc_info=True)
            return None
        if result.action != "accept":
            return None
        args, problems = form.check.problems(dict(result.content or {}))
        if problems:
            raise ServiceError(problems)
        step_id = decision.subject_id
        choice, feedback = PlanDecision(args["decision"]), args.get("feedback") or None
        try:
            await call.write(lambda tx: plan_review.submit_user_decision(tx, step_id, choice, feedback))
        except ServiceError as exc:
            if exc.problems[0].code is not ErrorCode.INVALID_TRANSITION:
                raise
            # Answered meanwhile by someone else: report that answer.
        wait.cancel()
        found = await waiting.find_decision(call.runtime, call.principal.tenant_id, decision.id)
        return Waited(found, 0.0)
    finally:
        if not ask.done():
            ask.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ask


async def _review_message(call: Call, decision: Decision) -> str:
    found = await call.read(
        lambda s: plan_reads.step_context(s, call.principal.tenant_id, decision.subject_id)
    )
    step, plan = found.step, found.plan
    lines = [
        f"Review step {step.step_order} ({step.title or step.step_type}) of the plan "
        f'"{plan.title or plan.research_question}".',
        step.review_summary or "",
    ]
    lines += [f"- {q}" for q in step.review_questions or []]
    lines.append("Approve, reject (fails the plan), modify (with feedback for the agent) or skip the step.")
    return "\n".join(line for line in lines if line)


def _answer(waited: Waited, seconds: float, asked: bool) -> Answer:
    decision = waited.decision
    data: dict[str, Any] = {
        "status": decision.status if waited.ended else "waiting",
        "decision": DECISION.of(decision),
        "waitedSeconds": waited.waited_seconds,
        "askedInClient": asked,
    }
    if not waited.ended:
        data["retryAfterSeconds"] = 0
        return Answer(
            data,
            f"Still waiting after {seconds:g} s for a person to decide ({decision.kind}): call "
            "wait_for_decision again to keep waiting.",
        )
    if decision.status == DecisionStatus.WITHDRAWN:
        return Answer(data, f"No decision: {decision.status_reason or 'it ended without an answer'}.")
    hint = _NEXT.get((DecisionKind(decision.kind), decision.outcome or ""), "")
    how = "by its deadline's default" if decision.status == DecisionStatus.DEFAULTED else "by a person"
    return Answer(data, f"Decided {how}: {decision.outcome}. {hint}".rstrip())
