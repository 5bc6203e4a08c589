"""A Rath run is legible in the Temporal Web UI, checked in a real headless Chromium.

The embedded dev server serves UI 2.54. The test runs a named agent against the fake model,
then opens the run's workflow page and checks what a person would read there. These are the
workflow id, the status, one timeline bar per activity labelled with its summary, the
static summary, and the current details set by the loop.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support import FAST, fake_provider
from ui.browser import WorkflowUI, find_chromium, frame_text

import rath
from rath import flow, run_graph
from rath.errors import RunError
from rath.runtime.devserver import ensure_server
from rath.session import Session
from rath.settings import Settings
from rath.testing import (
    FakeChatServer,
    error_reply,
    function_handler,
    text_reply,
    tool_call_reply,
)

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (dev extra)")
pytestmark = pytest.mark.skipif(
    find_chromium() is None,
    reason="chromium is not installed (run `sudo bash infra/system-deps.sh`)",
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def ui(rath_home: Path, server_address: str) -> Iterator[WorkflowUI]:
    """One headless Chromium on the embedded dev server's Web UI for this file's tests.

    Launching the browser and loading the UI's assets is most of a capture's time; the
    tests only open pages, so they share one browser (each capture opens its own URL).
    """
    with WorkflowUI(ensure_server(rath_home).ui_url) as shared:
        yield shared


def assert_png(path: Path) -> None:
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC), f"{path} is not a PNG"
    assert len(data) > 10_000, f"{path} is only {len(data)} bytes"


def test_agent_run_is_legible_in_the_web_ui(
    rath_env: Settings, ui: WorkflowUI, tmp_path: Path
) -> None:
    script = [
        tool_call_reply(("write_workspace_file", {"path": "notes.txt", "content": "hi"})),
        text_reply("Wrote notes.txt."),
    ]
    with FakeChatServer(script) as server:
        agent = flow.Agent(
            "Use tools.", provider=fake_provider(server), name="researcher", options=FAST
        )
        out = agent(Session.from_user_message("write notes").to("local", spec=tmp_path / "ws"))
        out.synchronize()
    workflow_id = out.run_id
    assert workflow_id is not None and "researcher" in workflow_id

    # The landing tab: the header, and one timeline bar per activity, labelled
    # "{activity type} • {activity summary}".
    timeline_png = tmp_path / "timeline.png"
    text = ui.capture(
        rath_env.namespace,
        workflow_id,
        expect=[
            workflow_id,
            "COMPLETED",
            "rath.SessionLoop",
            "rath.llm.complete • researcher · fake-model · round 1",
            'rath.tools.run • researcher · write_workspace_file {"path": "notes.txt"',
            "rath.llm.complete • researcher · fake-model · round 2",
            # The Result pane opens with what the run came to, then the references.
            '{ "last_reply": "Wrote notes.txt.", "rows": 4, "usage": { "prompt_tokens":',
        ],
        png_path=timeline_png,
    )
    assert_png(timeline_png)

    # User Metadata: the static summary and details and the current details, each
    # Markdown rendered in an iframe of its own. Current details are read through a
    # query, so the in-process worker must still run (it does, until the test ends). A
    # finished run's details name the agent in bold, say it is done, and end with its
    # last reply.
    metadata_png = tmp_path / "user-metadata.png"
    text = ui.capture(
        rath_env.namespace,
        workflow_id,
        expect=["Summary", "Current Details", "researcher · done ·", "Wrote notes.txt."],
        png_path=metadata_png,
        tab="user-metadata",
    )
    assert_png(metadata_png)
    summary = frame_text(text, "user-metadata-summary")
    static = " ".join(frame_text(text, "user-metadata-details").split())
    details = frame_text(text, "user-metadata-current-details")
    assert summary.startswith("researcher · fake-model"), summary
    assert "round" not in summary
    # Static details: the agent, its model, the prompt's head and the sessions.
    assert static.startswith("agent researcher model fake-model prompt Use tools."), static
    assert "input session" in static and f"output session {out.id}" in static, static
    assert details.startswith("researcher · done · "), details
    assert "output session" in details and "last reply: Wrote notes.txt." in details, details
    assert ui.blocked == []


def test_squad_run_shows_a_parent_with_a_child_per_agent(
    rath_env: Settings, ui: WorkflowUI, tmp_path: Path
) -> None:
    from squad_app import Squad, role_of

    with FakeChatServer(
        function_handler(lambda r: f"{role_of(r.messages[0]['content'])} done")
    ) as server:
        out = Squad(fake_provider(server), options=FAST)(Session.from_user_message("build"))
        out.synchronize()
    graph = run_graph(out)
    children = {node.agent: node.run_id for node in graph.nodes if node.run_id and node.agent}
    agents = ("planner", "coder_a", "coder_b", "reviewer")
    assert out.run_id is not None and set(agents) <= children.keys()

    # The parent's timeline draws one bar per child, labelled with its static summary.
    timeline_png = tmp_path / "squad-timeline.png"
    ui.capture(
        rath_env.namespace,
        out.run_id,
        expect=["rath.Forward", "COMPLETED", *(f"{agent} · fake-model" for agent in agents)],
        png_path=timeline_png,
    )
    assert_png(timeline_png)
    # Relationships lists each child workflow by id, and the ids name the agents.
    relations_png = tmp_path / "squad-relationships.png"
    ui.capture(
        rath_env.namespace,
        out.run_id,
        expect=[str(children[agent]) for agent in agents],
        png_path=relations_png,
        tab="relationships",
    )
    assert_png(relations_png)
    # The parent's own static details: the Workflow class, each agent with its model,
    # and the sessions; its current details count the agent runs done.
    metadata_png = tmp_path / "squad-user-metadata.png"
    text = ui.capture(
        rath_env.namespace,
        out.run_id,
        expect=["Summary", "Current Details", "agent runs done"],
        png_path=metadata_png,
        tab="user-metadata",
    )
    assert_png(metadata_png)
    assert ui.blocked == []
    static = " ".join(frame_text(text, "user-metadata-details").split())
    assert static.startswith("workflow Squad ("), static
    assert all(f"{agent} (fake-model" in static for agent in agents), static
    assert f"output session {out.id}" in static, static
    summary = frame_text(text, "user-metadata-summary")
    assert summary.startswith("Squad · agents: planner, coder_a, coder_b, reviewer"), summary
    # The UI's Markdown typesets "4/4" with a fraction slash (U+2044).
    done = frame_text(text, "user-metadata-current-details").replace("\u2044", "/")
    assert done.startswith("4/4 agent runs done"), done
    assert all(f"✓ {agent} {children[agent]}" in done for agent in agents), done


def test_a_waiting_run_and_a_failed_run_say_so_in_the_web_ui(
    rath_env: Settings, ui: WorkflowUI, tmp_path: Path
) -> None:
    script = [
        tool_call_reply(("write_workspace_file", {"path": "notes.txt", "content": "hi"})),
        text_reply("Wrote notes.txt."),
    ]
    with FakeChatServer(script) as server:
        careful = flow.Agent(
            "Use tools.",
            provider=fake_provider(server),
            name="careful",
            options=FAST,
            tool_policy={"write_workspace_file": "ask"},
        )
        out = careful(Session.from_user_message("write notes").to("local", spec=tmp_path / "ws"))
        assert out.run_id is not None
        server.wait_for_requests(1, timeout=30)  # the run exists before its page is opened
        # While the run waits, its current details say for what, and the command to answer.
        waiting_png = tmp_path / "waiting.png"
        text = ui.capture(
            rath_env.namespace,
            out.run_id,
            expect=["Current Details", "waiting for approval of", "rath approve"],
            png_path=waiting_png,
            tab="user-metadata",
        )
        assert_png(waiting_png)
        details = frame_text(text, "user-metadata-current-details")
        assert details.startswith("careful · waiting for approval of write_workspace_file"), details
        assert '"path": "notes.txt"' in details and f"rath approve {out.run_id}" in details
        (call,) = rath.pending_approvals(out)
        rath.approve(out, call.call_id)
        out.synchronize()
    assert (tmp_path / "ws" / "notes.txt").read_text() == "hi"

    with FakeChatServer([error_reply(404, "model fake-model does not exist")]) as server:
        failing = flow.Agent("Hi.", provider=fake_provider(server), name="doomed", options=FAST)
        failed = failing(Session.from_user_message("hello"))
        with pytest.raises(RunError):
            failed.synchronize()
    assert failed.run_id is not None
    # A failed run's current details are one line: the agent, "failed", and why.
    failed_png = tmp_path / "failed.png"
    text = ui.capture(
        rath_env.namespace,
        failed.run_id,
        expect=["Current Details", "doomed · failed:", "does not exist"],
        png_path=failed_png,
        tab="user-metadata",
    )
    assert_png(failed_png)
    details = frame_text(text, "user-metadata-current-details")
    assert details.startswith("doomed · failed:") and len(details.splitlines()) == 1, details
    assert ui.blocked == []
