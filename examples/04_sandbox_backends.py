"""04 · Sandbox backends: the same agent on ``local``, ``bwrap`` and ``docker``.

Run it: ``python examples/04_sandbox_backends.py`` (add ``--docker`` to include docker; it
needs a running Docker daemon and the backend's image). Each backend is a small class chosen by
name in ``session.to(name, spec=...)``; this prints what each isolates and whether it can run
here, then has the agent write and list a file on every usable one. ``local`` confines file
tools to the workspace; ``bwrap`` adds a read-only root, a private ``/tmp``, its own PID
namespace and no network; ``docker`` runs a container with ``--network none`` and limits.
"""

import sys
from pathlib import Path

from rath import flow
from rath.backend import BackendSandboxSpec
from rath.backend.sandboxes import (
    BwrapSandbox,
    DockerSandbox,
    LocalSandbox,
)
from rath.errors import RathError
from rath.session import Session


def main() -> None:
    usable = set()
    for backend in (LocalSandbox, BwrapSandbox, DockerSandbox):
        reason = backend.unavailable_reason()
        if reason is None:
            usable.add(backend.name)
        state = "available" if reason is None else f"unavailable: {reason}"
        print(f"{backend.name:<7} isolation={backend.capabilities.isolation:<10} {state}")
    wanted = ["local", "bwrap"] + (["docker"] if "--docker" in sys.argv else [])
    agent = flow.Agent(
        "Use tools when helpful.", provider=flow.Provider(model="gpt-4o-mini"), name="builder"
    )
    for name in wanted:
        if name not in usable:
            print(f"skipping {name}: not available on this machine")
            continue
        workspace = Path("work", name).resolve()
        spec = BackendSandboxSpec(backend=name, working_dir=str(workspace))
        user = Session.from_user_message(
            f"Create hello.txt saying hi from {name}, then list files."
        )
        try:
            out = agent(user.to(name, spec=spec)).synchronize()  # wait for the run
            owner = out.sandbox.owner if out.sandbox else None
            print(f"--- {name} (its tools ran on the worker queue {owner}):")
            print(out.chunk_table.rows[-1].payload["content"])
        except RathError as exc:
            print(f"--- {name} failed: {exc}")
        print(f"    {workspace / 'hello.txt'}: {(workspace / 'hello.txt').read_text()!r}")


if __name__ == "__main__":
    main()
