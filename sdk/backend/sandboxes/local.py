"""``LocalSandbox``: a host directory as the workspace, host processes for commands and code.

File tools are confined, commands are not: docs/sandboxes.md, "local".
"""

from __future__ import annotations

from rath.backend.capabilities import Capabilities, IsolationLevel
from rath.backend.sandboxes._hostdir import HostDirSandbox
from rath.backend.sandboxes._process import Execution, ProcessOutput, run_process


class LocalSandbox(HostDirSandbox):
    """A sandbox whose workspace is ``spec.working_dir`` on the worker's host.

    The directory is created on first use and never deleted (the caller owns it). Code runs
    with the worker's own interpreter (``sys.executable -I -``).

    Args:
        spec: The sandbox spec; ``working_dir`` must be an absolute path.

    Raises:
        ConfigError: ``spec.working_dir`` is missing or not absolute.
    """

    name = "local"
    capabilities = Capabilities(IsolationLevel.PROCESS, True, True, True)

    async def _execute(self, run: Execution) -> ProcessOutput:
        return await run_process(run)
