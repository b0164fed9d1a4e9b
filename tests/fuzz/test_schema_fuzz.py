"""Property-based fuzzing over the whole schema: every query and mutation, valid and invalid operations.

Operations come from hypothesis-graphql (valid ones, and invalid ones with one schema violation each),
with scalars that reach past the first check (see strategies.py). Root fields take turns, so every
query and mutation is sent. Each answer must be a 4xx or a 200, JSON, never ``"Unexpected error."``;
a refusal (a request error, an auth error or a userError) must leave every table as it was, and so
must a query; no request may cost the server a second of CPU. A probe asks for /healthz and ``latestSeq``
all along and must be answered (how slowly is a figure: on a loaded machine it is the scheduler's).

Generation only (no shrinking, no example database): every failure is recorded with the exact request,
and the module writes its figures to test-artifacts/fuzz/.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
from pathlib import Path

import graphql
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis_graphql import Mode, mutations, queries

from .harness import Harness, HealthProbe, Tally, fuzz_examples
from .strategies import aim_ids, as_request, keep, scalars
from .target import Target

SCHEMA = graphql.build_schema((Path(__file__).resolve().parents[2] / "schema.graphql").read_text())
# Budget: about this many operations per target in `make test`; FLIGHTDECK_FUZZ_EXAMPLES for more.
EXAMPLES = {"dev": 150, "key": 75}
NEGATIVE_SHARE = 8  # invalid operations get as many examples as eight root fields


def _strategies(pool: list[str]) -> list[tuple[str, st.SearchStrategy[graphql.DocumentNode]]]:
    """(kind, strategy): one per root field, then the invalid operations."""
    custom = scalars(pool)
    assert SCHEMA.mutation_type is not None
    assert SCHEMA.query_type is not None
    found = [
        ("mutation", mutations(SCHEMA, fields=[f], custom_scalars=custom, print_ast=keep))
        for f in SCHEMA.mutation_type.fields
    ]
    found += [
        ("query", queries(SCHEMA, fields=[f], custom_scalars=custom, print_ast=keep))
        for f in SCHEMA.query_type.fields
    ]
    negative = st.one_of(
        mutations(SCHEMA, custom_scalars=custom, print_ast=keep, mode=Mode.NEGATIVE),
        queries(SCHEMA, custom_scalars=custom, print_ast=keep, mode=Mode.NEGATIVE),
    )
    return [*found, ("negative", negative)]


def _fuzz(harness: Harness, examples: int, run_seed: int) -> None:
    """Each root field in turn (so every one is sent), then invalid operations: one Hypothesis run each."""
    target = harness.target
    with asyncio.Runner() as runner:
        runner.run(harness.__aenter__())
        sent = itertools.count()

        def send(kind: str, strategy: st.SearchStrategy[graphql.DocumentNode], n: int) -> None:
            @seed(run_seed)
            @settings(
                max_examples=n,
                phases=[Phase.generate],
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
            @given(document=strategy)
            def one_operation(document: graphql.DocumentNode) -> None:
                # Choices Hypothesis need not make (it would lean towards the first of each): who sends
                # it, literals or variables, which ids to aim. Seeded, so a run can be repeated.
                dice = random.Random(f"{run_seed}:{next(sent)}")
                # Invalid operations stay literals: a variable's JSON can be valid where the literal
                # is not (1.0e3 is no ID literal, but the JSON number 1000 is an integer ID).
                who, hoist = dice.choice(target.credentials), kind != "negative" and dice.random() < 0.5
                document = aim_ids(document, harness.ids_by_kind, dice)
                runner.run(harness.send(as_request(SCHEMA, kind, document, hoist, who)))

            one_operation()

        strategies = _strategies(harness.id_pool)
        each = max(1, examples // (len(strategies) + NEGATIVE_SHARE - 1))
        try:
            for kind, strategy in strategies:
                send(kind, strategy, each * NEGATIVE_SHARE if kind == "negative" else each)
        finally:
            runner.run(harness.__aexit__(None, None, None))


async def test_generated_operations_never_crash_and_refusals_write_nothing(
    target: Target, tmp_path: Path
) -> None:
    run_seed = int(os.environ.get("FLIGHTDECK_FUZZ_SEED", random.randrange(2**32)))
    tally = Tally(target.name, seed=run_seed)
    harness = Harness(target, tally)
    with HealthProbe(target, tmp_path / "probe.log") as probe:
        await asyncio.to_thread(_fuzz, harness, fuzz_examples(EXAMPLES[target.auth]), run_seed)
        tally.absorb(await probe.settle(), harness.during)
    print("\nschema fuzz on", tally.headline(tally.write("schema")))

    assert not tally.probe_failures, tally.probe_failures
    assert not tally.unexplained, tally.explain()
    if tally.failures:
        pytest.xfail(tally.explain())
