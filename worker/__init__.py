"""The worker process: connects to Temporal and runs Rath's workflows and activities."""

from rath.worker.main import main, run_worker

__all__ = ["main", "run_worker"]
