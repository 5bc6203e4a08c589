"""Running an example as a newcomer would: a fresh process on a fresh embedded default."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rath.runtime.devserver import stop_server

ROOT = Path(__file__).resolve().parents[1]


def run_example(name: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """Run ``examples/<name>`` with ``RATH_HOME=home`` and no key or server address set.

    The example starts the embedded server of ``home``; it is stopped afterwards.
    """
    env = {k: v for k, v in os.environ.items() if k not in ("TEMPORAL_ADDRESS", "OPENAI_API_KEY")}
    env.update(RATH_HOME=str(home), RATH_TASK_QUEUE="rath")
    try:
        return subprocess.run(
            [sys.executable, str(ROOT / "examples" / name)],
            cwd=cwd,
            env=env,
            capture_output=True,
            check=False,
            text=True,
            timeout=120,
        )
    finally:
        stop_server(home)
