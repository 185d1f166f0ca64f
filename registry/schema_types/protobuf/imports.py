"""The files a ``.proto`` text imports, read from the text itself, without protoc.

The schema check needs them before it can compile anything: an ``import "customer.proto";`` of a file
beside it in ``schemas/`` must be found, parsed and given as a reference named ``customer.proto``. Comments
and string literals are skipped as protoc's tokenizer skips them, so an ``import`` in a comment is no
import. Built-in files (:mod:`~.builtins`) need no reference and are left out.
"""

from __future__ import annotations

import re

from registry.schema_types.protobuf.builtins import is_builtin

__all__ = ["imported_files"]

_IMPORT = re.compile(r"\bimport\s+(?:(?:public|weak)\s+)?(?P<quote>[\"'])(?P<path>[^\"'\n]*)(?P=quote)\s*;")


def imported_files(text: str) -> tuple[str, ...]:
    """The import paths of ``text`` that are not built in, each once, in the order written."""
    found: dict[str, None] = {}
    for match in _IMPORT.finditer(_without_comments(text)):
        path = match["path"]
        if path and not is_builtin(path):
            found.setdefault(path)
    return tuple(found)


def _without_comments(text: str) -> str:
    """``text`` with its ``//`` and ``/* */`` comments blanked (string literals kept as they are)."""
    out: list[str] = []
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        if char in "\"'":
            end = index + 1
            while end < size and text[end] not in (char, "\n"):
                end += 2 if text[end] == "\\" else 1
            out.append(text[index : end + 1])
            index = end + 1
        elif text.startswith("//", index):
            end = text.find("\n", index)
            index = size if end < 0 else end
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            index = size if end < 0 else end + 2
            out.append(" ")
        else:
            out.append(char)
            index += 1
    return "".join(out)
