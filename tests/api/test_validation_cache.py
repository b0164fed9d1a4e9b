"""A repeated operation is validated once: the limits must not defeat Strawberry's validation cache."""

from __future__ import annotations

from strawberry.extensions.validation_cache import _get_validate_cache

from server.api.schema import VALIDATION_CACHE_SIZE, build_schema
from server.config import Settings


async def test_the_same_document_is_validated_once_and_then_served_from_the_cache() -> None:
    schema = build_schema(Settings(max_query_depth=4))
    cache = _get_validate_cache(VALIDATION_CACHE_SIZE)
    query = "query CacheProbe { __typename }"
    await schema.execute(query)
    before = cache.cache_info()
    for _ in range(5):
        result = await schema.execute(query)
        assert result.errors is None
    after = cache.cache_info()
    assert after.hits - before.hits == 5
    assert after.misses == before.misses


async def test_the_cached_validation_still_applies_the_depth_limit() -> None:
    schema = build_schema(Settings(max_query_depth=1))
    deep = "{ researchPlans { edges { node { id } } } }"
    for _ in range(2):  # the second answer comes from the cache and must refuse just the same
        result = await schema.execute(deep)
        assert result.errors
        assert "maximum operation depth" in result.errors[0].message
