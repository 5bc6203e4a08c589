"""The ``rath`` command: ``rath server``, ``rath worker``, ``rath demo``, approvals, sessions."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from rath.cli.gc import add_gc_arguments
from rath.errors import RathError
from rath.settings import Settings

if TYPE_CHECKING:
    from temporalio.client import Client

DEMO_PROMPT = "Create notes.txt saying hi, then read it back."
HANDOFF_SECONDS = 5.0
"""How long ``rath approve``/``deny`` wait to see a worker take the work they released."""


def _server(args: argparse.Namespace) -> int:
    from rath.runtime.devserver import run_foreground, server_status, stop_server

    home = Settings.from_env().home
    if args.action == "stop":
        stopped = stop_server(home)
        print("stopped the embedded Temporal server" if stopped else "no embedded server running")
        return 0
    if args.action == "status":
        info = server_status(home)
        if info is None:
            print(f"no embedded Temporal server running for {home}")
            return 1
        print(f"Temporal gRPC: {info.address}\nTemporal UI:   {info.ui_url}\nData dir:      {home}")
        return 0
    worker = None
    if args.with_worker:
        worker = [sys.executable, "-m", "rath.worker"]
        worker += [f"--workflows={target}" for target in args.workflows]
        worker += [f"--tools={target}" for target in args.tools]
    return run_foreground(home, worker)


def _worker(args: argparse.Namespace) -> int:
    from rath.worker.main import main as worker_main

    argv = ["--task-queue", args.task_queue] if args.task_queue else []
    if args.check:
        argv.append("--check")
    for target in args.workflows:
        argv += ["--workflows", target]
    for target in args.tools:
        argv += ["--tools", target]
    worker_main(argv)
    return 0


def _approvals(args: argparse.Namespace) -> int:
    from rath.approvals import approve, deny, pending_approvals
    from rath.runtime.runtime import get_runtime

    # No worker in this command: one would take the released call and die with the command.
    get_runtime().read_only()
    if args.command == "approvals":
        waiting = pending_approvals(args.run)
        for item in waiting:
            print(f"{item.call_id}  {item.agent}  {item.tool}  {item.arguments}")
        if not waiting:
            print("no tool calls are waiting for approval")
    elif args.command == "approve":
        _warn_without_worker(approve(args.run, args.call_id))
        print(f"approved {args.call_id}")
    else:
        _warn_without_worker(deny(args.run, args.call_id, args.reason))
        print(f"denied {args.call_id}")
    return 0


def _warn_without_worker(run_id: str) -> None:
    """The answer is recorded; say so if no running worker takes the work it released."""
    from rath.runtime.handoff import unstarted_activities
    from rath.runtime.runtime import get_runtime

    async def ask(client: Client) -> list[str]:
        return await unstarted_activities(client, run_id, within=HANDOFF_SECONDS)

    waiting = get_runtime().call(ask, timeout=HANDOFF_SECONDS + 30)
    if waiting:
        print(
            f"rath: run {run_id!r} goes on once a worker that has its code runs: no running "
            f"worker took {', '.join(waiting)} within {HANDOFF_SECONDS:g} s. Start `rath worker` "
            "with the run's --workflows/--tools, or `rath server --with-worker`",
            file=sys.stderr,
        )


def _demo(args: argparse.Namespace) -> int:
    from rath import flow
    from rath.session import Session

    agent = flow.Agent(
        "Use tools when helpful.", provider=flow.Provider(model=args.model), name="demo"
    )
    user = Session.from_user_message(args.prompt).to("local", spec=args.workspace)
    out = agent(user)
    print(f"started {out.run_id} (open the Temporal UI to watch it)")
    print(out)
    return 0


def _run(args: argparse.Namespace) -> int:
    from rath.cli.run import run_command

    return run_command(args)


def _sessions_follow(args: argparse.Namespace) -> int:
    from rath.cli.run import follow_command

    return follow_command(args)


_SESSION_COMMANDS = {
    "ls": "list catalogued sessions (--agent, --status, --since 7d, --root ID, --json)",
    "show": "a session's transcript, usage and lineage",
    "export": "a session as --format jsonl|md, its lineage as mermaid|dot",
    "import": "catalog an OpenRath session file",
    "fork": "a new session with the same transcript (--at K: up to round K)",
    "view": "write one self-contained HTML page drawing a session's lineage DAG",
    "diff": "where two sessions part: rows, usage, tool calls, files written (--json)",
    "prune": "remove finished sessions older than --older-than 30d (--dry-run)",
    "reconcile": "make records of runs that ended unannounced agree with Temporal",
}
"""Commands whose options are parsed by :mod:`rath.cli.sessions` (loaded only when run)."""


def sessions_commands_of(commands: Any) -> None:
    """List ``rath sessions ls|show|...`` in the help; :func:`main` hands them over."""
    for name, help_text in _SESSION_COMMANDS.items():
        commands.add_parser(name, help=help_text, add_help=False)


def _sessions_command(args: argparse.Namespace) -> int:
    from rath.cli.sessions import run_sessions_command

    return run_sessions_command(args.sessions_name, args.rest)


def _sessions_gc(args: argparse.Namespace) -> int:
    from rath.cli.gc import run_gc
    from rath.runtime.runtime import get_runtime

    get_runtime().read_only()
    return run_gc(args)


def _add_code_arguments(parser: argparse.ArgumentParser, who: str) -> None:
    parser.add_argument(
        "--workflows",
        action="append",
        default=[],
        metavar="MODULE:CLASS",
        help=f"a rath.flow.Workflow class {who} runs durably (repeatable)",
    )
    parser.add_argument(
        "--tools",
        action="append",
        default=[],
        metavar="MODULE:NAME",
        help=f"a user tool {who} runs (repeatable)",
    )


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``rath run`` (the command lives in :mod:`rath.cli.run`)."""
    parser.add_argument(
        "words",
        nargs="*",
        metavar="[MODULE:CLASS] MESSAGE",
        help="the Workflow class to run (built as Class(provider)) and the user message",
    )
    parser.add_argument("--agent", metavar="PROMPT", help="run one agent with this prompt")
    parser.add_argument(
        "--from",
        dest="source",
        metavar="ID[@K]",
        help="continue a stored session (its branch at round K) instead of a new one",
    )
    parser.add_argument(
        "--tools",
        action="append",
        default=[],
        metavar="MODULE:NAME",
        help="a tool of the --agent (repeatable; default: the built-in tools)",
    )
    parser.add_argument(
        "--to", metavar="BACKEND:DIR", help="place the session on a sandbox, e.g. local:./work"
    )
    parser.add_argument("--model", default="gpt-4o-mini", help="the model (default: %(default)s)")
    parser.add_argument("--base-url", help="an OpenAI-compatible endpoint (key optional)")
    add_follow_output(parser)


