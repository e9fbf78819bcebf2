"""Conversation turn overhead: Steward's own server time per model round, the model's time excluded.

A scripted OpenAI-compatible model and Steward both serve on loopback (threads of this process).
Each automatic turn is two rounds (the model proposes ``bench.ping``, then answers in text); each
confirmed turn is a pause (one round) and a resume (one more). The server reports its own time and
the model's in a ``Server-Timing`` header; the figure is (total − model) / rounds, median, in ms.
"""

import re
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import trivial_plugin

import steward
from steward.testing import Rule, ScriptedModel, serve_app, serve_host

TURNS = 300
RULES = [
    Rule(r"\bping\b", calls=[("bench.ping", {"text": "hello"})]),
    Rule(r"\bremote\b", calls=[("bench.remote", {"text": "hello"})]),
]


def steward_ms(response) -> float:
    return float(re.search(r"steward;dur=([0-9.]+)", response.headers["Server-Timing"]).group(1))


def main() -> None:
    model = ScriptedModel(rules=RULES)
    with tempfile.TemporaryDirectory() as directory, serve_app(model.app()) as model_url:
        config = {"model": {"base_url": f"{model_url}/v1"}}
        with serve_host([steward.Plugin("bench", trivial_plugin)], data_dir=Path(directory), config=config) as server:
            client = server.client(["conversation"])
            automatic, confirmed = [], []
            for index in range(TURNS + 20):
                response = client.post(
                    "/api/v1/conversation/message", json={"messages": [{"role": "user", "content": "ping"}]}
                )
                assert response.json()["rounds"] == 2
                if index >= 20:
                    automatic.append(steward_ms(response) / 2)
            for index in range(TURNS // 3 + 10):
                paused = client.post(
                    "/api/v1/conversation/message", json={"messages": [{"role": "user", "content": "remote"}]}
                )
                token = paused.json()["pending_confirmation"]["token"]
                resumed = client.post(
                    "/api/v1/conversation/message", json={"confirmation": {"token": token, "approve": True}}
                )
                assert resumed.json()["invocations"][0]["status"] == "ok"
                if index >= 10:
                    confirmed.append((steward_ms(paused) + steward_ms(resumed)) / 2)
    print(
        f"turn overhead: {statistics.median(automatic):.3f} ms per round (automatic turns, median of {TURNS}), "
        f"{statistics.median(confirmed):.3f} ms per round (pause + approve + resume, median of {TURNS // 3})"
    )


if __name__ == "__main__":
    main()
