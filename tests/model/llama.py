"""Starting llama-server processes on loopback for the real-model tests."""

from __future__ import annotations

import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

BUILD = Path(__file__).with_name("build-llama-server.sh")
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
TOOLS_TEMPLATE = "chatml-tools.jinja"


def built_binary() -> Path | None:
    """The cached llama-server (its model and template beside it), or ``None`` before it is built."""
    check = subprocess.run(["bash", str(BUILD), "--check"], capture_output=True, text=True)
    return Path(check.stdout.strip()) if check.returncode == 0 and check.stdout.strip() else None


def chat_options(binary: Path) -> list[str]:
    """llama.cpp's own chat templating, with a ChatML template that declares tools (SmolLM2's does
    not), so that llama-server itself parses the model's tool calls."""
    return ["--jinja", "--chat-template-file", str(binary.with_name(TOOLS_TEMPLATE))]


@dataclass
class LlamaServer:
    process: subprocess.Popen
    url: str

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def start(binary: Path, *options: str) -> LlamaServer:
    """llama-server serving SmolLM2-135M-Instruct on a free loopback port, once it says it is healthy."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = binary.with_name(MODEL_FILE)
    command = [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port), "-t", "2", "-c", "4096"]
    process = subprocess.Popen([*command, *options], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    running = LlamaServer(process, f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama-server exited {process.returncode}: {process.stderr.read().decode()[-2000:]}")
        try:
            if httpx.get(f"{running.url}/health", timeout=1).status_code == 200:
                return running
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    running.stop()
    raise RuntimeError("llama-server did not become healthy within 120 s")
