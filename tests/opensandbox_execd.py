#!/usr/bin/env python3
"""Test stand-in for OpenSandbox's in-sandbox agent ``execd``.

Not OpenSandbox's code: written from execd's published HTTP API as the official
``opensandbox`` Python SDK (1.1.1) calls it, because the real execd ships only as
the ``opensandbox/execd`` Docker image. Standard library only. Run it inside a
container as ``python3 tests/opensandbox_execd.py``; it listens on
0.0.0.0:$EXECD_PORT (default 44772).

Serves /ping, /metrics, POST /command (foreground only), DELETE /command?id=,
/files/upload|download|info|search, DELETE /files, /directories (POST, DELETE)
and /directories/list. A command's stream is bare JSON events (init, stdout,
stderr, then execution_complete, or an error whose evalue is the exit code; a
timeout kills the process group and reports 137). Relative paths resolve against
$EXECD_WORKDIR (default /workspace, else the daemon's directory). With
$EXECD_ACCESS_TOKEN set, requests must carry it in OpenSandbox-Execd-Token or
X-EXECD-ACCESS-TOKEN.
"""

from __future__ import annotations

import codecs
import contextlib
import fnmatch
import grp
import json
import os
import pwd
import queue
import re
import shutil
import signal
import stat
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

PORT = int(os.environ.get("EXECD_PORT", "44772"))
WORKDIR = os.environ.get("EXECD_WORKDIR", "/workspace")
TOKEN = os.environ.get("EXECD_ACCESS_TOKEN", "")
Query = dict[str, list[str]]
Reply = tuple[Any, ...] | None  # (status, payload[, headers]); None: the handler streamed already
Emit = Callable[[dict[str, Any]], None]
Proc = subprocess.Popen[bytes]
RUNNING: dict[str, Proc] = {}  # foreground commands by execution id
KINDS = {stat.S_IFLNK: "symlink", stat.S_IFDIR: "directory", stat.S_IFREG: "file"}


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def now_ms() -> int:
    return int(time.time() * 1000)


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat()


def base_dir() -> str:
    return WORKDIR if os.path.isdir(WORKDIR) else os.getcwd()


def resolve(path: str | None) -> str:
    if not path:
        raise ApiError(400, "MISSING_QUERY", "missing path")
    path = os.path.expanduser(path)
    return path if os.path.isabs(path) else os.path.join(base_dir(), path)


def name_of(lookup: Callable[[int], tuple[Any, ...]], ident: int) -> str:
    with contextlib.suppress(KeyError):
        return str(lookup(ident)[0])
    return str(ident)


def file_info(path: str) -> dict[str, Any]:
    st = os.lstat(path)
    return {
        "path": path,
        "size": st.st_size,
        "modified_at": iso(st.st_mtime),
        "created_at": iso(st.st_ctime),
        "owner": name_of(pwd.getpwuid, st.st_uid),
        "group": name_of(grp.getgrgid, st.st_gid),
        "type": KINDS.get(stat.S_IFMT(st.st_mode), "other"),
        "mode": int(oct(stat.S_IMODE(st.st_mode))[2:]),  # octal digits as an int, e.g. 644
    }


def apply_perm(path: str, perm: dict[str, Any]) -> None:
    """Apply a Permission object ({mode: 755, owner, group}) to ``path``."""
    if perm.get("mode") is not None:
        os.chmod(path, int(str(perm["mode"]), 8))
    owner: str | None = perm.get("owner") or None
    group: str | None = perm.get("group") or None
    if owner is not None or group is not None:
        shutil.chown(path, owner, group)  # type: ignore[arg-type]  # typeshed: not both None


def one(query: Query, key: str, default: str = "") -> str:
    return query.get(key, [default])[0] or default


# ---------------------------------------------------------------- commands
def expand_cwd(cwd: str | None, env: dict[str, str]) -> str:
    """cwd may use $NAME / ${NAME} (from the command's environment) and a leading ~."""
    expanded = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda v: env.get(v[1] or v[2], v[0]), cwd or "")
    return resolve(expanded) if expanded else base_dir()


