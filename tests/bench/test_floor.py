"""The floor benchmark: its servers answer, every part is measured in every round, and the floor
is reported beside the transition's CPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import floor
from server.db.migrate import upgrade


# Five servers start and each part runs twice: minutes on a loaded machine.
@pytest.mark.timeout(900)
def test_one_short_round_measures_every_part(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'floor.db'}"
    upgrade(url)
    result = floor.measure(url, 20, rounds=2, seconds=0.5)
    parts = (
        "starlette",
        "strawberry",
        "flightdeck_typename",
        "transition",
        "strawberry_mutations",
        "strawberry_mutations_sql",
        "sql",
    )
    for part in parts:
        figure = result[f"{part}_cpu_us"]
        assert 0 < figure["min"] <= figure["median"] <= figure["max"], (part, figure)
    assert result["transition_transitions_per_second"]["min"] > 0
    floor_us = result["floor_cpu_us"]["median"]
    assert floor_us > result["sql_cpu_us"]["median"]
    assert result["fraction_of_floor"]["min"] > 0
    # The stock app's canned mutations answered the same agents; the mutation floor adds the SQL.
    assert result["strawberry_mutations_transitions_per_second"]["min"] > 0
    assert result["mutation_floor_cpu_us"]["median"] > result["sql_cpu_us"]["median"]
    assert result["fraction_of_mutation_floor"]["min"] > 0
    # The same app with the raw SQL in its resolvers, in one process: every plan walked as by the agents.
    assert result["strawberry_mutations_sql_transitions_per_second"]["min"] > 0
    assert result["fraction_of_one_process_floor"]["min"] > 0
    assert "| transition_cpu_us |" in floor.table(result)
