"""07 · Streaming: watch the model write, round by round, while the durable run goes on.

``on_event`` receives each piece of every answer (text, tool-call pieces, the finish reason,
usage) as the model writes it; the run's result is unchanged (one assistant row per round).
If a model call fails mid-answer and Temporal retries it, a ``retry`` event says to drop
what that round showed so far.

Run: ``python examples/07_streaming.py`` (offline demo model unless OPENAI_API_KEY is set).
"""

from rath import flow
from rath.session import Session
from rath.streaming import RathLLMStreamDelta

shown = {"round": 0, "call_open": False}


def show(event: RathLLMStreamDelta) -> None:
    """Print each delta as it arrives (called on Rath's runtime thread, in order)."""
    if event.round != shown["round"]:
        shown["round"] = event.round
        print(f"\n[round {event.round}] ", end="")
    if event.retry:
        print(f"\n[attempt {event.attempt}: the partial answer above is void] ", end="")
    if event.content_delta:
        print(event.content_delta, end="")
    if event.tool_call_name_delta:
        close_call()
        print(f"\n  -> {event.tool_call_name_delta}(", end="")
        shown["call_open"] = True
    if event.tool_call_args_delta:
        print(event.tool_call_args_delta, end="")
    if event.finish_reason:
        close_call()
        print(f"\n[finish_reason={event.finish_reason}]", end="")
    print(end="", flush=True)


def close_call() -> None:
    if shown["call_open"]:
        print(")", end="")
        shown["call_open"] = False


def main() -> None:
    agent = flow.Agent(
        "Use tools when helpful.",
        provider=flow.Provider(model="gpt-4o-mini"),
        name="streamer",
        on_event=show,
    )
    user = Session.from_user_message("Create notes.txt saying hi, then read it back.")
    out = agent(user.to("local", spec="./work"))  # returns at once; deltas print as they come
    usage = out.cumulative_usage  # waits for the run (and for its last delta to be shown)
    assert usage is not None
    print(
        f"\n--- usage total={usage.total_tokens} "
        f"(prompt={usage.prompt_tokens}, completion={usage.completion_tokens})"
    )


if __name__ == "__main__":
    main()
