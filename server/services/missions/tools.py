"""Tools and their declared parameter schemas (JSON Schema, checked by json_schemas with jsonschema).

A tool is registered once per tenant by name (``registerTool``; registering the name again replaces
its description and schema). A tool step's parameters are validated against the schema in force when
the step is configured, before it may become READY_TO_EXECUTE. Both checks run off the event loop, on
RE2 patterns and within ``schema_check_steps`` (see json_schemas).
"""

from __future__ import annotations

import uuid
from typing import Any, cast

from sqlalchemy import Table, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from ...db.mission_models import Tool
from ...echo import shown
from ...errors import not_found
from ...events.mission_kinds import MissionEvent
from ...limits import SHORT_TEXT
from .. import json_schemas
from ..runtime import Tx
from ..validation import Problems, check_json_size, check_text
from .inputs import NewTool

TOOLS = cast(Table, Tool.__table__)


async def check_parameters(tx: Tx, tool: Tool, parameters: Any, field: list[str], problems: Problems) -> None:
    if not isinstance(parameters, dict):
        problems.add(f"{'.'.join(field)} must be a JSON object", field)
        return
    steps = tx.settings.schema_check_steps
    found = await json_schemas.value_problems(tool.parameter_schema, parameters, ".".join(field), steps)
    for path, message in found:
        where = [*field, *path]
        problems.add(f"{'.'.join(where)} does not match tool {shown(tool.name)}'s schema: {message}", where)


async def tool_named(tx: Tx, name: str, field: list[str]) -> Tool:
    tool = await tx.session.scalar(select(Tool).where(Tool.tenant_id == tx.tenant_id, Tool.name == name))
    if tool is None:
        raise not_found("tool", shown(name), field)
    return tool


async def register_tool(tx: Tx, new: NewTool) -> Tool:
    problems = Problems()
    problems.check(check_text, new.name, ["name"], SHORT_TEXT, required=True)
    problems.check(check_text, new.description, ["description"], tx.settings.max_text_bytes)
    problems.check(check_json_size, new.parameter_schema, ["parameterSchema"], tx.settings.max_schema_bytes)
    if not any(p.field == ["parameterSchema"] for p in problems.items):  # not too large to check
        steps = tx.settings.schema_check_steps
        for message in await json_schemas.schema_problems(new.parameter_schema, "parameterSchema", steps):
            problems.add(message, ["parameterSchema"])
    problems.raise_if_any()

    # One statement, so that two agents registering the same name at once both succeed (last one wins).
    make_insert = pg_insert if tx.runtime.db.dialect == "postgresql" else sqlite_insert
    values = {"description": new.description, "parameter_schema": new.parameter_schema, "updated_at": tx.now}
    upsert = (
        make_insert(TOOLS)
        .values(id=str(uuid.uuid4()), tenant_id=tx.tenant_id, name=new.name, created_at=tx.now, **values)
        .on_conflict_do_update(index_elements=[TOOLS.c.tenant_id, TOOLS.c.name], set_=values)
        .returning(TOOLS.c.id)
    )
    tool_id = (await tx.session.execute(upsert)).scalar_one()
    tool = await tx.session.get(Tool, tool_id, populate_existing=True)
    assert tool is not None
    tx.events.record(
        MissionEvent.TOOL_REGISTERED,
        entity_type="tool",
        entity_id=tool.id,
        root_type="tool",
        root_id=tool.id,
        data={"name": tool.name, "parameterSchema": tool.parameter_schema},
    )
    return tool