def spawn(req: dict[str, Any]) -> Proc:
    if ("command" in req) == ("argv" in req):
        raise ApiError(400, "INVALID_REQUEST", "exactly one of command or argv is required")
    env = {**os.environ, **{str(k): str(v) for k, v in (req.get("envs") or {}).items()}}
    argv = req["argv"] if "argv" in req else ["/bin/sh", "-c", req["command"]]
    uid, gid = req.get("uid"), req.get("gid")
    if uid is not None and gid is None:
        gid = pwd.getpwuid(uid).pw_gid
    return subprocess.Popen(
        argv,
        cwd=expand_cwd(req.get("cwd"), env),
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        user=uid,
        group=gid,
    )


def kill_group(proc: Proc) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # the command runs in its own session / group


def pump(name: str, pipe: Any, q: queue.Queue[tuple[str, Any]]) -> None:
    for chunk in iter(lambda: pipe.read1(65536), b""):
        q.put((name, chunk))
    q.put((name, None))


def stream_output(proc: Proc, timeout_ms: int | None, emit: Emit) -> bool:
    """Emit stdout/stderr events until the process exits; True if it was killed on timeout."""
    q: queue.Queue[tuple[str, Any]] = queue.Queue()
    for name, pipe in (("stdout", proc.stdout), ("stderr", proc.stderr)):
        threading.Thread(target=pump, args=(name, pipe, q), daemon=True).start()
    threading.Thread(target=lambda: q.put(("exit", proc.wait())), daemon=True).start()
    deadline = time.monotonic() + timeout_ms / 1000 if timeout_ms else None
    decoders = {n: codecs.getincrementaldecoder("utf-8")("replace") for n in ("stdout", "stderr")}
    pending, grace, timed_out = {"stdout", "stderr", "exit"}, None, False
    while pending:
        limit = grace if grace is not None else (None if timed_out else deadline)
        try:
            kind, data = q.get(
                timeout=None if limit is None else max(0.0, limit - time.monotonic())
            )
        except queue.Empty:
            if grace is not None:
                break  # the shell exited but a detached child still holds the pipes
            timed_out = True
            kill_group(proc)
            continue
        if kind == "exit" or data is None:
            pending.discard(kind)
            grace = time.monotonic() + 0.5 if kind == "exit" else grace
        elif text := decoders[kind].decode(data):
            emit({"type": kind, "text": text})
    for kind, decoder in decoders.items():
        if text := decoder.decode(b"", final=True):
            emit({"type": kind, "text": text})
    return timed_out


def exec_error(value: str, detail: str) -> dict[str, Any]:
    return {
        "type": "error",
        "error": {"ename": "CommandExecError", "evalue": value, "traceback": [detail]},
    }


def h_run(rh: Handler, q: Query, body: bytes, m: re.Match[str]) -> Reply:
    """Foreground command: init, stdout/stderr..., then execution_complete or an error whose
    evalue is the exit code (the SDK turns it into Execution.exit_code)."""
    req = json.loads(body or b"{}")
    if req.get("background"):
        raise ApiError(400, "INVALID_REQUEST", "this stand-in runs foreground commands only")
    try:
        proc = spawn(req)
    except (OSError, subprocess.SubprocessError) as e:  # e.g. missing cwd: reported in-stream
        emit = rh.start_stream()
        emit({"type": "init", "text": ""})
        emit(exec_error(str(e), str(e)))
        rh.end_stream()
        return None
    cid, started = uuid.uuid4().hex, time.monotonic()
    RUNNING[cid] = proc
    emit = rh.start_stream()
    try:
        emit({"type": "init", "text": cid})
        timed_out = stream_output(proc, req.get("timeout"), emit)
    except (BrokenPipeError, ConnectionResetError):
        kill_group(proc)
        raise
    finally:
        RUNNING.pop(cid, None)
    code = proc.wait()
    code = 128 - code if code < 0 else code  # killed by signal N -> 128+N, as a shell reports it
    if timed_out:
        emit(exec_error(str(code), f"command timed out after {req['timeout']} ms"))
    elif code:
        emit(exec_error(str(code), f"exit status {code}"))
    else:
        elapsed_ms = int((time.monotonic() - started) * 1000)
        emit({"type": "execution_complete", "execution_time": elapsed_ms})
    rh.end_stream()
    return None


def h_interrupt(rh: Handler, q: Query, body: bytes, m: re.Match[str]) -> Reply:
    proc = RUNNING.get(one(q, "id") or "")
    if proc is None:
        raise ApiError(404, "INVALID_REQUEST", f"no running command {one(q, 'id')}")
    kill_group(proc)
    return 200, None


