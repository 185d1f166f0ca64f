"""protoc for a threaded server: one long-lived worker process, asked one request at a time.

The worker (:mod:`registry.schema_types.protobuf.worker`) is started on first use, fed over a pipe under
a lock, and started again when it has died (killed, crashed on a schema, or inherited from the process
this one was forked from). A request whose worker dies is retried once with a fresh worker, so an outside
kill costs one restart; a schema that kills the compiler twice, or keeps it busy longer than
``COMPILE_TIMEOUT_SECONDS``, is reported as :class:`CompilerFailed`. protoc's messages come back as
:class:`CompilerMessage` values, never through this process's stderr.
"""

from __future__ import annotations

import atexit
import base64
import json
import os
import re
import select
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from google.protobuf.descriptor_pb2 import FileDescriptorProto, FileDescriptorSet

from registry.schema_types.protobuf import worker

#: The name of a schema's own file, as Confluent's serialized form names it.
SCHEMA_FILE = "default"

#: How long one compilation may take before the worker is killed (protoc takes about a millisecond).
COMPILE_TIMEOUT_SECONDS = 10.0

_MESSAGE = re.compile(r"^(?P<file>[^:\n]+?):(?:(?P<line>\d+):(?P<column>\d+):)? ?(?P<text>.*)$")
#: protobuf's C++ library logs some refusals (a descriptor's invalid names) through abseil, with a
#: severity, a time, a thread and a source line before the text; and once a notice that logging is not
#: set up. Neither is for the person who sent the schema.
_ABSL_LOG = re.compile(r"[IWEF]\d{4} [\d:.]+\s+\d+ [\w.]+:\d+\] (?P<text>.*)")
_ABSL_NOTICE = "All log messages before absl::InitializeLog() is called are written to STDERR"


@dataclass(frozen=True)
class CompilerMessage:
    """One line protoc printed: ``file:line:column: text`` (line and column 1-based) or ``file: text``."""

    file: str
    text: str
    line: int | None = None
    column: int | None = None

    @property
    def is_warning(self) -> bool:
        return self.text.startswith("warning:")


@dataclass(frozen=True)
class Compiled:
    """What one compilation gave: the files (the target last, each after what it imports) or messages."""

    files: tuple[FileDescriptorProto, ...] = ()
    messages: tuple[CompilerMessage, ...] = ()

    @property
    def ok(self) -> bool:
        return bool(self.files)


class CompilerFailed(RuntimeError):
    """The compiler died twice on a request, or took too long; the worker has been stopped."""


class _WorkerGone(Exception):
    """The worker's pipe closed mid-request."""


class Compiler:
    """A protoc worker process shared by the threads of this process."""

    def __init__(self, timeout: float = COMPILE_TIMEOUT_SECONDS) -> None:
        self.timeout = timeout
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._owner = 0  # the pid that started the worker; a forked child starts its own

    @property
    def worker_pid(self) -> int | None:
        """The running worker's process id (None before first use); tests kill it."""
        process = self._process
        return process.pid if process is not None and self._owner == os.getpid() else None

    def compile(
        self,
        target: str,
        includes: Sequence[str],
        sources: Mapping[str, str] | None = None,
        given: Sequence[FileDescriptorProto] = (),
        source_info: bool = False,
    ) -> Compiled:
        """Compiles ``target``, found among ``sources`` (import path -> text), ``given`` (files already
        compiled) or the ``includes`` directories, with everything it imports; with ``source_info``, the
        files compiled from text say where each declaration is in it (``SourceCodeInfo``)."""
        descriptor_set = FileDescriptorSet(file=list(given)).SerializeToString() if given else b""
        request = {
            "includes": list(includes),
            "sources": dict(sources or {}),
            "descriptor_set": base64.b64encode(descriptor_set).decode("ascii"),
            "target": target,
            "source_info": source_info,
        }
        reply = self._ask(json.dumps(request).encode("utf-8"))
        if "failure" in reply:
            raise CompilerFailed(f"the compiler worker failed: {reply['failure']}")
        if "errors" in reply:
            return Compiled(messages=tuple(_messages(reply["errors"])))
        compiled = FileDescriptorSet.FromString(base64.b64decode(reply["set"]))
        return Compiled(files=tuple(compiled.file))

    def close(self) -> None:
        """Stops the worker (it is started again on the next request)."""
        with self._lock:
            self._stop()

    def _ask(self, request: bytes) -> dict[str, str]:
        with self._lock:
            for attempt in (1, 2):
                process = self._running()
                try:
                    worker.write_frame(process.stdin, request)  # type: ignore[arg-type]
                    return json.loads(self._reply(process))
                except (BrokenPipeError, _WorkerGone):
                    self._stop()
                    if attempt == 2:
                        raise CompilerFailed("the compiler died twice compiling this schema") from None
                except TimeoutError:
                    self._stop()
                    raise CompilerFailed(f"the compiler took longer than {self.timeout:g} s") from None
        raise AssertionError("unreachable")

    def _running(self) -> subprocess.Popen[bytes]:
        process = self._process
        if process is not None and self._owner == os.getpid() and process.poll() is None:
            return process
        if process is not None and self._owner == os.getpid():
            self._stop()
        script = Path(worker.__file__)
        # -P: the worker's folder must not come first on its path (its modules would shadow others)
        self._process = subprocess.Popen(
            [sys.executable, "-P", str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self._owner = os.getpid()
        return self._process

    def _reply(self, process: subprocess.Popen[bytes]) -> bytes:
        deadline = time.monotonic() + self.timeout
        fd = process.stdout.fileno()  # type: ignore[union-attr]
        head = _read_exactly(fd, 4, deadline)
        return _read_exactly(fd, int.from_bytes(head, "big"), deadline)

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if self._owner == os.getpid():
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()


def _read_exactly(fd: int, size: int, deadline: float) -> bytes:
    chunks: list[bytes] = []
    missing = size
    while missing:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            raise TimeoutError
        chunk = os.read(fd, missing)
        if not chunk:
            raise _WorkerGone
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


def _messages(output: str) -> list[CompilerMessage]:
    found = []
    for line in output.splitlines():
        if _ABSL_NOTICE in line:
            continue
        logged = _ABSL_LOG.match(line.strip())
        if logged is not None:  # protobuf's C++ library logging, not protoc's report: its text only
            line = logged["text"]
        match = _MESSAGE.match(line.strip())
        if match is None:
            if line.strip():
                found.append(CompilerMessage("", line.strip()))
            continue
        number, column = match["line"], match["column"]
        found.append(
            CompilerMessage(
                match["file"],
                match["text"],
                int(number) if number else None,
                int(column) if column else None,
            )
        )
    return found


_SHARED = Compiler()
atexit.register(_SHARED.close)


def shared_compiler() -> Compiler:
    """The process's compiler: one worker for every parse of this process."""
    return _SHARED
