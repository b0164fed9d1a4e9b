"""The Relay ``Node`` interface: every object with a stable id, refetchable through ``node(id:)``."""

from __future__ import annotations

import strawberry

from .descriptions import ID


@strawberry.interface(
    description="An object with a stable, globally unique id. `node(id:)` and `nodes(ids:)` refetch any "
    "of them, so Relay and normalized caches can update what they hold. Ids are plain UUIDs."
)
class Node:
    id: strawberry.ID = strawberry.field(description=ID)
