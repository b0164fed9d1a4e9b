"""Role checks on mutation fields (DESIGN.md rule 8)."""

from __future__ import annotations

from typing import Any

from strawberry.permission import BasePermission
from strawberry.types import Info

from .context import Context


class CanDrive(BasePermission):
    """Agent mutations: the agent and admin roles."""

    message = "this key's role may not drive plans or missions (needs agent or admin)"
    error_extensions = {"code": "FORBIDDEN"}

    def has_permission(self, source: Any, info: Info[Context, Any], **kwargs: Any) -> bool:
        return info.context.principal.can_drive


class CanDecide(BasePermission):
    """User decisions (reviews, approvals, rejections): the reviewer and admin roles."""

    message = "only reviewer or admin keys may take user decisions"
    error_extensions = {"code": "FORBIDDEN"}

    def has_permission(self, source: Any, info: Info[Context, Any], **kwargs: Any) -> bool:
        return info.context.principal.can_decide