def add_follow_output(parser: argparse.ArgumentParser) -> None:
    """``--json``, shared by ``rath run`` and ``rath sessions follow``."""
    parser.add_argument("--json", action="store_true", help="one JSON object per event")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``rath`` command."""
    parser = argparse.ArgumentParser(prog="rath", description="Rath: durable agents on Temporal")
    commands = parser.add_subparsers(dest="command", required=True)

    server = commands.add_parser("server", help="run the embedded Temporal dev server")
    server.add_argument(
        "action",
        nargs="?",
        choices=("run", "stop", "status"),
        default="run",
        help="run in the foreground (default), stop the background one, or show its status",
    )
    server.add_argument(
        "--with-worker",
        action="store_true",
        help="also run a worker, so runs go on after the scripts that started them exit",
    )
    _add_code_arguments(server, "the worker (with --with-worker)")
    server.set_defaults(func=_server)

    worker = commands.add_parser("worker", help="run a worker (TEMPORAL_ADDRESS or embedded)")
    worker.add_argument("--task-queue", help="override RATH_TASK_QUEUE")
    _add_code_arguments(worker, "this worker")
    worker.add_argument(
        "--check", action="store_true", help="health check: exit 0 if Temporal answers, else 1"
    )
    worker.set_defaults(func=_worker)

    listing = commands.add_parser("approvals", help="list tool calls waiting for approval")
    listing.add_argument("run", help="the workflow id of an agent run or a durable forward")
    listing.set_defaults(func=_approvals)
    for verb in ("approve", "deny"):
        answer = commands.add_parser(verb, help=f"{verb} a tool call waiting for approval")
        answer.add_argument("run", help="the workflow id of an agent run or a durable forward")
        answer.add_argument("call_id", help="the tool call id (see `rath approvals RUN`)")
        if verb == "deny":
            answer.add_argument("--reason", help="told to the model")
        answer.set_defaults(func=_approvals)

    sessions = commands.add_parser("sessions", help="the session catalog and the chunk store")
    session_commands = sessions.add_subparsers(dest="sessions_command", required=True)
    gc = session_commands.add_parser(
        "gc", help="delete chunks no session references (older than --grace), with a dry run"
    )
    add_gc_arguments(gc)
    gc.set_defaults(func=_sessions_gc)
    sessions_commands_of(session_commands)
    follow = session_commands.add_parser("follow", help="show a run live until it ends")
    follow.add_argument("run", help="the run's workflow id (`rath run` prints it)")
    add_follow_output(follow)
    follow.set_defaults(func=_sessions_follow)

    run = commands.add_parser("run", help="start a Workflow class or one agent, and show it live")
    add_run_arguments(run)
    run.set_defaults(func=_run)

    demo = commands.add_parser("demo", help="run one agent on the embedded default")
    demo.add_argument("--prompt", default=DEMO_PROMPT)
    demo.add_argument("--workspace", default="./work")
    demo.add_argument("--model", default="gpt-4o-mini")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``rath`` command."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) >= 2 and argv[0] == "sessions" and argv[1] in _SESSION_COMMANDS:
        args = argparse.Namespace(
            command="sessions", func=_sessions_command, sessions_name=argv[1], rest=argv[2:]
        )
    else:
        args = build_parser().parse_args(argv)
    try:
        code = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:  # `rath ... | head` closed the pipe: what was wanted was printed
        code = quiet_broken_pipe()
    except RathError as exc:  # a failed run, bad input, an unknown id: one line, not a traceback
        print(f"rath {args.command}: {exc}", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        code = 130
    _flush_telemetry()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        code = quiet_broken_pipe()
    # Skip interpreter finalisation: the Temporal core can abort there (sdk-python#300) and
    # turn a successful command into a failed one.
    os._exit(code)


def quiet_broken_pipe() -> int:
    """Point stdout at /dev/null after its reader went away; the exit code of SIGPIPE."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141


def _flush_telemetry() -> None:
    """Export the spans and metrics a command made, which ``os._exit`` would drop."""
    telemetry = sys.modules.get("rath.telemetry")
    if telemetry is not None:
        telemetry.flush()
