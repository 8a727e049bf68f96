"""A Hugging Face Hub on 127.0.0.1 serving the endpoints huggingface_hub calls, so its real code runs.

Read from huggingface_hub 2.4's source (file_download.py, hf_api.py, _commit_api.py, utils/_http.py):
- HEAD /{repo}/resolve/{revision}/{file}: X-Repo-Commit, ETag (the git blob sha1), and for LFS files
  X-Linked-Etag (sha256) and X-Linked-Size; errors carry X-Error-Code (RepoNotFound, GatedRepo,
  RevisionNotFound, EntryNotFound), which hf_raise_for_status turns into its exception classes.
- GET of the same URL: the bytes; for LFS files a 302 to /lfs/{sha256}, where Range requests get 206.
- GET /api/models/{repo}/revision/{revision}: model info with `sha` and `siblings`.
- POST /api/models/{repo}/preupload/{revision} and /commit/{revision} (ndjson): create_commit.

Faults for the tests: a delay, a connection cut mid-body, or a short 206, per file name.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

LFS_SUFFIXES = (".safetensors", ".bin", ".gguf")


def git_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def commit_id(seed: str) -> str:
    return hashlib.sha1(seed.encode()).hexdigest()


@dataclass
class Repo:
    trees: dict[str, dict[str, bytes]] = field(default_factory=dict)  # commit -> file name -> bytes
    refs: dict[str, str] = field(default_factory=dict)  # branch or tag -> commit
    granted: str | None = None  # gated: the one token with access


@dataclass
class Fault:
    delay: float = 0.0  # seconds before answering
    cut: bool = False  # promise the full body, send half, close the connection
    short: bool = False  # a 206 that holds only the first 16 bytes of the range it claims to answer
    status: int | None = None  # answer with this error status instead
    methods: tuple[str, ...] = ("GET",)


class FakeHub:
    def __init__(self) -> None:
        self.repos: dict[str, Repo] = {}
        self.faults: dict[str, Fault] = {}  # file name -> fault
        self.requests: list[tuple[str, str, dict[str, str]]] = []  # (method, path, headers)
        self.commits: list[dict] = []  # create_commit payloads received
        self.waiting = self.max_waiting = 0  # requests inside a Fault's delay, now and at most
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def add(self, repo_id: str, files: dict[str, bytes] | Path, *, revision: str = "main", granted: str | None = None) -> str:
        """Publish files (a dict, or every file of a directory) as a new commit on `revision`; return its id."""
        if isinstance(files, Path):
            files = {p.name: p.read_bytes() for p in sorted(files.iterdir()) if p.is_file()}
        repo = self.repos.setdefault(repo_id, Repo())
        repo.granted = granted if granted is not None else repo.granted
        commit = commit_id(f"{repo_id}@{revision}#{len(repo.trees)}")
        repo.trees[commit] = dict(files)
        repo.refs[revision] = commit
        return commit

    def start(self) -> "FakeHub":
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def paths(self, method: str | None = None) -> list[str]:
        return [p for m, p, _ in self.requests if method is None or m == method]


def _handler(hub: FakeHub):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep test output clean
            pass

        def handle(self) -> None:
            try:
                super().handle()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test): nothing to answer

        def do_HEAD(self) -> None:
            self._serve("HEAD")

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def _serve(self, method: str) -> None:
            with hub._lock:
                hub.requests.append((method, self.path, dict(self.headers)))
            self._route(method)

        def _route(self, method: str) -> None:
            url = urlsplit(self.path)
            path = unquote(url.path)
            if m := re.fullmatch(r"/lfs/([0-9a-f]{64})", path):
                return self._lfs(m.group(1))
            if m := re.fullmatch(r"/api/models/([^/]+/[^/]+)/revision/(.+)", path):
                return self._info(m.group(1), m.group(2))
            if m := re.fullmatch(r"/api/models/([^/]+/[^/]+)/(preupload|commit)/(.+)", path):
                return self._commit(m.group(1), m.group(2), m.group(3), parse_qs(url.query))
            if m := re.fullmatch(r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path):
                return self._resolve(method, m.group(1), unquote(m.group(2)), m.group(3))
            self._send(404, b"", {"X-Error-Code": "EntryNotFound"})

        # -- access ------------------------------------------------------------------------------

        def _token(self) -> str | None:
            auth = self.headers.get("authorization", "")
            return auth[len("Bearer "):] if auth.startswith("Bearer ") else None

        def _tree(self, repo_id: str, revision: str) -> tuple[str, dict[str, bytes]] | None:
            """The commit and files, or None after answering with the error the Hub gives."""
            repo, token = hub.repos.get(repo_id), self._token()
            if repo is None:
                self._error(404 if token else 401, "RepoNotFound", "Repository not found")
                return None
            if repo.granted is not None and token != repo.granted:
                message = f"Access to model {repo_id} is restricted"
                self._error(403 if token else 401, "GatedRepo", message + (" and you are not in the authorized list." if token else ". You must have access to it and be authenticated to access it. Please log in."))
                return None
            commit = repo.refs.get(revision, revision if revision in repo.trees else None)
            if commit is None:
                self._error(404, "RevisionNotFound", "Invalid rev id: " + revision)
                return None
            return commit, repo.trees[commit]

        # -- endpoints ---------------------------------------------------------------------------

        def _resolve(self, method: str, repo_id: str, revision: str, name: str) -> None:
            found = self._tree(repo_id, revision)
            if found is None:
                return
            commit, files = found
            if name not in files:
                return self._error(404, "EntryNotFound", f"{name} does not exist on \"{revision}\"", {"X-Repo-Commit": commit})
            data = files[name]
            headers = {"X-Repo-Commit": commit, "ETag": f'"{git_sha1(data)}"', "Accept-Ranges": "bytes"}
            lfs = name.endswith(LFS_SUFFIXES)
            if lfs:
                headers |= {"X-Linked-Etag": f'"{hashlib.sha256(data).hexdigest()}"', "X-Linked-Size": str(len(data))}
            fault = hub.faults.get(name)
            if fault and method in fault.methods and fault.delay:
                self._wait(fault.delay)
            if method == "HEAD":
                return self._send(200, b"", headers | {"Content-Length": str(len(data))}, body=False)
            if lfs:  # the Hub sends LFS downloads to its CDN
                return self._send(302, b"", headers | {"Location": f"{hub.url}/lfs/{hashlib.sha256(data).hexdigest()}"})
            self._ranged(data, fault, headers)

        def _wait(self, seconds: float) -> None:
            """A slow answer; `max_waiting` is how many overlapped (counted while they wait, before any
            response is written, so a client's next request cannot overlap a finished one)."""
            with hub._lock:
                hub.waiting += 1
                hub.max_waiting = max(hub.max_waiting, hub.waiting)
            try:
                time.sleep(seconds)
            finally:
                with hub._lock:
                    hub.waiting -= 1

        def _lfs(self, sha256: str) -> None:
            for repo in hub.repos.values():
                for files in repo.trees.values():
                    for name, data in files.items():
                        if hashlib.sha256(data).hexdigest() == sha256:
                            return self._ranged(data, hub.faults.get(name), {"ETag": f'"{sha256}"'})
            self._send(404, b"")

        def _ranged(self, data: bytes, fault: Fault | None, headers: dict[str, str]) -> None:
            if fault and fault.status:
                return self._send(fault.status, b"upstream failure")
            match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("range", ""))
            if not match:
                return self._send(200, data, headers)
            start = int(match.group(1))
            end = min(int(match.group(2)) if match.group(2) else len(data) - 1, len(data) - 1)
            part = data[start:end + 1]
            headers = headers | {"Content-Range": f"bytes {start}-{end}/{len(data)}"}
            if fault and fault.short:
                part = part[:16]
            if fault and fault.cut:
                self.send_response(206)
                for key, value in (headers | {"Content-Length": str(len(part))}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(part[: len(part) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            self._send(206, part, headers)

        def _info(self, repo_id: str, revision: str) -> None:
            found = self._tree(repo_id, revision)
            if found is None:
                return
            commit, files = found
            repo = hub.repos[repo_id]
            body = {
                "_id": commit[:24], "id": repo_id, "modelId": repo_id, "sha": commit, "private": False,
                "gated": "manual" if repo.granted else False, "siblings": [{"rfilename": n} for n in sorted(files)],
            }
            self._send(200, json.dumps(body).encode(), {"Content-Type": "application/json"})

        def _commit(self, repo_id: str, action: str, revision: str, query: dict) -> None:
            found = self._tree(repo_id, revision)
            if found is None:
                return
            raw = self.rfile.read(int(self.headers.get("content-length", "0")))
            if action == "preupload":
                files = json.loads(raw)["files"]
                answer = {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False, "oid": None} for f in files]}
                return self._send(200, json.dumps(answer).encode(), {"Content-Type": "application/json"})
            lines = [json.loads(line) for line in raw.splitlines() if line.strip()]
            header = next(item["value"] for item in lines if item["key"] == "header")
            files = {item["value"]["path"]: base64.b64decode(item["value"]["content"]) for item in lines if item["key"] == "file"}
            hub.commits.append({"repo": repo_id, "revision": revision, "create_pr": query.get("create_pr") == ["1"], "header": header, "files": files, "token": self._token()})
            oid = commit_id(f"pr-{len(hub.commits)}")
            answer = {"commitUrl": f"{hub.url}/{repo_id}/commit/{oid}", "commitOid": oid, "pullRequestUrl": f"{hub.url}/{repo_id}/discussions/{len(hub.commits)}"}
            self._send(200, json.dumps(answer).encode(), {"Content-Type": "application/json"})

        # -- replies -----------------------------------------------------------------------------

        def _error(self, status: int, code: str, message: str, extra: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps({"error": message}).encode(), {"X-Error-Code": code, "X-Error-Message": message, "Content-Type": "application/json", **(extra or {})})

        def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None, *, body: bool = True) -> None:
            """`body=False` for HEAD: the headers (Content-Length included) describe a body not sent."""
            self.send_response(status)
            headers = dict(headers or {})
            headers.setdefault("Content-Length", str(len(payload)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            if body and payload:
                self.wfile.write(payload)

    return Handler
