"""The README is the front door and the documentation site's reference pages say what the code does: the
settings page names every setting the server reads, each generated page is current, and every GraphQL
operation the README or a docs page shows is valid against the schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.config import Settings
from server.reference_docs import PAGES

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SETTINGS_PAGE = DOCS / "reference" / "settings.md"


def documentation() -> list[Path]:
    """The README and every page of the documentation site."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def table_rows(page: Path) -> list[list[str]]:
    rows = [line for line in page.read_text().splitlines() if line.startswith("| `")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


@pytest.mark.parametrize("name", sorted(PAGES))
def test_each_generated_reference_page_is_what_the_code_renders(name: str) -> None:
    page = DOCS / "reference" / name
    assert page.exists(), f"docs/reference/{name} is missing: run `make docs` and commit it"
    assert page.read_text() == PAGES[name](), f"docs/reference/{name} is stale: run `make docs` and commit it"


def test_every_setting_is_in_the_settings_reference_with_its_file_key() -> None:
    table = {
        variable: key
        for variable, key, *_ in table_rows(SETTINGS_PAGE)
        if "_URL" in variable or "FLIGHTDECK_" in variable
    }
    missing = [
        name
        for name in Settings.model_fields
        if not any(f"`FLIGHTDECK_{name.upper()}`" in v and k == f"`{name}`" for v, k in table.items())
    ]
    assert not missing, (
        f"these settings (variable and file key) are not in docs/reference/settings.md: {missing}"
    )
    unknown = [k for k in table.values() if k.strip("`") not in Settings.model_fields]
    assert not unknown, f"docs/reference/settings.md names file keys that are no settings: {unknown}"
    described = [cells[1] for cells in table_rows(SETTINGS_PAGE) if not cells[4]]
    assert not described, f"settings without a meaning (give the Field a description): {described}"


def test_readme_shows_the_two_commands_and_stays_a_front_door() -> None:
    text = README.read_text()
    assert "make run" in text
    assert "make test" in text
    lines = len(text.splitlines())
    assert lines <= 300, f"README.md has {lines} lines: move the detail to a page of docs/ and link it"


def test_every_graphql_operation_in_the_documentation_is_valid_against_the_schema() -> None:
    from graphql import parse, validate

    from server.api.schema import build_schema

    schema = build_schema(Settings())._schema
    documents = [
        (page, block.split("```", 1)[0])
        for page in documentation()
        for block in page.read_text().split("```graphql\n")[1:]
    ]
    assert len(documents) >= 40
    for page, document in documents:
        errors = validate(schema, parse(document))
        assert not errors, f"{page.relative_to(ROOT)}: {errors}\n{document}"
