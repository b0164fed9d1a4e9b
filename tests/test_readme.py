"""The README's configuration table names every setting the server reads."""

from __future__ import annotations

from pathlib import Path

from server.config import Settings

README = Path(__file__).resolve().parent.parent / "README.md"


def test_every_setting_is_in_the_readme_configuration_table_with_its_file_key() -> None:
    rows = [line for line in README.read_text().splitlines() if line.startswith("| `")]
    cells = [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]
    table = {variable: key for variable, key, *_ in cells if "FLIGHTDECK_" in variable or "_URL" in variable}
    missing = [
        name
        for name in Settings.model_fields
        if not any(f"`FLIGHTDECK_{name.upper()}`" in v and k == f"`{name}`" for v, k in table.items())
    ]
    assert not missing, (
        f"add these settings (variable and file key) to README.md's Configuration table: {missing}"
    )
    unknown = [k for k in table.values() if k.strip("`") not in Settings.model_fields]
    assert not unknown, f"README.md's Configuration table names file keys that are no settings: {unknown}"


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
