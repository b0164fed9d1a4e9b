"""The README's configuration table names every setting the server reads."""

from __future__ import annotations

from pathlib import Path

from server.config import Settings

README = Path(__file__).resolve().parent.parent / "README.md"


def test_every_setting_is_in_the_readme_configuration_table() -> None:
    text = README.read_text()
    missing = [name for name in Settings.model_fields if f"`FLIGHTDECK_{name.upper()}`" not in text]
    assert not missing, f"add these settings to README.md's Configuration table: {missing}"


def test_readme_shows_the_two_commands() -> None:
    text = README.read_text()
    assert "make run" in text
    assert "make test" in text


def test_every_graphql_operation_in_the_tour_is_valid_against_the_schema() -> None:
    from graphql import parse, validate

    from server.api.schema import build_schema

    schema = build_schema(Settings())._schema
    blocks = README.read_text().split("```graphql\n")[1:]
    documents = [b.split("```", 1)[0] for b in blocks]
    assert len(documents) >= 8
    for document in documents:
        errors = validate(schema, parse(document))
        assert not errors, f"{errors}\n{document}"
