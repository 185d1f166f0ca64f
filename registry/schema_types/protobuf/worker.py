"""The compiler worker: a child process that runs protoc (``grpc_tools.protoc``) for the registry.

protoc reports its errors on file descriptor 2, which belongs to the whole process: capturing it inside a
threaded server would capture other threads' output too. So the registry runs protoc here, in a process
of its own that does one thing at a time, and gets the errors back as data
(``registry.schema_types.protobuf.compiler`` starts it, feeds it and restarts it).

Started as a script (``python -P worker.py``) it needs only the standard library and grpc_tools, never
the registry. The protocol, over stdin and the worker's original stdout, is one frame per request and one
per reply: a 4-byte big-endian length, then JSON. A request names the include directories, the sources to
write (``{import path: text}``), a base64 ``FileDescriptorSet`` of files already compiled (the schemas a
schema refers to) and the file to compile; the files under the include directories are compiled once,
on first use, and read from then on as a compiled set. The reply holds either ``set`` (a base64
``FileDescriptorSet`` of the file and everything it imports, dependencies first) or ``errors`` (protoc's
own lines).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import struct
import sys
import tempfile
from typing import IO, Any

_LENGTH = struct.Struct(">I")


def read_frame(stream: IO[bytes]) -> bytes | None:
    """The next frame's payload, or None at the end of the stream."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    payload = stream.read(size)
    return payload if len(payload) == size else None


def write_frame(stream: IO[bytes], payload: bytes) -> None:
    stream.write(_LENGTH.pack(len(payload)) + payload)
    stream.flush()


def compile_request(request: dict[str, Any], work: str) -> dict[str, str]:
    """Runs protoc once for ``request`` in the directory ``work``, which it leaves empty."""
    sources = os.path.join(work, "src")
    try:
        os.mkdir(sources)
        for name, text in request["sources"].items():
            path = os.path.join(sources, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        sets = [_builtin_set(tuple(request["includes"]), work)]
        if request["descriptor_set"]:
            sets.append(os.path.join(sources, ".given.pb"))
            with open(sets[-1], "wb") as out:
                out.write(base64.b64decode(request["descriptor_set"]))
        result = os.path.join(sources, ".out.pb")
        argv = ["protoc", f"--proto_path={sources}", f"--descriptor_set_in={os.pathsep.join(sets)}"]
        argv += ["--include_imports", f"--descriptor_set_out={result}", request["target"]]
        if request.get("source_info"):  # where each declaration is in the text (the schema check's lines)
            argv.insert(-1, "--include_source_info")
        code, errors = _run_protoc(argv, os.path.join(sources, ".stderr"), work)
        if code != 0:
            errors = errors.replace(sources + os.sep, "")
            return {"errors": errors or f"protoc exited with {code} and said nothing"}
        with open(result, "rb") as compiled:
            return {"set": base64.b64encode(compiled.read()).decode("ascii")}
    finally:
        shutil.rmtree(sources, ignore_errors=True)


_BUILTIN_SETS: dict[tuple[str, ...], str] = {}


def _builtin_set(includes: tuple[str, ...], work: str) -> str:
    """Every ``.proto`` file under ``includes``, compiled once per worker: protoc then reads them
    compiled rather than parsing, say, descriptor.proto again for each schema importing it."""
    if includes not in _BUILTIN_SETS:
        names = sorted(
            {
                os.path.relpath(os.path.join(folder, name), include).replace(os.sep, "/")
                for include in includes
                for folder, _, found in os.walk(include)
                for name in found
                if name.endswith(".proto")
            }
        )
        path = os.path.join(work, f"builtins-{len(_BUILTIN_SETS)}.pb")
        argv = ["protoc", *(f"--proto_path={include}" for include in includes)]
        argv += ["--include_imports", f"--descriptor_set_out={path}", *names]
        code, errors = _run_protoc(argv, os.path.join(work, "builtins.stderr"), work)
        if code != 0:
            raise RuntimeError(f"the built-in files do not compile: {errors}")
        _BUILTIN_SETS[includes] = path
    return _BUILTIN_SETS[includes]


def _run_protoc(argv: list[str], capture_path: str, cwd: str) -> tuple[int, str]:
    """protoc's exit code and what it wrote to descriptors 1 and 2 meanwhile (this process has no threads).

    It runs in ``cwd``, where no file has a schema's name: protoc would take one for the target.
    """
    from grpc_tools import protoc  # imported on first use: the worker starts quickly

    os.chdir(cwd)
    with open(capture_path, "w+b") as capture:
        saved = os.dup(2), os.dup(1)
        sys.stderr.flush()
        os.dup2(capture.fileno(), 2)
        os.dup2(capture.fileno(), 1)
        try:
            code = protoc.main(argv)
        finally:
            os.dup2(saved[0], 2)
            os.dup2(saved[1], 1)
            for fd in saved:
                os.close(fd)
        capture.seek(0)
        return int(code), capture.read().decode("utf-8", "replace")


def main() -> None:
    requests = sys.stdin.buffer
    replies = os.fdopen(os.dup(1), "wb")  # the protocol's own descriptor; stray output goes to stderr
    os.dup2(2, 1)
    with tempfile.TemporaryDirectory(prefix="registry-protoc-") as work:
        while (frame := read_frame(requests)) is not None:
            try:
                reply = compile_request(json.loads(frame), work)
            except Exception as exc:  # a broken request must not end the worker; the client reports it
                reply = {"failure": f"{type(exc).__name__}: {exc}"}
            write_frame(replies, json.dumps(reply).encode("utf-8"))


if __name__ == "__main__":
    main()
