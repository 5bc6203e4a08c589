"""Telemetry through a real OTLP/HTTP receiver: a script's Squad run, traces and metrics,
with Temporal's runtime metrics, switched on by OTEL_EXPORTER_OTLP_ENDPOINT alone."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

from otlp_receiver import OtlpReceiver
from squad_app import files_model
from workers import with_tests_importable

from rath.settings import Settings
from rath.testing import FakeChatServer, function_handler

COMPOSE_DIR = Path(__file__).resolve().parents[1] / "compose"  # squad_app
SCRIPT = """
import sys
from squad_app import Squad
from support import FAST
from rath import flow
from rath.session import Session

provider = flow.Provider(model="fake-model", base_url=sys.argv[1], api_key="test-key")
user = Session.from_user_message("build").to("local", spec=sys.argv[2])
out = Squad(provider, options=FAST)(user)
out.synchronize()
print(out.id, flush=True)
sys.stdin.readline()  # stay up until the test has seen the runtime's metrics
"""


def test_a_script_exports_traces_and_metrics_over_otlp(rath_env: Settings, tmp_path: Path) -> None:
    with OtlpReceiver() as receiver, FakeChatServer(function_handler(files_model)) as server:
        env = with_tests_importable(dict(os.environ))
        env["PYTHONPATH"] = os.pathsep.join([str(COMPOSE_DIR), env["PYTHONPATH"]])
        env.pop("RATH_OTEL", None)
        env.update(
            RATH_HOME=str(rath_env.home),
            RATH_TASK_QUEUE=f"otlp-{uuid.uuid4().hex[:8]}",
            OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint,
            OTEL_METRIC_EXPORT_INTERVAL="500",
            OTEL_BSP_SCHEDULE_DELAY="100",
            OTEL_SERVICE_NAME="rath-otlp-test",
        )
        script = subprocess.Popen(
            [sys.executable, "-c", SCRIPT, server.base_url, str(tmp_path / "ws")],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert script.stdout is not None and script.stdin is not None
            session_id = script.stdout.readline().strip()
            assert session_id, script.communicate(timeout=30)[1]
            assert receiver.wait_for(
                lambda r: any(name.startswith("temporal_") for name in r.metric_names)
            ), sorted(receiver.metric_names)
            _, stderr = script.communicate(input="\n", timeout=60)
        finally:
            if script.poll() is None:
                script.kill()
                script.wait(30)
        assert script.returncode == 0, stderr

        # The providers flush at exit: everything the run made is there now.
        names = [span["name"] for span in receiver.spans]
        assert names.count("rath.forward Squad") == 1, names
        assert sorted(n for n in names if n.startswith("invoke_agent ")) == [
            "invoke_agent coder_a",
            "invoke_agent coder_b",
            "invoke_agent planner",
            "invoke_agent reviewer",
        ]
        assert names.count("chat fake-model") == 6
        assert names.count("execute_tool write_workspace_file") == 2
        forward = next(s for s in receiver.spans if s["name"] == "rath.forward Squad")
        assert forward["attributes"]["rath.session.output"] == session_id
        assert {s["trace_id"] for s in receiver.spans} == {forward["trace_id"]}
        chat = next(s for s in receiver.spans if s["name"] == "chat fake-model")
        assert chat["attributes"]["gen_ai.usage.input_tokens"] in (10, 20)
        assert {"rath.llm.calls", "rath.llm.tokens", "rath.llm.duration"} <= receiver.metric_names
        assert {"rath.tool.calls", "rath.tool.duration"} <= receiver.metric_names
