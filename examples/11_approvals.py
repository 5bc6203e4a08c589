"""11 · Approvals: a tool call that waits for a person.

Run it: ``python examples/11_approvals.py``. The agent's ``tool_policy`` says ``ask`` for file
writes: the run pauses (durably: a worker may restart meanwhile) until someone answers through
a Temporal update. This script answers itself; from a shell you would run
``rath approvals <workflow-id>`` and ``rath approve <workflow-id> <call-id>`` (or ``rath deny``),
or use ``temporal workflow update execute --name rath.approve``. No answer within the policy's
timeout counts as a denial, and denials reach the model as tool errors.
"""

import time

import rath
from rath import flow
from rath.session import Session


def main() -> None:
    agent = flow.Agent(
        "Use tools when helpful.",
        provider=flow.Provider(model="gpt-4o-mini"),
        tool_policy={"write_workspace_file": "ask", "run_shell_command": "deny"},
        name="careful",
    )
    out = agent(Session.from_user_message("Create notes.txt saying hi.").to("local", spec="./work"))
    waiting = []
    deadline = time.monotonic() + 60
    while not waiting and time.monotonic() < deadline:
        waiting = rath.pending_approvals(out)  # the run pauses before the write
        time.sleep(0.1)
    for call in waiting:
        print(f"waiting for approval: {call.agent} wants {call.tool} {call.arguments}")
        rath.approve(out, call.call_id)
        print(f"approved {call.call_id}")
    print(out)


if __name__ == "__main__":
    main()
