"""``rath sessions ls|show|export|import|fork|prune`` on real catalogued runs, in subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from uuid import UUID

from support import FAST, fake_provider

from rath import flow
from rath.session import Session
from rath.settings import Settings
from rath.store import current_catalog
from rath.testing import FakeChatServer, text_reply


def _sessions(*args: str) -> subprocess.CompletedProcess[str]:
    rath = str(Path(sys.executable).with_name("rath"))
    return subprocess.run(
        [rath, "sessions", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_list_show_export_import_fork_and_prune(rath_env: Settings, tmp_path: Path) -> None:
    with FakeChatServer([text_reply("hello")]) as server:
        agent = flow.Agent("x", provider=fake_provider(server), options=FAST, name="cli_greeter")
        out = agent(Session.from_user_message("hi")).synchronize()
    sid = str(out.id)

    listed = _sessions("ls", "--agent", "cli_greeter", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [r["id"] for r in json.loads(listed.stdout)] == [sid]
    table = _sessions("ls", "--status", "completed")
    assert sid in table.stdout and "cli_greeter" in table.stdout

    shown = _sessions("show", sid)
    assert shown.returncode == 0, shown.stderr
    assert "[0] user        hi" in shown.stdout and "[1] assistant   hello" in shown.stdout
    assert f"this   {sid} (op_session_loop, cli_greeter)" in shown.stdout

    markdown = _sessions("export", sid, "--format", "md")
    assert "## assistant\n\nhello" in markdown.stdout
    assert _sessions("export", sid, "--format", "mermaid").stdout.startswith("flowchart")
    saved = tmp_path / "saved.jsonl"
    assert _sessions("export", sid, "--format", "jsonl", "-o", str(saved)).returncode == 0
    current_catalog().delete(out.id)
    imported = _sessions("import", str(saved))
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == sid
    record = current_catalog().get(out.id)
    assert record is not None and record.status == "completed"

    forked = _sessions("fork", sid)
    fork = current_catalog().get(UUID(forked.stdout.strip()))
    assert fork is not None and fork.parents == (out.id,) and fork.root == record.root

    dry = _sessions("prune", "--older-than", "30d", "--dry-run")
    assert dry.returncode == 0 and sid not in dry.stdout


def test_unknown_ids_fail_in_one_line(rath_env: Settings) -> None:
    missing = _sessions("show", "6f1c2a54-8d0e-4f43-9a51-0b0c4d6e7f80")
    assert missing.returncode == 1
    assert (
        missing.stderr.strip()
        .splitlines()[-1]
        .startswith("rath sessions: no session 6f1c2a54-8d0e-4f43-9a51-0b0c4d6e7f80 in the catalog")
    )
    assert "Traceback" not in missing.stderr
