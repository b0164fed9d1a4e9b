"""The layer table: each layer is the difference of two parts' medians, and the table shows them all."""

from __future__ import annotations

import pytest

from bench.layers import layers, postgres_layers, table


def test_each_layer_is_the_difference_of_two_parts() -> None:
    medians = {
        "sql": 200.0,
        "services": 550.0,
        "flightdeck": 1_100.0,
        "mutations": 300.0,
        "mutations_sql": 800.0,
    }
    assert layers(medians) == {
        "sql": 200.0,
        "unit_of_work_python": 350.0,
        "request_and_graphql": 550.0,
        "stock_request_and_graphql": 300.0,
        "transition": 1_100.0,
        "mutation_floor": 500.0,
        "mutation_floor_in_one_process": 800.0,
        "sharing_one_process": 300.0,
        "above_the_floor_in_one_process": 300.0,
    }


def test_the_table_shows_every_part_with_its_range_and_every_layer_with_its_share() -> None:
    runs = {
        "sql": [190.0, 200.0, 230.0],
        "services": [500.0, 550.0, 600.0],
        "flightdeck": [1_000.0, 1_100.0, 1_300.0],
        "mutations": [280.0, 300.0, 310.0],
        "mutations_sql": [700.0, 800.0, 900.0],
    }
    counted = {"sql": 1.3e6, "services": 2.2e6, "flightdeck": 3.7e6, "mutations": 1.7e6, "mutations_sql": 3e6}
    text = table(runs, counted)
    assert "| flightdeck | 1,100 | 1,000 to 1,300 | 3.700 |" in text
    assert "| unit_of_work_python | 350 | 0.32 |" in text
    assert "| mutation_floor | 500 | 0.45 |" in text
    assert "| sharing_one_process | 300 | 0.27 |" in text
    assert "M instructions" not in table(runs)


def test_a_part_missing_from_the_runs_is_an_error() -> None:
    with pytest.raises(KeyError):
        layers({"sql": 1.0, "services": 2.0, "flightdeck": 3.0, "mutations": 1.0})


def test_with_postgresql_the_table_adds_its_layers_with_the_backends_apart() -> None:
    runs = {
        "sql": [200.0],
        "services": [550.0],
        "flightdeck": [1_100.0],
        "mutations": [300.0],
        "mutations_sql": [800.0],
        "services_postgres": [1_500.0],
        "services_postgres_database": [700.0],
        "flightdeck_postgres": [2_400.0],
        "flightdeck_postgres_database": [800.0],
    }
    assert postgres_layers({part: values[0] for part, values in runs.items()}) == {
        "unit_of_work_python": 1_500.0,
        "over_sqlites_unit_of_work": 950.0,
        "request_and_graphql": 900.0,
        "server_process": 2_400.0,
        "database_backends": 800.0,
        "transition": 3_200.0,
    }
    text = table(
        runs, {"sql": 1.3e6, "services": 2.2e6, "flightdeck": 3.7e6, "mutations": 1.7e6, "mutations_sql": 3e6}
    )
    assert "| flightdeck_postgres | 2,400 | 2,400 to 2,400 | |" in text
    assert "| PostgreSQL layer | CPU µs | share of the transition |" in text
    assert "| database_backends | 800 | 0.25 |" in text
