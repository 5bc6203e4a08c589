"""Record replay fixtures in ``tests/workflows/histories/`` (run when the workflow changes on
purpose, and commit the result): ``python tests/workflows/record_histories.py [LABEL]``.

It runs fixed scenarios against a fresh embedded server in a temporary data dir, with the fake
OpenAI server, and writes each run's full history as JSON. Histories recorded before a change
are the point of the corpus (a running session started on the old code must replay on the
new), so nothing is overwritten: a scenario already recorded is written again as
``<scenario>.<LABEL>.json`` (LABEL defaults to today's date).
"""

from __future__ import annotations

import asyncio
import datetime
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def main() -> None:
    """Record every scenario's history."""
    label = sys.argv[1] if len(sys.argv) > 1 else datetime.date.today().strftime("%Y%m%d")
    home = Path(tempfile.mkdtemp(prefix="rath-record-"))
    os.environ["RATH_HOME"] = str(home)
    os.environ.pop("TEMPORAL_ADDRESS", None)
    from support import FAST, fake_provider
    from temporalio.client import Client

    from rath import flow
    from rath._runtime.devserver import stop_server
    from rath._runtime.runtime import shutdown_runtime
    from rath.session import Session
    from rath.testing import FakeChatServer, text_reply, tool_call_reply

    workspace = home / "ws"
    scenarios = {
        "tools_two_lanes": [
            tool_call_reply(
                ("write_workspace_file", {"path": "a.txt", "content": "A"}),
                ("run_shell_command", {"cmd": "cat a.txt"}),
                ("no_such_tool", {}),
                ("read_workspace_file", "{bad json"),
            ),
            tool_call_reply(("read_workspace_file", {"path": "a.txt"})),
            text_reply("done"),
        ],
        "truncated": [tool_call_reply(("workspace_path_exists", {"path": "x"}))] * 2,
        "continued_as_new": [
            tool_call_reply(("workspace_path_exists", {"path": "x"})),
            tool_call_reply(("workspace_path_exists", {"path": "y"})),
            text_reply("ok"),
        ],
    }
    try:
        for name, script in scenarios.items():
            options = FAST
            if name == "continued_as_new":
                options = FAST.model_copy(update={"continue_as_new_after_rounds": 1})
            rounds = 2 if name == "truncated" else 64
            with FakeChatServer(script) as server:
                agent = flow.Agent(
                    "Record.",
                    provider=fake_provider(server),
                    options=options,
                    max_tool_rounds=rounds,
                    name=name,
                )
                out = agent(Session.from_user_message("go").to("local", spec=workspace))
                out.synchronize()
            from rath._runtime.devserver import server_status

            info = server_status(home)
            assert info is not None and out.run_id is not None

            async def fetch(address: str, run_id: str) -> str:
                client = await Client.connect(address)
                return (await client.get_workflow_handle(run_id).fetch_history()).to_json()

            text = asyncio.run(fetch(info.address, out.run_id))
            target = HERE / "histories" / f"{name}.json"
            if target.exists():
                target = target.with_name(f"{name}.{label}.json")
            if target.exists():
                raise SystemExit(f"{target} exists: pass another label")
            target.write_text(text)
            print(f"recorded {target.name}")
    finally:
        shutdown_runtime()
        stop_server(home)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)
