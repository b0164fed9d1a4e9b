"""Per-request data loaders of the missions domain: children of many parents in one query each."""

from __future__ import annotations

from strawberry.dataloader import DataLoader

from ...db.mission_models import Asset, Hop, ToolStep
from ...services.missions import queries as mission_queries
from ...services.runtime import Runtime


class MissionLoaders:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.hops: DataLoader[str, list[Hop]] = DataLoader(load_fn=self._hops, cache=False)
        self.tool_steps: DataLoader[str, list[ToolStep]] = DataLoader(load_fn=self._tool_steps, cache=False)
        self.assets: DataLoader[str, list[Asset]] = DataLoader(load_fn=self._assets, cache=False)

    async def _hops(self, mission_ids: list[str]) -> list[list[Hop]]:
        async with self.runtime.db.reader() as session:
            return await mission_queries.hops_by_mission(session, mission_ids)

    async def _tool_steps(self, hop_ids: list[str]) -> list[list[ToolStep]]:
        async with self.runtime.db.reader() as session:
            return await mission_queries.steps_by_hop(session, hop_ids)

    async def _assets(self, mission_ids: list[str]) -> list[list[Asset]]:
        async with self.runtime.db.reader() as session:
            return await mission_queries.assets_by_mission(session, mission_ids)
