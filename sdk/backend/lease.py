"""``Lease``: one sandbox's record (where it lives, who owns it, who holds it), as plain data.

A value module: the ``rath.CloseSandbox`` workflow takes one as input; the registry that reads
and writes them is :class:`~rath.backend.persistence.leases.LeaseRegistry`.
"""

from __future__ import annotations

from uuid import UUID

from pydantic import BaseModel


class Lease(BaseModel):
    """One sandbox's record: where it lives, who owns it, who holds it."""

    sandbox_id: UUID
    backend: str
    workspace: str | None = None
    allocated: bool = False
    owner: str | None = None
    holders: list[str] = []
