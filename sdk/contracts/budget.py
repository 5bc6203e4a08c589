"""A run's budget across Temporal: limits, asks, grants and its failure. See docs/modules.md."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from rath.budget import Budget, Spent
from rath.session.session import Session
from rath.utils.frozen import Frozen

if TYPE_CHECKING:
    from temporalio.exceptions import ApplicationError

ASK_SIGNAL = "rath.budget_ask"
"""The signal an agent run sends its parent: a :class:`BudgetAsk`."""
GRANT_SIGNAL = "rath.budget_grant"
"""The signal the parent answers with: a :class:`BudgetGrant`."""
BUDGET_EXCEEDED = "BudgetExceeded"
"""The failure type of a run that ended over budget."""


def budget_exceeded(who: str, reason: str, session: Session) -> ApplicationError:
    """The failure that ends a run over budget; ``session`` (the transcript so far) rides along."""
    from temporalio.exceptions import (
        ApplicationError,  # deferred, for cost: values load no Temporal
    )

    return ApplicationError(
        f"{who} stopped: budget exceeded ({reason}); the transcript so far is kept",
        session,
        type=BUDGET_EXCEEDED,
        non_retryable=True,
    )


def exceeded_session(failure: BaseException | None) -> tuple[str, Session] | None:
    """The message and transcript so far of a ``BudgetExceeded`` failure (``None`` otherwise)."""
    from temporalio.exceptions import (
        ApplicationError,  # deferred, for cost: values load no Temporal
    )

    while failure is not None:
        if isinstance(failure, ApplicationError) and failure.type == BUDGET_EXCEEDED:
            details: Any = failure.details
            session = Session.model_validate(details[0]) if details else None
            return (failure.message, session) if session is not None else None
        failure = getattr(failure, "cause", None) or failure.__cause__
    return None


class BudgetGate(Frozen):
    """What an agent run enforces (its input's ``budget``)."""

    own: Budget | None = None
    deadline_at: datetime | None = None
    tree: bool = False

    def started(self, now: datetime) -> BudgetGate:
        """This gate with the own deadline made absolute (kept across continue-as-new)."""
        if self.own is None or self.own.deadline_seconds is None:
            return self
        own_deadline = now + timedelta(seconds=self.own.deadline_seconds)
        deadline = min(own_deadline, self.deadline_at or own_deadline)
        own = self.own.model_copy(update={"deadline_seconds": None})
        return self.model_copy(update={"own": own, "deadline_at": deadline})


class BudgetAsk(Frozen):
    """An agent run asking its parent whether the tree has room for another LLM call."""

    child_id: str
    seq: int
    spent: Spent


class BudgetGrant(Frozen):
    """The parent's answer: ``refused`` says why not; ``tool_calls_left`` for the tree."""

    seq: int
    refused: str | None = None
    tool_calls_left: int | None = None
