"""Record the replay fixtures in ``tests/workflows/histories/`` (run when the workflow changes
on purpose, and commit the result): ``.venv/bin/python tests/workflows/record_histories.py``.

It runs fixed scenarios against a fresh embedded server in a temporary data dir, with the fake
OpenAI server, and writes each run's full history as JSON, named ``<scenario>-<commit>.json``
after the commit whose code recorded it: every workflow type (``rath.SessionLoop``,
``rath.Forward`` and its child loops, ``rath.Compress``, ``rath.CloseSandbox``). Keep older
files, and it never overwrites one: they stand for runs in flight when a worker is
upgraded, and must still replay.

To record with an older commit's code (only ``support``, ``rath.flow``, ``rath.session``,
``rath.testing`` and ``rath.runtime``'s server and shutdown helpers are used, so the script
runs unchanged there): ``git worktree add --detach /tmp/old <commit>``, run its
``infra/setup.sh``, copy this file and ``replay_modules.py`` into its ``tests/workflows/``
and run ``/tmp/old/.venv/bin/python /tmp/old/tests/workflows/record_histories.py --out
tests/workflows/histories``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # support
sys.path.insert(0, str(HERE))  # replay_modules, under the name test_replay imports it by

VISIBILITY_TIMEOUT = 30.0


def commit_label() -> str:
    """The short commit of the code that records (``git rev-parse --short HEAD`` here).

    Refuses when the runtime's code differs from that commit: the name would lie.
    """
    root = HERE.parent.parent
    changed = ["git", "diff", "--quiet", "HEAD", "--", "sdk", "workflows"]
    dirty = subprocess.run(changed, cwd=root, check=False)
    if dirty.returncode != 0:
        raise SystemExit(
            "sdk/ or workflows/ differ from HEAD: commit first, or name the recording's code "
            "with --commit LABEL"
        )
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=HERE,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def main() -> None:
    """Record every scenario's history."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "histories", help="where to write")
    parser.add_argument("--commit", default=None, help="label (default: short HEAD)")
    ns = parser.parse_args()
    out_dir: Path = ns.out.resolve()
    label: str = ns.commit or commit_label()

    home = Path(tempfile.mkdtemp(prefix="rath-record-"))
    os.environ["RATH_HOME"] = str(home)
    os.environ.pop("TEMPORAL_ADDRESS", None)
    from replay_modules import ReplaySquad, squad_model
    from support import FAST, fake_provider
    from temporalio.api.enums.v1 import EventType
    from temporalio.client import Client

    from rath import flow
    from rath.runtime.devserver import server_status, stop_server
    from rath.runtime.runtime import shutdown_runtime
    from rath.session import Session, run_session_compress
    from rath.testing import FakeChatServer, function_handler, text_reply, tool_call_reply

    def address() -> str:
        info = server_status(home)
        assert info is not None, "the embedded server is not running"
        return str(info.address)

    def save(name: str, workflow_id: str) -> Any:
        async def fetch() -> Any:
            client = await Client.connect(address())
            return await client.get_workflow_handle(workflow_id).fetch_history()

        target = out_dir / f"{name}-{label}.json"
        if target.exists():  # histories recorded before a change are the corpus's point
            raise SystemExit(f"{target} exists: never overwrite a fixture; pass --commit LABEL")
        history = asyncio.run(fetch())
        target.write_text(history.to_json())
        print(f"recorded {name}-{label} ({workflow_id})")
        return history

    def find(workflow_type: str) -> str:
        """The id of the one run of ``workflow_type`` (visibility lags a little: bounded)."""

        async def listed() -> list[str]:
            client = await Client.connect(address())
            query = f"WorkflowType = '{workflow_type}'"
            return [execution.id async for execution in client.list_workflows(query)]

        deadline = time.monotonic() + VISIBILITY_TIMEOUT
        while True:
            ids = asyncio.run(listed())
            if ids or time.monotonic() > deadline:
                break
            time.sleep(0.1)  # polling an eventually consistent list, bounded by the deadline
        if len(ids) != 1:
            raise SystemExit(f"expected one {workflow_type} run, found {ids}")
        return ids[0]

    def session_loop(name: str, script: list[Any], **agent: Any) -> Callable[[], None]:
        def run() -> None:
            with FakeChatServer(script) as server:
                agent_module = flow.Agent(
                    "Record.", provider=fake_provider(server), name=name, **agent
                )
                out = agent_module(Session.from_user_message("go").to("local", spec=workspace))
                out.synchronize()
            assert out.run_id is not None
            save(name, out.run_id)

        return run

    def forward() -> None:
        with FakeChatServer(function_handler(squad_model)) as server:
            squad = ReplaySquad(fake_provider(server))
            out = squad(Session.from_user_message("go").to("local", spec=workspace))
            out.synchronize()
        assert out.run_id is not None
        history = save("forward", out.run_id)
        for event in history.events:
            if event.event_type == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED:
                attributes = event.child_workflow_execution_started_event_attributes
                agent_name = attributes.workflow_execution.workflow_id.split("-")[1]
                save(f"forward_child_{agent_name}", attributes.workflow_execution.workflow_id)

    def compress() -> None:
        with FakeChatServer([text_reply("the summary")]) as server:
            out = run_session_compress(
                Session.from_user_message("a long transcript to shorten"),
                Session.from_agent_prompt("Summarise."),
                agent_provider=fake_provider(server),
                agent_name="compressor",
            )
            out.synchronize()
        assert out.run_id is not None
        save("compress", out.run_id)

    def close_sandbox() -> None:
        script = [
            tool_call_reply(("write_workspace_file", {"path": "a.txt", "content": "A"})),
            text_reply("done"),
        ]
        with FakeChatServer(script) as server:
            agent_module = flow.Agent("Record.", provider=fake_provider(server), options=FAST)
            placed = Session.from_user_message("go").to("local")  # a workspace Rath allocates
            out = agent_module(placed)
            out.synchronize()
        placed.release()
        if not out.release():
            raise SystemExit("releasing the last holder did not close the sandbox")
        save("close_sandbox", find("rath.CloseSandbox"))

    workspace = home / "ws"
    scenarios: list[Callable[[], None]] = [
        session_loop(
            "tools_two_lanes",
            [
                tool_call_reply(
                    ("write_workspace_file", {"path": "a.txt", "content": "A"}),
                    ("run_shell_command", {"cmd": "cat a.txt"}),
                    ("no_such_tool", {}),
                    ("read_workspace_file", "{bad json"),
                ),
                tool_call_reply(("read_workspace_file", {"path": "a.txt"})),
                text_reply("done"),
            ],
            options=FAST,
            max_tool_rounds=64,
        ),
        session_loop(
            "truncated",
            [tool_call_reply(("workspace_path_exists", {"path": "x"}))] * 2,
            options=FAST,
            max_tool_rounds=2,
        ),
        session_loop(
            "continued_as_new",
            [
                tool_call_reply(("workspace_path_exists", {"path": "x"})),
                tool_call_reply(("workspace_path_exists", {"path": "y"})),
                text_reply("ok"),
            ],
            options=FAST.model_copy(update={"continue_as_new_after_rounds": 1}),
            max_tool_rounds=64,
        ),
        forward,
        compress,
        close_sandbox,
    ]
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        for scenario in scenarios:
            scenario()
    finally:
        shutdown_runtime()
        stop_server(home)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)