# -------------------------------------------------------------- filesystem
def multipart(body: bytes, content_type: str) -> list[tuple[str, bytes]]:
    m = re.search(r'boundary="?([^";]+)"?', content_type)
    if not m:
        raise ApiError(400, "INVALID_REQUEST", "multipart boundary missing")
    parts = []
    for chunk in body.split(b"--" + m.group(1).encode())[1:]:
        if chunk.startswith(b"--"):
            break
        head, _, data = chunk.partition(b"\r\n\r\n")
        name = re.search(rb'\bname="([^"]*)"', head)
        parts.append((name.group(1).decode() if name else "", data.removesuffix(b"\r\n")))
    return parts


def h_upload(rh: Handler, q: Query, body: bytes, m: re.Match[str]) -> Reply:
    meta: dict[str, Any] | None = None
    for name, data in multipart(body, rh.headers.get("Content-Type", "")):
        if name == "metadata":
            meta = json.loads(data)
        elif name == "file":
            if not meta or not meta.get("path"):
                raise ApiError(400, "INVALID_REQUEST", "file part without metadata path")
            path = resolve(meta["path"])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
            apply_perm(path, meta)
            meta = None
    return 200, None


def h_download(rh: Handler, q: Query, body: bytes, m: re.Match[str]) -> Reply:
    with open(resolve(one(q, "path")), "rb") as f:
        data = f.read()
    if one(q, "offset") or one(q, "limit"):
        start = max(int(one(q, "offset", "1")) - 1, 0)
        lines = data.splitlines(keepends=True)[start:]
        data = b"".join(lines[: int(one(q, "limit"))] if one(q, "limit") else lines)
    if not (header := rh.headers.get("Range")):
        return 200, data
    rng = re.fullmatch(r"bytes=(\d+)-(\d*)", header.strip())  # single "bytes=lo-[hi]" ranges only
    if not rng or int(rng[1]) >= len(data):
        raise ApiError(416, "INVALID_RANGE", f"unsatisfiable {header!r} ({len(data)} bytes)")
    hi = min(int(rng[2] or len(data) - 1), len(data) - 1)
    return 206, data[int(rng[1]) : hi + 1], {"Content-Range": f"bytes {rng[1]}-{hi}/{len(data)}"}


def h_info(rh: Handler, q: Query, body: bytes, m: re.Match[str]) -> Reply:
    return 200, {p: file_info(resolve(p)) for p in q.get("path", [])}


def h_search(rh: Handler, q: Query, body: bytes, m: re.Match[str]) -> Reply:
    root, pattern = resolve(one(q, "path")), one(q, "pattern") or "**"
    os.stat(root)  # 404 when missing
    found = (
        os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if fnmatch.fnmatch(f, pattern)
    )
    return 200, [file_info(p) for p in sorted(found)]


def list_dir(path: str, depth: int) -> list[dict[str, Any]]:
    out = []
    for name in sorted(os.listdir(path)):
        child = os.path.join(path, name)
        out.append(file_info(child))
        if depth > 1 and out[-1]["type"] == "directory":
            out.extend(list_dir(child, depth - 1))
    return out


def h_list(rh: Handler, q: Query, body: bytes, m: re.Match[str]) -> Reply:
    path = resolve(one(q, "path"))
    if os.path.islink(path):
        raise ApiError(400, "INVALID_REQUEST", "path is a symbolic link")
    return 200, list_dir(path, int(one(q, "depth", "1")))


def h_delete_files(rh: Handler, q: Query, body: bytes, m: re.Match[str]) -> Reply:
    for p in q.get("path", []):
        with contextlib.suppress(FileNotFoundError):
            os.remove(resolve(p))
    return 200, None


def h_mkdirs(rh: Handler, q: Query, body: bytes, m: re.Match[str]) -> Reply:
    for p, perm in json.loads(body).items():
        os.makedirs(resolve(p), exist_ok=True)
        apply_perm(resolve(p), perm or {})
    return 200, None


def h_rmdirs(rh: Handler, q: Query, body: bytes, m: re.Match[str]) -> Reply:
    for p in q.get("path", []):
        shutil.rmtree(resolve(p), ignore_errors=True)
    return 200, None


