"""10 · Provider variation: the same agent on an OpenAI-compatible model and on Anthropic.

Run it: ``python examples/10_provider_variation.py``. A provider is picked by kind:
``Provider(model="gpt-4o-mini")`` (any OpenAI-compatible server: OpenAI, vLLM, Ollama,
llama.cpp with ``base_url=``) or ``Provider(model="anthropic:claude-sonnet-4-5")`` (Anthropic's
Messages API through the official ``anthropic`` SDK: system prompt, ``tool_use`` and
``tool_result`` blocks translated both ways). Either way Temporal owns the retries.

Offline, the OpenAI run uses the demo model, and without ``ANTHROPIC_API_KEY`` the Anthropic
run talks to a local scripted stand-in that speaks the Messages API
(``rath.testing.FakeAnthropicServer``), so the whole wire path still runs.
"""

import os
from contextlib import ExitStack

from rath import flow
from rath.session import Session
from rath.testing import FakeAnthropicServer, text_reply, tool_call_reply


def main() -> None:
    question = "Create hello.txt saying hi, then read it back."
    with ExitStack() as stack:
        anthropic = flow.Provider(model="anthropic:claude-sonnet-4-5", max_tokens=512)
        if not os.environ.get("ANTHROPIC_API_KEY"):
            stand_in = FakeAnthropicServer(
                [
                    tool_call_reply(
                        ("write_workspace_file", {"path": "hello.txt", "content": "hi"})
                    ),
                    tool_call_reply(("read_workspace_file", {"path": "hello.txt"})),
                    text_reply("(scripted Anthropic stand-in) I wrote hello.txt and read back: hi"),
                ]
            )
            stack.enter_context(stand_in)
            anthropic = flow.Provider(
                model="anthropic:claude-sonnet-4-5",
                base_url=stand_in.base_url,
                api_key="offline-stand-in",
                max_tokens=512,
            )
        for label, provider in [
            ("openai", flow.Provider(model="gpt-4o-mini")),
            ("anthropic", anthropic),
        ]:
            agent = flow.Agent("Use tools when helpful.", provider=provider, name=label)
            out = agent(Session.from_user_message(question).to("local", spec=f"./work/{label}"))
            print(f"=== provider_kind={label} ===")
            print(out.chunk_table.rows[-1].payload["content"])
            print(f"--- tokens: {out.cumulative_usage.total_tokens if out.cumulative_usage else 0}")


if __name__ == "__main__":
    main()
