"""01 · Hello agent: one agent with the built-in tools, durable on the embedded Temporal.

Run it from anywhere: ``python examples/01_hello_agent.py``. With no ``OPENAI_API_KEY`` the
agent talks to Rath's offline demo model (scripted, clearly labelled); set ``OPENAI_API_KEY``
(or ``OPENAI_BASE_URL`` for any OpenAI-compatible server) for a real model. The run is a
workflow in the Temporal Web UI printed on stderr; ``./work/notes.txt`` is really written.
"""

from rath import flow
from rath.session import Session


def main() -> None:
    agent = flow.Agent(
        "Use tools when helpful.", provider=flow.Provider(model="gpt-4o-mini"), name="hello"
    )
    user = Session.from_user_message("Create notes.txt saying hi, then read it back.").to(
        "local", spec="./work"
    )
    out = agent(user)  # returns at once: `out` is lazy
    print(f"started run {out.run_id}")
    print(out)  # waits for the run, then prints the transcript
    print(f"tokens: {out.cumulative_usage}")


if __name__ == "__main__":
    main()