def h_metrics(rh: Handler, q: Query, body: bytes, m: re.Match[str]) -> Reply:
    """Rough figures: 1-minute load average as CPU %, /proc/meminfo for memory (MiB)."""
    with open("/proc/meminfo") as f:
        mem = {k: float(v.split()[0]) / 1024 for k, v in (ln.split(":", 1) for ln in f)}
    cpus, total = float(os.cpu_count() or 1), mem.get("MemTotal", 0.0)
    return 200, {
        "cpu_count": cpus,
        "cpu_used_pct": min(100.0, os.getloadavg()[0] / cpus * 100),
        "mem_total_mib": total,
        "mem_used_mib": total - mem.get("MemAvailable", total),
        "timestamp": now_ms(),
    }


ROUTES: list[tuple[str, re.Pattern[str], Callable[..., Reply]]] = [
    (meth, re.compile(pat + r"/?"), fn)
    for meth, pat, fn in [
        ("GET", "/ping", lambda *_: (200, None)),
        ("GET", "/metrics", h_metrics),
        ("POST", "/command", h_run),
        ("DELETE", "/command", h_interrupt),
        ("POST", "/files/upload", h_upload),
        ("GET", "/files/download", h_download),
        ("GET", "/files/info", h_info),
        ("GET", "/files/search", h_search),
        ("DELETE", "/files", h_delete_files),
        ("POST", "/directories", h_mkdirs),
        ("DELETE", "/directories", h_rmdirs),
        ("GET", "/directories/list", h_list),
    ]
]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "execd-standin/1.0"

    def log_message(self, fmt: str, *args: Any) -> None:
        if os.environ.get("EXECD_VERBOSE"):
            super().log_message(fmt, *args)

    def read_body(self) -> bytes:
        if "chunked" not in self.headers.get("Transfer-Encoding", "").lower():
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))
        out = bytearray()
        while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
            out += self.rfile.read(size)
            self.rfile.readline()
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass  # trailers
        return bytes(out)

    def dispatch(self) -> None:
        url = urlsplit(self.path)
        # The server publishes the agent as ``<host port>/proxy/44772``: the agent's own port.
        proxied = re.fullmatch(r"/proxy/(\d+)(/.*)?", url.path)
        if proxied and int(proxied.group(1)) == PORT:
            url = url._replace(path=proxied.group(2) or "/")
        try:
            body = self.read_body()
            if TOKEN and TOKEN not in (
                self.headers.get("OpenSandbox-Execd-Token"),
                self.headers.get("X-EXECD-ACCESS-TOKEN"),
            ):
                raise ApiError(401, "UNAUTHORIZED", "missing or invalid execd access token")
            for meth, pattern, fn in ROUTES:
                if meth == self.command and (m := pattern.fullmatch(url.path)):
                    reply = fn(self, parse_qs(url.query, keep_blank_values=True), body, m)
                    if reply is not None:
                        self.send(*reply)
                    return
            raise ApiError(404, "NOT_FOUND", f"no route for {self.command} {url.path}")
        except ApiError as e:
            self.send(e.status, {"code": e.code, "message": e.message})
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except FileNotFoundError as e:
            self.send(404, {"code": "FILE_NOT_FOUND", "message": f"file not found. {e}"})
        except OSError as e:
            self.send(500, {"code": "RUNTIME_ERROR", "message": f"error accessing file: {e}"})
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            self.send(400, {"code": "INVALID_REQUEST_BODY", "message": f"invalid request: {e!r}"})

    do_GET = do_POST = do_DELETE = dispatch

    def send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        ctype = "application/octet-stream" if isinstance(payload, bytes) else "application/json"
        self.send_response(status)
        for key, value in {"Content-Type": ctype, **(headers or {})}.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def start_stream(self) -> Emit:
        """Open a chunked event stream; events are bare JSON objects ending in a blank line."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def emit(event: dict[str, Any]) -> None:
            frame = json.dumps({**event, "timestamp": now_ms()}).encode() + b"\n\n"
            self.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))

        return emit

    def end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")


def main() -> None:
    ThreadingHTTPServer.request_queue_size = 128  # listen backlog for bursts of parallel calls
    server = ThreadingHTTPServer(("0.0.0.0", PORT), Handler)  # daemon threads: exits promptly
    print(f"execd stand-in listening on 0.0.0.0:{PORT}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
