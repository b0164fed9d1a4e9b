"""schema.graphql at the repository root is what the code exports (DESIGN.md: a test fails when stale)."""

from __future__ import annotations

from pathlib import Path

from server.api.schema import build_schema
from server.config import Settings

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "schema.graphql"


def test_schema_graphql_matches_the_schema_the_code_builds() -> None:
    # `flightdeck export-schema` prints as_str() without its trailing newline and echo adds one back.
    exported = build_schema(Settings()).as_str().rstrip()
    assert SCHEMA_FILE.is_file(), f"{SCHEMA_FILE} is missing: run `make schema`"
    committed = SCHEMA_FILE.read_text(encoding="utf-8").rstrip()
    assert committed == exported, "schema.graphql is stale: run `make schema` and commit the result"
