"""Test support: a scripted HTTP server for what a real service won't do on demand, the real `brain-mcp serve`
for everything else, and one fixture that runs each scenario against both `Brain` and `AsyncBrain`."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Union

import pytest

from brain_client import AsyncBrain, Brain

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "bin" / "brain-mcp.js"
FIXTURES = ROOT / "test" / "fixtures" / "wire"
KEY = "svc_ws_PyTestKey0123456789abcdefghijKL"


# The golden wire fixtures (test/fixtures/wire), shared with the TypeScript tests.


def wire_fixtures(kind: str) -> List[Dict[str, Any]]:
    out = []
    for path in sorted((FIXTURES / kind).glob("*.json")):
        data = json.loads(path.read_text())
        operation = next((op for op in ("store", "retrieve", "health", "status") if path.name.startswith(op)), None)
        out.append({"name": f"{kind}/{path.name}", "operation": operation if kind != "errors" else None, **data})
    return out


# A scripted server on 127.0.0.1.


@dataclass
class Reply:
    status: int = 200
    headers: Dict[str, str] = field(default_factory=lambda: {"content-type": "application/json"})
    body: Union[str, bytes, Any] = None
    delay: float = 0.0
    reset: bool = False
    """Close the connection without answering."""


@dataclass
class Received:
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes


Script = Callable[[Received, int], Reply]


class ScriptedServer:
    def __init__(self) -> None:
        self.received: List[Received] = []
        self.script: Script = lambda _req, _n: Reply(body={})
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                req = Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                owner.received.append(req)
                reply = owner.script(req, len(owner.received))
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.reset:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    self.connection.close()
                    self.close_connection = True
                    return
                raw = reply.body
                data = (
                    raw
                    if isinstance(raw, bytes)
                    else raw.encode()
                    if isinstance(raw, str)
                    else json.dumps(raw).encode()
                )
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = _handle

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def play(self, fixture: Dict[str, Any]) -> None:
        self.script = lambda _req, _n: Reply(fixture["status"], dict(fixture["headers"]), fixture["body"])

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="session")
def _shared_server() -> Iterator[ScriptedServer]:
    s = ScriptedServer()
    yield s
    s.close()


@pytest.fixture
def server(_shared_server: ScriptedServer) -> ScriptedServer:
    """The session's scripted server, with no script and no requests seen."""
    _shared_server.received.clear()
    _shared_server.script = lambda _req, _n: Reply(body={})
    return _shared_server


# Both clients behind one awaitable face.


class Client:
    """Runs each call on `Brain` or `AsyncBrain`, so one test body covers both."""

    def __init__(self, kind: str, **kwargs: Any) -> None:
        self.kind = kind
        self.inner: Union[Brain, AsyncBrain] = Brain(**kwargs) if kind == "sync" else AsyncBrain(**kwargs)

    async def _run(self, result: Any) -> Any:
        return await result if self.kind == "async" else result

    async def store(self, text: str, meta: Optional[Dict[str, Any]] = None) -> Any:
        return await self._run(self.inner.memory.store(text, meta))

    async def retrieve(self, query: str, top_k: Optional[int] = None, min_score: Optional[float] = None) -> Any:
        return await self._run(self.inner.memory.retrieve(query, top_k=top_k, min_score=min_score))

    async def health(self) -> Any:
        return await self._run(self.inner.optimize.health())

    async def status(self) -> Any:
        return await self._run(self.inner.status())

    async def call(self, operation: str) -> Any:
        if operation == "store":
            return await self.store("The staging deploy runs every Friday at 4pm.")
        if operation == "retrieve":
            return await self.retrieve("when does staging deploy?")
        if operation == "health":
            return await self.health()
        return await self.status()

    async def close(self) -> None:
        await self._run(self.inner.close())


@pytest.fixture(params=["sync", "async"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make(kind: str) -> Iterator[Callable[..., Client]]:
    made: List[Client] = []

    def factory(**kwargs: Any) -> Client:
        client = Client(kind, **kwargs)
        made.append(client)
        return client

    yield factory
    for client in made:
        if client.kind == "sync":
            client.inner.close()


# The real service.


@dataclass
class Service:
    url: str
    db: str
    env: Dict[str, str]
    process: subprocess.Popen[str]

    def admin(self, *args: str, stdin: Optional[str] = None) -> Dict[str, Any]:
        run = subprocess.run(
            ["node", str(BIN), "admin", *args, "--db", self.db, "--json"],
            input=stdin,
            capture_output=True,
            text=True,
            env=self.env,
            timeout=60,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        result: Dict[str, Any] = json.loads(run.stdout)
        return result

    def workspace(self, name: str) -> Dict[str, Any]:
        return self.admin("workspace", "create", "--name", name)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def start_service(extra_env: Optional[Dict[str, str]] = None) -> Service:
    if not (ROOT / "dist" / "index.js").exists():
        pytest.fail("dist/ is not built: run `npm run build` in the repository first", pytrace=False)
    if shutil.which("node") is None:
        pytest.fail("node is not on PATH", pytrace=False)
    home = tempfile.mkdtemp(prefix="brain-client-py-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRAIN_")}
    env.update(
        {"HOME": home, "XDG_CONFIG_HOME": f"{home}/config", "XDG_DATA_HOME": f"{home}/data", "BRAIN_LOG": "warn"}
    )
    env.update(extra_env or {})
    db = f"{home}/brain.db"
    process = subprocess.Popen(
        ["node", str(BIN), "serve", "--port", "0", "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 90
    out = ""
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line and process.poll() is not None:
            break
        out += line
        match = re.search(r"listening on (https?://\S+)", out)
        if match:
            threading.Thread(target=process.stdout.read, daemon=True).start()
            return Service(match.group(1), db, env, process)
    process.kill()
    raise RuntimeError(f"brain-mcp serve did not start:\n{out}")


@pytest.fixture(scope="session")
def service() -> Iterator[Service]:
    s = start_service()
    yield s
    s.stop()
