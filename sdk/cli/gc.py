"""``rath sessions gc``: collect the chunk store's garbage, with a dry run.

Marks from every catalogued session and every run in flight (read from Temporal), then moves
unreferenced chunks older than ``--grace`` to the store's trash and deletes trash copies older
than that, and removes stale sandbox lease records and the old tool-call journal records of
finished runs. Without Temporal it refuses to sweep; a dry run still reports what would go.
See ``rath.store.gc`` and ``docs/store.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from rath.settings import Settings

if TYPE_CHECKING:
    from rath.runtime.live_runs import LiveRuns
    from rath.store.gc import GcProgress, GcReport

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)([smhdw]?)")


def parse_duration(text: str) -> timedelta:
    """``90s``, ``30m``, ``1h``, ``7d``, ``2w`` (a bare number is seconds)."""
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a duration; write a number and a unit: 90s, 30m, 1h, 7d, 2w"
        )
    return timedelta(seconds=float(match[1]) * _UNITS[match[2] or "s"])


def add_gc_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``rath sessions gc``."""
    parser.add_argument(
        "--dry-run", action="store_true", help="report what would go; change nothing"
    )
    parser.add_argument(
        "--grace",
        type=parse_duration,
        default=timedelta(hours=1),  # rath.store.gc.DEFAULT_GRACE
        help="keep anything younger than this (default 1h; longer than your longest activity)",
    )
    parser.add_argument(
        "--lease-grace",
        type=parse_duration,
        default=timedelta(hours=24),  # rath.store.gc.DEFAULT_LEASE_GRACE
        help="a sandbox lease record unwritten this long, held by no run, is stale (default 24h)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds to wait for Temporal (default 60)"
    )


def run_gc(args: argparse.Namespace) -> int:
    """Run ``rath sessions gc``; returns the exit code (0 done, 1 failed, 2 refused)."""
    # Imported here, like the rest of the CLI's commands, so that `rath --help` stays quick.
    from rath.backend.persistence.leases import LeaseRegistry
    from rath.errors import GcRefusedError, RathError
    from rath.runtime.live_runs import live_runs
    from rath.runtime.reconcile import reconcile_noting
    from rath.store import store_for
    from rath.store.gc import collect_garbage

    settings = Settings.from_env()
    # Records of runs that ended unannounced are brought up to date first.
    reconcile_noting(store_for(settings), note=partial(print, file=sys.stderr))
    try:
        runs = live_runs(settings, timeout=args.timeout)
    except GcRefusedError as exc:
        if not args.dry_run:
            print(f"rath sessions gc: {exc}", file=sys.stderr)
            return 2
        print(f"rath sessions gc: warning: {exc}", file=sys.stderr)
        runs = None
    try:
        report = collect_garbage(
            store_for(settings),
            hints=runs.digests if runs else (),
            grace=args.grace,
            dry_run=args.dry_run,
            leases=LeaseRegistry(settings.sandboxes_dir),
            live_holders=runs.session_ids if runs else (),
            lease_grace=args.lease_grace,
            runs_in_flight=runs.run_ids if runs else (),
            progress=_progress_line() if sys.stderr.isatty() and not args.json else None,
        )
    except RathError as exc:
        print(f"rath sessions gc: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(_as_json(report, runs)))
    else:
        print(_summary(report, runs, settings))
    return 0


def _progress_line() -> Any:
    def show(step: GcProgress) -> None:
        total = f"/{step.total}" if step.total is not None else ""
        end = "\n" if step.total is not None and step.done == step.total else ""
        print(f"\r{step.phase}: {step.done}{total}   ", end=end, file=sys.stderr, flush=True)

    return show


def _as_json(report: GcReport, runs: LiveRuns | None) -> dict[str, Any]:
    out = dataclasses.asdict(report)
    out["leases"] = [lease.model_dump(mode="json") for lease in report.leases]
    out["runs_in_flight"] = list(runs.runs) if runs is not None else None
    return out


def _size(count: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if count < 1000 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1000  # type: ignore[assignment]
    return f"{count} B"


def _summary(report: GcReport, runs: LiveRuns | None, settings: Settings) -> str:
    would = "would be " if report.dry_run else ""
    store = settings.store_url or str(settings.store_dir)
    flights = "unknown (Temporal did not answer)" if runs is None else str(len(runs.runs))
    lines = [
        f"store {store}: {report.objects} chunks ({_size(report.object_bytes)}); "
        f"{report.live} referenced, {report.young} younger than the grace "
        f"({timedelta(seconds=report.grace_seconds)})",
        f"roots: {report.sessions} catalogued sessions, runs in flight: {flights}",
        f"{report.trashed} chunks ({_size(report.trashed_bytes)}) {would}moved to the trash",
        f"trash: {report.purged} copies ({_size(report.purged_bytes)}) {would}deleted for good, "
        f"{report.restored} {would}restored",
        f"sandbox leases: {len(report.leases)} stale records {would}removed",
        f"tool-call journal: {report.calls} records of finished runs {would}removed",
    ]
    if report.missing:
        lines.append(
            f"warning: {len(report.missing)} session roots are missing from the store "
            f"(first: {report.missing[0][:16]}...)"
        )
    lines.append(
        f"{'dry run, nothing changed' if report.dry_run else 'done'} in {report.seconds:.1f} s"
    )
    return "\n".join(lines)
