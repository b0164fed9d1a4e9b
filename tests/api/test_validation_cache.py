"""A repeated operation is parsed and validated once: the limits must not defeat the caches."""

from __future__ import annotations

from server.api.operation_hooks import cached_parse, cached_validate
from server.api.schema import build_schema
from server.config import Settings


async def test_the_same_document_is_parsed_and_validated_once_then_served_from_the_caches() -> None:
    schema = build_schema(Settings(max_query_depth=4))
    query = "query CacheProbe { __typename }"
    await schema.execute(query)
    before = (cached_parse.cache_info(), cached_validate.cache_info())  # type: ignore[attr-defined]
    for _ in range(5):
        result = await schema.execute(query)
        assert result.errors is None
    after = (cached_parse.cache_info(), cached_validate.cache_info())  # type: ignore[attr-defined]
    for old, new in zip(before, after, strict=True):
        assert new.hits - old.hits == 5
        assert new.misses == old.misses


async def test_a_document_over_the_token_limit_is_refused_every_time_and_never_cached() -> None:
    schema = build_schema(Settings(max_tokens=20))
    query = "{ " + " ".join(f"a{i}: __typename" for i in range(20)) + " }"
    size = cached_parse.cache_info().currsize  # type: ignore[attr-defined]
    for _ in range(2):
        result = await schema.execute(query)
        assert result.errors
        assert "more than 20 tokens" in result.errors[0].message
    assert cached_parse.cache_info().currsize == size  # type: ignore[attr-defined]


async def test_the_cached_validation_still_applies_the_depth_limit() -> None:
    schema = build_schema(Settings(max_query_depth=1))
    deep = "{ researchPlans { edges { node { id } } } }"
    for _ in range(2):  # the second answer comes from the cache and must refuse just the same
        result = await schema.execute(deep)
        assert result.errors
        assert "maximum operation depth" in result.errors[0].message
