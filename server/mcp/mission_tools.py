"""Seed 004's agent side of missions: propose mission, hop and implementation, select and configure
tools, run tool steps, propose and make assets; and starting a hop, for reviewer keys as in GraphQL.

Each tool is one service call, the same GraphQL's mission mutation makes (server/api/missions/); every
one answers with what the mutation changed (``MissionResult``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlalchemy.ext.asyncio import AsyncSession

from ..config import Settings
from ..db.mission_models import Asset, Hop, Mission, ToolStep
from ..db.mission_models import Tool as RegisteredTool
from ..machines.mission import AssetStatus, HopStatus, MissionStatus, ToolStepStatus
from ..services.missions import assets, execution, implementation, proposals
from ..services.missions import queries as mission_queries
from ..services.missions import tools as registry
from ..services.missions.inputs import NewAsset, NewHop, NewMission, NewTool, NewToolStep
from ..services.missions.rows import MissionResult
from ..services.runtime import Tx
from .arguments import (
    ANY,
    BOOL,
    INT,
    STR,
    STR_OR_NULL,
    Schema,
    Shape,
    Vocabulary,
    array,
    boolean,
    items,
    nullable,
    number,
    obj,
    or_null,
    output,
    states,
)
from .tools import Access, Answer, Args, Tool, ToolSpec, reads, table, writes
from .toolsets import Toolset

MISSION = Shape(
    {
        "missionId": STR,
        "title": STR,
        "goal": STR,
        "status": states(MissionStatus),
        "statusReason": STR_OR_NULL,
        "updatedAt": STR,
    },
    ["missionId", "title", "goal", "status"],
    ident="missionId",
)
HOP = Shape(
    {
        "hopId": STR,
        "missionId": STR,
        "sequence": INT,
        "name": STR,
        "plan": STR,
        "isFinal": BOOL,
        "status": states(HopStatus),
        "statusReason": STR_OR_NULL,
    },
    ["hopId", "missionId", "sequence", "name", "status"],
    ident="hopId",
)
TOOL_STEP = Shape(
    {
        "toolStepId": STR,
        "hopId": STR,
        "position": INT,
        "name": STR,
        "description": STR,
        "toolName": STR_OR_NULL,
        "parameters": ANY,
        "result": ANY,
        "status": states(ToolStepStatus),
        "statusReason": STR_OR_NULL,
    },
    ["toolStepId", "hopId", "position", "name", "status"],
    ident="toolStepId",
)
ASSET = Shape(
    {
        "assetId": STR,
        "missionId": STR,
        "name": STR,
        "description": STR,
        "mediaType": STR_OR_NULL,
        "status": states(AssetStatus),
        "statusReason": STR_OR_NULL,
        "expiresAt": STR_OR_NULL,
    },
    ["assetId", "missionId", "name", "status"],
    ident="assetId",
)
MISSION_OUT, HOP_OUT, TOOL_STEP_OUT, ASSET_OUT = MISSION.schema, HOP.schema, TOOL_STEP.schema, ASSET.schema
mission_out, hop_out, tool_step_out, asset_out = MISSION.of, HOP.of, TOOL_STEP.of, ASSET.of
RESULT_OUT = output(
    {
        "mission": MISSION_OUT,
        "hop": or_null(HOP_OUT),
        "toolStep": or_null(TOOL_STEP_OUT),
        "toolSteps": items(TOOL_STEP_OUT),
        "asset": or_null(ASSET_OUT),
    },
    ["mission", "toolSteps"],
)


def changed(next_step: str) -> Callable[[MissionResult], Answer]:
    """How every mission tool answers: what changed, each state in one line, and what to do next."""

    def show(done: MissionResult) -> Answer:
        parts = [f"Mission {done.mission.status}"]
        if done.hop is not None:
            parts.append(f"hop {done.hop.sequence} {done.hop.status}")
        if done.tool_step is not None:
            parts.append(f"tool step {done.tool_step.name!r} {done.tool_step.status}")
        if done.asset is not None:
            parts.append(f"asset {done.asset.name!r} {done.asset.status}")
        return Answer(
            {
                "mission": mission_out(done.mission),
                "hop": hop_out(done.hop) if done.hop else None,
                "toolStep": tool_step_out(done.tool_step) if done.tool_step else None,
                "toolSteps": [tool_step_out(s) for s in done.tool_steps],
                "asset": asset_out(done.asset) if done.asset else None,
            },
            f"{', '.join(parts)}. {next_step}",
        )

    return show


Act = Callable[[Tx, Args], Awaitable[MissionResult]]


def _tool_steps(a: Args) -> list[NewToolStep]:
    return [
        NewToolStep(s["name"], s.get("description") or "", s.get("toolName"), s.get("parameters"))
        for s in a["toolSteps"]
    ]


async def _get(
    session: AsyncSession, tenant: str, a: Args
) -> tuple[Mission, list[Hop], list[ToolStep], list[Asset]]:
    mission = await mission_queries.get_mission(session, tenant, a["missionId"], "missionId")
    [hops] = await mission_queries.hops_by_mission(session, [mission.id])
    steps = [s for group in await mission_queries.steps_by_hop(session, [h.id for h in hops]) for s in group]
    [owned] = await mission_queries.assets_by_mission(session, [mission.id])
    return mission, hops, steps, owned


def _shown(found: tuple[Mission, list[Hop], list[ToolStep], list[Asset]]) -> Answer:
    mission, hops, steps, owned = found
    return Answer(
        {
            "mission": mission_out(mission),
            "hops": [hop_out(h) for h in hops],
            "toolSteps": [tool_step_out(s) for s in steps],
            "assets": [asset_out(x) for x in owned],
        },
        f"Mission {mission.status}: {len(hops)} hop(s), {len(steps)} tool step(s), {len(owned)} asset(s).",
    )


def _registered(row: RegisteredTool) -> Answer:
    return Answer(
        {"toolId": row.id, "name": row.name, "description": row.description},
        f"Tool {row.name!r} registered; name it in propose_hop_implementation or select_tool.",
    )


def _changes(
    name: str,
    title: str,
    description: str,
    arguments: dict[str, Schema],
    required: list[str],
    act: Act,
    next_step: str,
    access: Access = Access.DRIVE,
    **flags: bool,
) -> Tool:
    """A tool that makes one mission service call and answers with what it changed (``RESULT_OUT``)."""
    # A person's overrides (the deciding tools) are the admin set; the agent's side, missions.
    return Tool(
        name,
        title,
        description,
        obj(arguments, required),
        RESULT_OUT,
        access,
        writes(act, changed(next_step)),
        **flags,
        toolset=Toolset.ADMIN if access is Access.DECIDE else Toolset.MISSIONS,
    )


def _reason(v: Vocabulary) -> Schema:
    return v.long_text("Why; kept as statusReason")


def _tool_step_input(v: Vocabulary) -> Schema:
    return obj(
        {
            "name": v.long_text("What the step is called"),
            "description": v.long_text("What the step does"),
            "toolName": nullable(
                v.short_text("A registered tool's name: the step starts READY_TO_CONFIGURE, not PROPOSED")
            ),
            "parameters": nullable(
                v.json_obj(
                    "Checked against the tool's schema; needs toolName; the step starts READY_TO_EXECUTE"
                )
            ),
        },
        ["name"],
        "A tool step; naming the tool (and parameters) selects (and configures) it.",
    )


# -- the tools, one function each --


def get_mission(v: Vocabulary) -> Tool:
    return Tool(
        "get_mission",
        "Read a mission",
        "A mission with its hops, their tool steps and its assets. Changes nothing.",
        obj({"missionId": v.id_arg("mission")}, ["missionId"]),
        output(
            {
                "mission": MISSION_OUT,
                "hops": items(HOP_OUT),
                "toolSteps": items(TOOL_STEP_OUT),
                "assets": items(ASSET_OUT),
            },
            ["mission", "hops", "toolSteps", "assets"],
        ),
        Access.READ,
        reads(_get, _shown),
    )


def register_tool(v: Vocabulary) -> Tool:
    return Tool(
        "register_tool",
        "Declare a tool",
        "Declare a tool your tool steps can use, with the JSON Schema its parameters must satisfy "
        "(registering a name again replaces it).",
        obj(
            {
                "name": v.short_text("Unique within your tenant"),
                "parameterSchema": v.json_obj("A JSON Schema (draft 2020-12 unless $schema says)"),
                "description": v.long_text("What the tool does"),
            },
            ["name", "parameterSchema"],
        ),
        output({"toolId": STR, "name": STR, "description": STR}, ["toolId", "name"]),
        Access.DRIVE,
        writes(
            lambda tx, a: registry.register_tool(
                tx, NewTool(a["name"], a["parameterSchema"], a.get("description") or "")
            ),
            _registered,
        ),
        idempotent=True,
    )


def propose_mission(v: Vocabulary) -> Tool:
    return _changes(
        "propose_mission",
        "Propose a mission",
        "Propose a mission; it starts PROPOSED and waits for a person to approve it (then propose_hop).",
        {"title": v.long_text("What the mission is called"), "goal": v.long_text("What it should achieve")},
        ["title", "goal"],
        lambda tx, a: proposals.propose_mission(tx, NewMission(a["title"], a["goal"])),
        "A reviewer approves or rejects it; once APPROVED, call propose_hop.",
    )


def propose_hop(v: Vocabulary) -> Tool:
    return _changes(
        "propose_hop",
        "Propose the next hop",
        "Propose the next hop of an APPROVED mission with no hop under way: the hop PLAN_PROPOSED, the "
        "mission BUILDING_HOP. A person approves the plan (READY_FOR_IMPLEMENTATION).",
        {
            "missionId": v.id_arg("mission"),
            "name": v.long_text("What the hop is called"),
            "plan": v.long_text("The high-level plan a person approves or rejects"),
            "isFinal": nullable(boolean("Completing this hop completes the mission; default false.")),
        },
        ["missionId", "name", "plan"],
        lambda tx, a: proposals.propose_hop(
            tx, NewHop(a["missionId"], a["name"], a["plan"], bool(a.get("isFinal")))
        ),
        "Once a reviewer approves the plan, call propose_hop_implementation.",
    )


def propose_hop_implementation(v: Vocabulary) -> Tool:
    return _changes(
        "propose_hop_implementation",
        "Propose a hop's tool steps",
        "Propose the tool steps of a hop READY_FOR_IMPLEMENTATION: the hop goes IMPLEMENTATION_PROPOSED.",
        {
            "hopId": v.id_arg("hop"),
            "toolSteps": array(
                _tool_step_input(v),
                f"The steps in order: at least 1, at most {v.max_steps}.",
                minItems=1,
                maxItems=v.max_steps,
            ),
        },
        ["hopId", "toolSteps"],
        lambda tx, a: implementation.propose_hop_implementation(tx, a["hopId"], _tool_steps(a)),
        "Select and configure every step's tool (select_tool, configure_tool_step); a reviewer then "
        "approves the implementation.",
    )


def select_tool(v: Vocabulary) -> Tool:
    return _changes(
        "select_tool",
        "Choose a tool step's tool",
        "Select the registered tool of a PROPOSED tool step: READY_TO_CONFIGURE.",
        {"toolStepId": v.id_arg("tool step"), "toolName": v.short_text("A registered tool's name")},
        ["toolStepId", "toolName"],
        lambda tx, a: implementation.select_tool(tx, a["toolStepId"], a["toolName"]),
        "Next: configure_tool_step.",
    )


def configure_tool_step(v: Vocabulary) -> Tool:
    return _changes(
        "configure_tool_step",
        "Set a tool step's parameters",
        "READY_TO_CONFIGURE -> READY_TO_EXECUTE, only with parameters the tool's schema accepts (a "
        "VALIDATION_FAILED refusal names what does not fit).",
        {
            "toolStepId": v.id_arg("tool step"),
            "parameters": v.json_obj("Parameters the tool's schema accepts"),
        },
        ["toolStepId", "parameters"],
        lambda tx, a: implementation.configure_tool_step(tx, a["toolStepId"], a["parameters"]),
        "When every step is READY_TO_EXECUTE a reviewer approves the implementation and starts the hop.",
    )


def start_hop(v: Vocabulary) -> Tool:
    return _changes(
        "start_hop",
        "Start a hop",
        "Start a hop READY_FOR_EXECUTION: the hop and its tool steps EXECUTING, the mission EXECUTING_HOP.",
        {"hopId": v.id_arg("hop")},
        ["hopId"],
        lambda tx, a: execution.start_hop(tx, a["hopId"]),
        "The agent now runs each tool step and reports it with complete_tool_step or fail_tool_step.",
        Access.DECIDE,
    )


def complete_tool_step(v: Vocabulary) -> Tool:
    return _changes(
        "complete_tool_step",
        "Report a tool step done",
        "Complete an EXECUTING tool step with the tool's result; the last one completes the hop, and the "
        "mission goes APPROVED (ready for its next hop) or COMPLETED after the final hop.",
        {"toolStepId": v.id_arg("tool step"), "result": nullable(v.json_value("What the tool returned"))},
        ["toolStepId"],
        lambda tx, a: execution.complete_tool_step(tx, a["toolStepId"], a.get("result")),
        "Report the hop's other steps; after the hop, propose_hop (unless the mission is COMPLETED).",
    )


def fail_tool_step(v: Vocabulary) -> Tool:
    return _changes(
        "fail_tool_step",
        "Report a tool step failed",
        "Fail an EXECUTING or READY_TO_CONFIGURE tool step; failing in execution fails the hop and the "
        "mission (retry_tool_step puts it back).",
        {"toolStepId": v.id_arg("tool step"), "reason": _reason(v)},
        ["toolStepId", "reason"],
        lambda tx, a: execution.fail_tool_step(tx, a["toolStepId"], a["reason"]),
        "retry_tool_step returns it to the state it failed from.",
        destructive=True,
    )


def retry_tool_step(v: Vocabulary) -> Tool:
    return _changes(
        "retry_tool_step",
        "Retry a failed tool step",
        "A FAILED tool step returns to the state it failed from; the hop and mission resume when it was "
        "the hop's last failure.",
        {"toolStepId": v.id_arg("tool step")},
        ["toolStepId"],
        lambda tx, a: execution.retry_tool_step(tx, a["toolStepId"]),
        "Run it again and report it.",
    )


def propose_asset(v: Vocabulary) -> Tool:
    return _changes(
        "propose_asset",
        "Propose an asset",
        "Propose an asset (a deliverable) of a mission that is not finished; it starts PROPOSED and a "
        "person accepts it (PENDING) before you make it.",
        {
            "missionId": v.id_arg("mission"),
            "name": v.long_text("What the asset is called"),
            "description": v.long_text("What it is"),
            "mediaType": nullable(v.short_text("How its content will be written, e.g. text/csv")),
            "ttlSeconds": nullable(
                number(
                    "Expires this many seconds after now, in (0, 315360000]; omitted: never.",
                    exclusiveMinimum=0,
                    maximum=315360000,
                )
            ),
        },
        ["missionId", "name"],
        lambda tx, a: assets.propose_asset(
            tx,
            NewAsset(
                a["missionId"], a["name"], a.get("description") or "", a.get("mediaType"), a.get("ttlSeconds")
            ),
        ),
        "Once a reviewer accepts it (PENDING), call start_asset_processing.",
    )


def start_asset_processing(v: Vocabulary) -> Tool:
    return _changes(
        "start_asset_processing",
        "Start making an asset",
        "Start making a PENDING asset: IN_PROGRESS.",
        {"assetId": v.id_arg("asset")},
        ["assetId"],
        lambda tx, a: assets.start_asset_processing(tx, a["assetId"]),
        "When it is made, call complete_asset_processing with its content.",
    )


def complete_asset_processing(v: Vocabulary) -> Tool:
    return _changes(
        "complete_asset_processing",
        "Deliver an asset",
        "Finish an IN_PROGRESS asset: READY, with its content.",
        {
            "assetId": v.id_arg("asset"),
            "content": nullable(v.large_text("The asset itself")),
            "mediaType": nullable(v.short_text("How the content is written; replaces the proposed one")),
        },
        ["assetId"],
        lambda tx, a: assets.complete_asset_processing(
            tx, a["assetId"], a.get("content"), a.get("mediaType")
        ),
        "The asset is ready.",
    )


def fail_asset(v: Vocabulary) -> Tool:
    return _changes(
        "fail_asset",
        "Report an asset failed",
        "Making an IN_PROGRESS asset failed, or a READY one is corrupt: ERROR, with the reason.",
        {"assetId": v.id_arg("asset"), "reason": _reason(v)},
        ["assetId", "reason"],
        lambda tx, a: assets.fail_asset(tx, a["assetId"], a["reason"]),
        "retry_asset takes it back to IN_PROGRESS.",
        destructive=True,
    )


def retry_asset(v: Vocabulary) -> Tool:
    return _changes(
        "retry_asset",
        "Retry an asset in ERROR",
        "An asset in ERROR goes back: to PROPOSED if a person rejected it, else to IN_PROGRESS.",
        {"assetId": v.id_arg("asset")},
        ["assetId"],
        lambda tx, a: assets.retry_asset(tx, a["assetId"]),
        "Make it again (IN_PROGRESS), or wait for a person to accept it (PROPOSED).",
    )


def cancel_hop(v: Vocabulary) -> Tool:
    return _changes(
        "cancel_hop",
        "Cancel a hop",
        "Cancel an unfinished hop: CANCELLED with its unfinished tool steps, the mission APPROVED again.",
        {"hopId": v.id_arg("hop"), "reason": _reason(v)},
        ["hopId", "reason"],
        lambda tx, a: proposals.cancel_hop(tx, a["hopId"], a["reason"]),
        "The agent may propose_hop again.",
        Access.DECIDE,
        destructive=True,
    )


def cancel_mission(v: Vocabulary) -> Tool:
    return _changes(
        "cancel_mission",
        "Cancel a mission",
        "Cancel an unfinished mission: CANCELLED with the reason, with its hop in progress and that "
        "hop's unfinished tool steps; cannot be undone.",
        {"missionId": v.id_arg("mission"), "reason": _reason(v)},
        ["missionId", "reason"],
        lambda tx, a: proposals.cancel_mission(tx, a["missionId"], a["reason"]),
        "Nothing more happens on this mission.",
        Access.DECIDE,
        destructive=True,
    )


# The toolset, in the order tools/list shows it.
MISSION_TOOLS: tuple[ToolSpec, ...] = (
    get_mission,
    register_tool,
    propose_mission,
    propose_hop,
    propose_hop_implementation,
    select_tool,
    configure_tool_step,
    start_hop,
    complete_tool_step,
    fail_tool_step,
    retry_tool_step,
    propose_asset,
    start_asset_processing,
    complete_asset_processing,
    fail_asset,
    retry_asset,
    cancel_hop,
    cancel_mission,
)


def mission_tools(settings: Settings) -> list[Tool]:
    return table(Toolset.MISSIONS, MISSION_TOOLS, Vocabulary.of(settings))
