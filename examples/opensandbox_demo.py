"""Sandboxes on an OpenSandbox server: OpenRath's backend plane, then a durable agent.

Needs a running ``opensandbox-server`` (``bash infra/opensandbox.sh`` installs one into
``.venv-opensandbox``; see docs/sandboxes.md, "OpenSandbox") and the SDK
(``pip install 'rath[opensandbox]'``, in the dev extra). Set:

* ``OPEN_SANDBOX_DOMAIN``: the server's ``host:port``, and ``OPEN_SANDBOX_API_KEY``;
* ``RATH_OPENSANDBOX_IMAGE``: the sandbox image (default OpenSandbox's code interpreter); it
  needs ``/bin/sh``, ``tail`` and ``python3``.

The agent uses the offline demo model (no LLM key needed); its shell and file tools run in
one OpenSandbox sandbox for the whole session, which ends when the session releases it.
"""

import os
from pathlib import Path

import rath.backend as plane
from rath import flow
from rath.backend import BackendSandboxSpec, BackendToolCommandRun, BackendToolFilesWrite
from rath.session import Session

IMAGE = os.environ.get("RATH_OPENSANDBOX_IMAGE")


def main() -> None:
    # OpenRath's backend plane: open a sandbox, run payloads, close it.
    with plane.get("opensandbox").open(BackendSandboxSpec(image=IMAGE)) as sandbox:
        sandbox.dispatch(BackendToolFilesWrite(path="plan.txt", data="step 1: say hello\n"))
        done = sandbox.dispatch(BackendToolCommandRun(cmd="cat plan.txt; pwd"))
        print("plane:", done.stdout.decode().strip().replace("\n", " | "))  # type: ignore[union-attr]

    # A durable agent whose tools run in one OpenSandbox sandbox.
    agent = flow.Agent(
        "Use tools when helpful.", provider=flow.Provider(model="gpt-4o-mini"), name="builder"
    )
    spec = BackendSandboxSpec(
        backend="opensandbox", working_dir=str(Path("work").resolve()), image=IMAGE
    )
    user = Session.from_user_message("Create notes.txt saying hi, then read it back.")
    root = user.to("opensandbox", spec=spec)
    out = agent(root)
    print(f"agent run {out.run_id}:")
    print(out.chunk_table.rows[-1].payload["content"])
    root.release()
    out.release()  # the last holder: the sandbox is killed
    print(
        "the sandbox was killed; nothing was written on this host:",
        not Path("work/notes.txt").exists(),
    )


if __name__ == "__main__":
    main()
