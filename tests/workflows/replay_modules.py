"""The user ``Workflow`` modules the replay fixtures ran, and the fake model that answered them.

``record_histories.py`` (at any commit) and ``test_replay.py`` both import this file as the
top-level module ``replay_modules`` (``tests/workflows`` is on the path), so a recorded
``rath.Forward`` names the target ``replay_modules:ReplaySquad`` and the replayer finds the
same class. Keep it importable by old code too: only ``rath.flow``, ``rath.session`` and
``rath.testing``, names that exist at every recorded commit. Changing ``forward`` changes
the commands a replay expects: re-record (and keep the old files only if they still replay).
"""

from __future__ import annotations

from rath import flow
from rath.session import Session
from rath.testing import RecordedRequest, Reply, text_reply, tool_call_reply

WRITER_PROMPT = "Write notes.txt with a tool, then say done."
REVIEWER_PROMPT = "Review the task."


class ReplaySquad(flow.Workflow):
    """Two agents on forks of the input, merged: the writer uses a tool, the reviewer does not."""

    def __init__(self, provider: flow.Provider) -> None:
        super().__init__()
        self.writer = flow.Agent(WRITER_PROMPT, provider=provider)
        self.reviewer = flow.Agent(REVIEWER_PROMPT, provider=provider)

    def forward(self, session: Session) -> Session:
        """Fork the input to both agents (they run concurrently) and merge their outputs."""
        written = self.writer(session.fork())
        reviewed = self.reviewer(session.fork())
        return written.merge(reviewed)


def squad_model(request: RecordedRequest) -> Reply:
    """The fake model for :class:`ReplaySquad`: replies chosen by who asks, not by order."""
    first = request.messages[0] if request.messages else {}
    system = str(first.get("content", ""))
    if WRITER_PROMPT in system:
        if any(message.get("role") == "tool" for message in request.messages):
            return text_reply("done")
        return tool_call_reply(("write_workspace_file", {"path": "notes.txt", "content": "n"}))
    return text_reply("looks fine")
