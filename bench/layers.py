"""A transition's CPU by layer, in one process: what the SQL, the unit of work and the request take.

``python -m bench.layers [--repeats K] [--rounds N] [--plans P]`` runs five parts of
``bench.in_process`` K times each, interleaved, every run a process and a SQLite file of its own, and
prints each part's CPU per transition (median and range of the K runs, each from its rounds 2 to N):

- ``sql``: the transitions' statements in raw ``sqlite3``: the floor's SQL;
- ``services``: the same transitions through the services in ``unit_of_work`` transactions (the engine,
  the machines, the event log, decisions), without GraphQL or a request layer;
- ``flightdeck``: the whole app through ASGI, as ``flightdeck serve`` runs it;
- ``mutations``: the stock Strawberry app answering the same requests with canned objects: the
  libraries' floor for the request and GraphQL part;
- ``mutations_sql``: that app with the raw SQL run in its resolvers: the libraries and the statements in
  one process, sharing its caches as any implementation of these requests on this stack does.

Then the layers, from the medians: the SQL; the unit of work's Python (``services`` less ``sql``); the
request and GraphQL part (``flightdeck`` less ``services``) beside the stock app's (``mutations``); the
mutation floor measured apart (``mutations`` plus ``sql``) and in one process (``mutations_sql``), whose
difference is what the two parts cost each other by sharing the core's caches; and the transition over
the floor in one process. No socket: what HTTP adds is the floor bench's (``python -m bench --only
floor``). With ``--instructions`` each part is also counted in instructions under cachegrind
(``bench.instructions``, minutes a part), which hold on a busy machine.

``--postgres-url URL`` (a database of the bench's own: each run empties it) adds ``services`` and
``flightdeck`` on PostgreSQL, with its backends' CPU per transition, and their layers: the unit of work's
Python there beside SQLite's (what the asyncpg path costs the process over the inline SQLite writer),
the request and GraphQL part, and the transition's CPU with the backends'.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from typing import Any

PARTS = ("sql", "services", "flightdeck", "mutations", "mutations_sql")
POSTGRES_PARTS = ("services", "flightdeck")  # ``<part>_postgres`` in the runs


def _run(module: str, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{module} {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    reply: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return reply


def measure(repeats: int, rounds: int, plans: int, postgres_url: str | None = None) -> dict[str, list[float]]:
    """Each part's CPU µs per transition, one figure a run, the parts interleaved; with a PostgreSQL
    database, its parts' too (``<part>_postgres``) and their backends' (``<part>_postgres_database``)."""
    parts = [(part, ()) for part in PARTS]
    if postgres_url:
        parts += [(f"{part}_postgres", ("--database-url", postgres_url)) for part in POSTGRES_PARTS]
    runs: dict[str, list[float]] = {name: [] for name, _ in parts}
    for number in range(repeats):
        for name, extra in parts if number % 2 == 0 else list(reversed(parts)):
            part = name.removesuffix("_postgres")
            figures = _run(
                "bench.in_process", "--app", part, "--rounds", str(rounds), "--plans", str(plans), *extra
            )
            runs[name].append(float(figures["cpu_us_per_request"]))
            if extra:
                runs.setdefault(f"{name}_database", []).append(float(figures["database_cpu_us_per_request"]))
    return runs


def layers(medians: dict[str, float]) -> dict[str, float]:
    """The layers a transition's CPU divides into, from each part's median."""
    return {
        "sql": medians["sql"],
        "unit_of_work_python": medians["services"] - medians["sql"],
        "request_and_graphql": medians["flightdeck"] - medians["services"],
        "stock_request_and_graphql": medians["mutations"],
        "transition": medians["flightdeck"],
        "mutation_floor": medians["mutations"] + medians["sql"],
        "mutation_floor_in_one_process": medians["mutations_sql"],
        "sharing_one_process": medians["mutations_sql"] - medians["mutations"] - medians["sql"],
        "above_the_floor_in_one_process": medians["flightdeck"] - medians["mutations_sql"],
    }


def postgres_layers(medians: dict[str, float]) -> dict[str, float]:
    """The PostgreSQL transition's layers, from the medians (server process and backends apart)."""
    return {
        "unit_of_work_python": medians["services_postgres"],
        "over_sqlites_unit_of_work": medians["services_postgres"] - medians["services"],
        "request_and_graphql": medians["flightdeck_postgres"] - medians["services_postgres"],
        "server_process": medians["flightdeck_postgres"],
        "database_backends": medians["flightdeck_postgres_database"],
        "transition": medians["flightdeck_postgres"] + medians["flightdeck_postgres_database"],
    }


def table(runs: dict[str, list[float]], counted: dict[str, float] | None = None) -> str:
    medians = {part: statistics.median(values) for part, values in runs.items()}
    lines = ["| part | CPU µs a transition, median | range |" + (" M instructions |" if counted else "")]
    lines.append("|---|---|---|" + ("---|" if counted else ""))
    for part, values in runs.items():
        row = f"| {part} | {medians[part]:,.0f} | {min(values):,.0f} to {max(values):,.0f} |"
        if counted:
            row += f" {counted[part] / 1e6:.3f} |" if part in counted else " |"
        lines.append(row)
    splits = [("", layers(medians))]
    if "flightdeck_postgres" in medians:
        splits.append(("PostgreSQL ", postgres_layers(medians)))
    for title, split in splits:
        lines += ["", f"| {title}layer | CPU µs | share of the transition |", "|---|---|---|"]
        for name, value in split.items():
            lines.append(f"| {name} | {value:,.0f} | {value / split['transition']:.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each part, interleaved")
    parser.add_argument("--rounds", type=int, default=4, help="rounds of 640 transitions a run")
    parser.add_argument("--plans", type=int, default=0, help="plans loaded before each run")
    parser.add_argument("--instructions", action="store_true", help="also count each part in instructions")
    parser.add_argument("--postgres-url", help="also run services and flightdeck on this (emptied!) database")
    args = parser.parse_args()
    if args.repeats < 1 or args.rounds < 2:
        parser.error("at least one repeat and two rounds (the first warms up and is not counted)")
    runs = measure(args.repeats, args.rounds, args.plans, args.postgres_url)
    counted = None
    if args.instructions:
        counted = {
            part: float(_run("bench.instructions", "--app", part, "--plans", str(args.plans))["instructions"])
            for part in PARTS
        }
    print(json.dumps({"runs": runs, "instructions": counted}))
    print()
    print(table(runs, counted))


if __name__ == "__main__":
    main()
