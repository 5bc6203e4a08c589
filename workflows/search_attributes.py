"""The search attributes tagging a run with its session, root and agent. See docs/modules.md."""

from __future__ import annotations

from uuid import UUID

from temporalio.common import SearchAttributeKey, SearchAttributePair, TypedSearchAttributes

SESSION_ID = SearchAttributeKey.for_keyword("RathSessionId")
ROOT_SESSION_ID = SearchAttributeKey.for_keyword("RathRootSessionId")
AGENT = SearchAttributeKey.for_keyword("RathAgent")


def search_attributes(session_id: UUID, root_id: UUID, agent: str) -> TypedSearchAttributes:
    """The search attributes that make a run findable by session, tree and agent."""
    return TypedSearchAttributes(
        [
            SearchAttributePair(SESSION_ID, str(session_id)),
            SearchAttributePair(ROOT_SESSION_ID, str(root_id)),
            SearchAttributePair(AGENT, agent),
        ]
    )
