"""``rath run`` and ``rath sessions follow``: start or watch a run. See docs/modules.md."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rath import flow
from rath.cli.rerun import branch_input, note_rerun, parse_from, rerun_changes
from rath.errors import ConfigError
from rath.runtime.devserver import server_status
from rath.runtime.interrupt import reattach_hint
from rath.runtime.runtime import get_runtime
from rath.runtime.watch import WAITING, RunEvent, watch_run
from rath.session import Session
from rath.session.branch import FORK_ROUND, FORK_ROUNDS
from rath.session.chunk import format_chunk_row_brief
from rath.settings import Settings
from rath.store import current_store
from rath.utils.targets import import_option

START_SECONDS = 30.0
"""How long ``rath run`` waits for its run to start (it starts once its inputs are ready)."""
DETACHED = 130
"""The exit code of a command Ctrl-C detached from its run (as for any Ctrl-C'd command)."""


def run_command(args: argparse.Namespace) -> int:
    """Start the run, then show it as :func:`follow_command` does."""
    target, message = _target_and_message(args)
    changes: dict[str, Any] = {}
    if args.source is not None:
        source, at = parse_from(args.source)
        changes = rerun_changes(
            source,
            model=args.model,
            base_url=args.base_url,
            agent="agent" if args.agent is not None else type(target).__name__,
            prompt=args.agent,
            tools=args.tools,
        )
        session = branch_input(source, at, message, changes)
        _say(args, "start", f"branch {session.id} of {source.id} (round {_round(session)})")
    else:
        assert message is not None
        session = Session.from_user_message(message)
    if args.to:
        backend, _, directory = args.to.partition(":")
        session = session.to(backend, spec=directory or None)
    out = target(session)
    assert out.run_id is not None
    _say(args, "start", f"session {out.id}  run {out.run_id}{_ui_link(out.run_id)}")
    code = _follow(args, out.run_id, out, start_wait=START_SECONDS)
    if changes and code == 0:
        note_rerun(out.id, changes)
    return code


def _round(session: Session) -> str:
    extras = dict(session.lineage_extras)
    return f"{extras[FORK_ROUND]} of {extras[FORK_ROUNDS]}" if FORK_ROUND in extras else "all"


def follow_command(args: argparse.Namespace) -> int:
    """Show a run (started anywhere) until it ends; Ctrl-C stops watching, not the run."""
    get_runtime().read_only()
    return _follow(args, args.run, None)


def _target_and_message(args: argparse.Namespace) -> tuple[Any, str | None]:
    provider = flow.Provider(model=args.model, base_url=args.base_url)
    rerun = args.source is not None  # the message is optional: the branch is the input
    words = list(args.words)
    if args.agent is not None:
        if len(words) != 1 and not (rerun and not words):
            raise ConfigError('rath run --agent "PROMPT" takes one MESSAGE argument')
        tools = [import_option("rath run --tools", t, "package.module:name") for t in args.tools]
        agent = flow.Agent(args.agent, provider=provider, tools=tools or None, name="agent")
        return agent, words[0] if words else None
    if len(words) != 2 and not (rerun and len(words) == 1):
        raise ConfigError(
            'rath run needs MODULE:CLASS and MESSAGE (or --agent "PROMPT" and MESSAGE; '
            "with --from ID[@K] the MESSAGE is optional)"
        )
    if args.tools:
        raise ConfigError("rath run --tools goes with --agent (a Workflow class names its own)")
    cls = import_option("rath run", words[0], "package.module:ClassName")
    if not (isinstance(cls, type) and issubclass(cls, flow.Workflow)):
        raise ConfigError(f"rath run {words[0]!r}: not a rath.flow.Workflow class")
    workflow_class: Any = cls
    return workflow_class(provider), words[1] if len(words) == 2 else None


def _follow(
    args: argparse.Namespace, run_id: str, out: Session | None, *, start_wait: float = 0.0
) -> int:
    runtime = get_runtime()

    async def show() -> str:
        client = await (runtime.client() if out is not None else runtime.reader())
        status = "closed"
        # `rath run`'s own worker runs the run: it keeps watching while that worker is busy.
        events = watch_run(
            client, current_store(), run_id, start_wait=start_wait, stop_unanswered=out is None
        )
        async for event in events:
            _show(args, event)
            status = event.text if event.kind == "end" else status
        return status

    watching = runtime.submit(show())
    try:
        status = watching.result()
    except KeyboardInterrupt:
        watching.cancel()
        _say(args, "detached", _detached(run_id))
        return DETACHED
    if out is not None and status == "completed":
        out.synchronize()
        _say(args, "usage", f"tokens (all agents): {out.usage}")
    return 0 if status in ("completed", WAITING) else 1


def _show(args: argparse.Namespace, event: RunEvent) -> None:
    if args.json:
        body: dict[str, Any] = {"event": event.kind, "agent": event.agent, "text": event.text}
        if event.row is not None:
            body["row"] = {"kind": event.row.kind.value, "payload": event.row.payload}
        print(json.dumps(body, ensure_ascii=False, default=str), flush=True)
        return
    if event.row is not None:
        line = format_chunk_row_brief(0, event.row).split(" ", 1)[1]
        print(f"[{event.agent}] {line}", flush=True)
    elif event.kind == "end":
        print(f"run {event.text}", flush=True)
    else:
        print(f"rath: {event.text}", file=sys.stderr if event.kind == "waiting" else sys.stdout)


def _say(args: argparse.Namespace, kind: str, text: str) -> None:
    if args.json:
        _show(args, RunEvent(kind, "", text))
    else:
        print(text, flush=True)


def _detached(run_id: str) -> str:
    return f"detached; {reattach_hint(run_id, Settings.from_env().embedded)}"


def _ui_link(run_id: str) -> str:
    settings = Settings.from_env()
    info = server_status(settings.home) if settings.embedded else None
    if info is None:
        return ""
    return f"\nWeb UI: {info.ui_url}/namespaces/{settings.namespace}/workflows/{run_id}"
