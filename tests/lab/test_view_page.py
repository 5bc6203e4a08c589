"""``rath sessions view``: the lineage page, opened in a real headless Chromium."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from lab.lab_cli import finished_squad, rath
from support import FAST, fake_provider
from ui.browser import CHROMIUM_ARGS, find_chromium

from rath import flow
from rath.cli.view import drawn_edges
from rath.session.persistence import load_session
from rath.settings import Settings
from rath.store import current_catalog
from rath.store.lineage import catalog_graph
from rath.testing import FakeChatServer, text_reply

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (dev extra)")
pytestmark = pytest.mark.skipif(
    find_chromium() is None,
    reason="chromium is not installed (run `sudo bash infra/system-deps.sh`)",
)


def test_the_page_draws_a_branched_and_rerun_squad(rath_env: Settings, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    squad = finished_squad(tmp_path / "ws")
    with FakeChatServer([text_reply("rerun says hi")]) as server:
        agent = flow.Agent(
            "Retry.", provider=fake_provider(server, model="m2"), options=FAST, name="retry"
        )
        rerun = agent(load_session(squad.id).fork(at=1)).synchronize()

    page_file = tmp_path / "lineage.html"
    written = rath("sessions", "view", squad.id.hex[:8], "-o", str(page_file))
    assert written.returncode == 0, written.stderr
    assert written.stdout.strip() == f"wrote {page_file.resolve()}"
    text = page_file.read_text()
    assert "http://" not in text.split("<script")[0].split("<style")[0]  # no outside assets
    graph = catalog_graph(current_catalog(), squad.id)
    assert rerun.id in graph and len(graph) == 13 + 3  # + the branch, retry's prompt, its run

    blocked: list[str] = []
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
        chromium = find_chromium()
        assert chromium is not None
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=chromium, headless=True, args=list(CHROMIUM_ARGS)
        )
        try:

            def block(route: object) -> None:
                blocked.append(route.request.url)  # type: ignore[attr-defined]
                route.abort()  # type: ignore[attr-defined]

            context.route(lambda url: not url.startswith("file:"), block)
            page = context.new_page()
            page.goto(page_file.as_uri())
            assert page.locator("g.node").count() == len(graph)
            assert graph.missing_parents() == ()
            assert page.locator("path.edge").count() == len(drawn_edges(graph))
            edges = {
                (e.get_attribute("data-from"), e.get_attribute("data-to"))
                for e in page.locator("path.edge").all()
            }
            assert edges == {(str(a), str(b)) for a, b in drawn_edges(graph)}

            planner = next(n for n in graph.nodes if n.agent == "planner")
            page.locator(f'g.node[data-id="{planner.id}"]').click()
            page.wait_for_function(
                "document.getElementById('transcript').children.length > 0", timeout=10_000
            )
            assert "planner done" in page.locator("#transcript").inner_text()
            link = page.locator("#run-link").get_attribute("href") or ""
            assert link.endswith(f"/namespaces/{rath_env.namespace}/workflows/{planner.run_id}")
            assert "model" in page.locator("#facts").inner_text()

            page.locator(f'g.node[data-id="{rerun.id}"]').click()
            page.wait_for_function(
                "document.getElementById('transcript').innerText.includes('rerun says hi')",
                timeout=10_000,
            )
            facts = page.locator("#facts").inner_text()
            assert "m2" in facts and "completed" in facts
            branch = next(n for n in graph.nodes if dict(n.lineage_extras).get("fork.at_round"))
            page.locator(f'g.node[data-id="{branch.id}"]').click()
            assert "fork.at_round" in page.locator("#facts").inner_text()
        finally:
            context.close()
    assert blocked == []
