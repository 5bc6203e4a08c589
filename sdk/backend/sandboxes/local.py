"""``LocalSandbox``: a host directory as the workspace, host processes for commands and code.

Isolation is at the process level only: file primitives are confined to the workspace, but a
shell command can still read anything the worker user can (use a bwrap or docker backend for
real isolation). What this backend does guarantee:

* file paths never resolve outside the workspace (``..``, outside absolute paths and symlinks
  leaving it are refused), and failure messages never show absolute host paths;
* commands and code run with a scrubbed environment (the worker's API keys never leak in), in
  their own process group, killed as a group on timeout, with output capped while it is read;
* writes are atomic, so a retried or interrupted write never leaves a partial file.

``spec.limits``, ``spec.image`` and ``spec.host_network`` do not apply: a local command runs
with the worker's own limits and network.
"""

from __future__ import annotations

from rath.backend.sandboxes._base import Capabilities
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
    capabilities = Capabilities(
        isolation="process", supports_command=True, supports_filesystem=True, supports_code=True
    )

    async def _execute(self, run: Execution) -> ProcessOutput:
        return await run_process(run)
