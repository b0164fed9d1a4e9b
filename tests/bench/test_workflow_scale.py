"""The workflow-size benchmark drains a small workflow through the real services."""

from __future__ import annotations

from bench import workflow_scale


async def test_the_benchmark_claims_and_completes_every_step(db_url: str) -> None:
    # pair_ms asserts each claim hands out a step; with 3 steps it times 3 pairs and drains the workflow.
    median = await workflow_scale.pair_ms(db_url, 3)
    assert 0 < median < 60_000
