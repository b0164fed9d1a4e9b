"""MCP prompts: the instructions an agent follows, with the tool names this server serves.

``research_loop`` turns a research question into seed 003's execution loop (create the plan, then
get_next_step -> do the step -> submit_step_result until plan_complete, a person's review in between,
the deliverable stored at the end). ``work_workflow`` is a worker's loop over a workflow's steps (seed
002): claim, do, report, with compensation. A prompt reads nothing and changes nothing: it is text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..config import Settings
from ..limits import SHORT_TEXT, short_text_problem, text_problem


@dataclass(frozen=True)
class Argument:
    name: str
    description: str
    required: bool
    limit: int  # UTF-8 bytes
    short: bool = False


@dataclass(frozen=True)
class Prompt:
    name: str
    title: str
    description: str
    arguments: tuple[Argument, ...]
    render: Callable[[dict[str, str]], str]

    def describe(self) -> types.Prompt:
        return types.Prompt(
            name=self.name,
            title=self.title,
            description=self.description,
            arguments=[
                types.PromptArgument(name=a.name, description=a.description, required=a.required)
                for a in self.arguments
            ],
        )

    def checked(self, given: dict[str, str] | None) -> dict[str, str]:
        """The arguments, or an invalid-params error naming the first wrong one."""
        given = dict(given or {})
        known = {a.name for a in self.arguments}
        for name in given:
            if name not in known:
                _refuse(f"{self.name} takes no argument {name[:50]!r}", name)
        for a in self.arguments:
            value = given.get(a.name)
            if value is None or not value.strip():
                if a.required:
                    _refuse(f"{a.name} is required", a.name)
                given.pop(a.name, None)
                continue
            why = (short_text_problem if a.short else text_problem)(value)
            if why is None and len(value.encode()) > a.limit:
                why = f"is longer than {a.limit} bytes of UTF-8"
            if why is not None:
                _refuse(f"{a.name} {why}", a.name)
        return given


def _refuse(message: str, field: str) -> NoReturn:
    raise MCPError(
        code=types.INVALID_PARAMS,
        message=f"VALIDATION_FAILED: {message}",
        data={"code": "VALIDATION_FAILED", "field": [field]},
    )


def _research_loop(a: dict[str, str]) -> str:
    question = a["researchQuestion"]
    session = a.get("sessionId")
    with_session = f' with sessionId "{session}"' if session else ""
    return (
        f"You are doing research with Flightdeck, which keeps the plan's state; you do the work.\n"
        "\n"
        f"Research question: {question}\n"
        "\n"
        f"1. Plan. Break the question into 3-8 steps (stepType search, extract, analyze, critique, "
        f"synthesize, checkpoint or custom), each with instructions a fresh session could follow, "
        f"and call create_research_plan{with_session} with researchQuestion and steps. Add "
        f"outputFormattingNotes for the deliverable, and branchingConditions if a result should skip"
        f" ahead or stop the plan.\n"
        f"2. Loop. Call get_next_step with the planId and act on its status:\n"
        f"   - started: do the step's instructions (get_step_context gives the results before it), then"
        f" call submit_step_result with its stepId, a resultSummary, resultData for what later steps"
        f" or conditions read, and your confidence in [0, 1]. To have a person check the work first,"
        f" call request_user_review with the stepId, a summary and questions instead.\n"
        f"   - awaiting_review: a person must decide. Call wait_for_decision with the stepId; it "
        f"returns when they approve, reject, modify or skip (modify: redo the step with their "
        f'feedback, now in its instructions). On "waiting", call it again.\n'
        f"   - no_pending_steps: submit the steps still in progress, or retry_step the failed ones "
        f"(fail_plan if they cannot succeed).\n"
        f"   - plan_failed: stop and tell the user the failureReason.\n"
        f"   - plan_complete: go to 3.\n"
        f"   If the work changes, modify_plan adds, removes, reorders or rewrites steps. "
        f"get_plan_status shows progress without changing anything.\n"
        f"3. Deliver. Write the deliverable following outputMediaType, outputFormattingInstructions,"
        f" planFormattingNotes and stepFormattingNotes from the plan_complete answer, and call "
        f"store_research_output with the planId.\n"
        "\n"
        f"If this conversation ends early, a new one resumes with get_research_context (the planId) "
        f"and then get_next_step. Every refusal starts with a stable code (INVALID_TRANSITION, "
        f"NOT_FOUND, VALIDATION_FAILED, CONFLICT, FORBIDDEN) and says whether calling again can "
        f"help.\n"
    )


def _work_workflow(a: dict[str, str]) -> str:
    agent = a["agent"]
    workflow = a.get("workflowId")
    scope = f' with workflowId "{workflow}"' if workflow else ""
    which = f"workflow {workflow}" if workflow else "any workflow of this tenant"
    return (
        f'You are the worker "{agent}" for {which} in Flightdeck, which decides what runs and when; '
        f"you do the work.\n"
        "\n"
        f"Loop until there is nothing left for you:\n"
        f'1. Call claim_workflow_step with agent "{agent}"{scope}.\n'
        f"   - outcome step: `step` is now running and yours. Do what its name and parameters say "
        f"(get_workflow shows the whole workflow and earlier outputs). On long work, call "
        f"heartbeat_workflow_step now and then; a CONFLICT answer means the step is no longer yours,"
        f" so stop. When done, call complete_workflow_step with the stepId, agent and attempt and "
        f"its output; if it failed, call fail_workflow_step with an error category (the category "
        f"decides whether it is retried, escalated or handled by its onFailure).\n"
        f"   - outcome compensation: undo what compensation.action says, then call "
        f"complete_workflow_compensation (or fail_workflow_compensation).\n"
        f"   - outcome none: nothing is runnable for you now (dependencies, back-off, an approval "
        f"gate). Wait a little and claim again; a step at an approval gate waits for a person: "
        f"wait_for_decision with its stepId returns when they decide.\n"
        f"2. Stop when get_workflow shows the workflow completed, failed or rolled back.\n"
        "\n"
        f"Report every step under the same agent name and with the attempt you were given: a report "
        f"for an older attempt is refused with CONFLICT. Every refusal starts with a stable code and"
        f" says whether calling again can help.\n"
    )


def prompts(settings: Settings) -> dict[str, Prompt]:
    long = settings.max_text_bytes
    found = [
        Prompt(
            "research_loop",
            "Research a question",
            "Seed 003's loop for a research question: plan it with create_research_plan, work it step by "
            "step with get_next_step and submit_step_result, wait for a person's review, store the "
            "deliverable.",
            (
                Argument("researchQuestion", "The question to research.", True, long),
                Argument(
                    "sessionId",
                    "This conversation's id, linking the plan to a started skill.",
                    False,
                    SHORT_TEXT,
                    True,
                ),
            ),
            _research_loop,
        ),
        Prompt(
            "work_workflow",
            "Work a workflow's steps",
            "A worker's loop over workflow steps: claim_workflow_step, do it, complete or fail it, "
            "compensate when asked.",
            (
                Argument(
                    "agent",
                    "The agent name to claim and report as (the steps' `agent`).",
                    True,
                    SHORT_TEXT,
                    True,
                ),
                Argument("workflowId", "Only this workflow's steps; omitted: any workflow.", False, 36, True),
            ),
            _work_workflow,
        ),
    ]
    return {p.name: p for p in found}


def list_prompts(catalogue: dict[str, Prompt]) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[p.describe() for p in catalogue.values()])


def get_prompt(catalogue: dict[str, Prompt], params: types.GetPromptRequestParams) -> types.GetPromptResult:
    prompt = catalogue.get(params.name)
    if prompt is None:
        _refuse(f"no prompt {params.name[:100]!r}; there are {', '.join(catalogue)}", "name")
    text = prompt.render(prompt.checked(params.arguments))
    return types.GetPromptResult(
        description=prompt.description,
        messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
    )
