"""Schema text to a JSON value, refusing what is not JSON or too big, and finding where a value is written.

Hostile input is refused before it costs much: more than :data:`MAX_SCHEMA_CHARS` characters, containers
nested more than :data:`MAX_NESTING` deep (checked by a scan before decoding, so decoding and every later
walk stay far from Python's recursion limit), text that is not Unicode (lone surrogates, as invalid UTF-8
decoded with ``surrogateescape`` leaves), ``NaN``/``Infinity`` and numbers too large for a double.

:func:`positions` maps JSON pointers back to lines and columns with a small scan of the text, done only
when there is a problem to place.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from registry.compatibility.problems import InvalidSchemaError, SchemaProblem, pointer_join

__all__ = ["MAX_NESTING", "MAX_SCHEMA_CHARS", "load_json", "positions"]

#: The largest schema text, in characters (the registry's own default for any schema text).
MAX_SCHEMA_CHARS = 1024 * 1024
#: The deepest nesting of JSON arrays and objects: about 30 levels of nested properties.
MAX_NESTING = 64

# A JSON string, a structural character, or a run of anything else (numbers, true, false, null).
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:,]|[^\s\[\]{}:,"]+', re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")


def load_json(text: str | bytes) -> Any:
    """The JSON value ``text`` holds; raises :class:`InvalidSchemaError` with a line and column."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            message = f"the schema is not valid UTF-8 (byte {exc.start}); send it as UTF-8 text"
            raise InvalidSchemaError([SchemaProblem("", message)]) from None
    if len(text) > MAX_SCHEMA_CHARS:
        message = f"the schema has {len(text)} characters; at most {MAX_SCHEMA_CHARS} are accepted"
        raise InvalidSchemaError([SchemaProblem("", message)])
    bad = _SURROGATE.search(text)
    if bad is not None:
        raise InvalidSchemaError([_at(text, bad.start(), _surrogate_message(bad.group()))])
    _check_nesting(text)
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        problem = SchemaProblem("", f"the schema is not valid JSON: {exc.msg}", exc.lineno, exc.colno)
        raise InvalidSchemaError([problem]) from None
    except ValueError as exc:  # a constant or number refused above, or an integer of too many digits
        raise InvalidSchemaError([SchemaProblem("", f"the schema is not valid JSON: {exc}")]) from None
    escaped = list(_escaped_surrogates(value))
    if escaped:
        where = positions(text)
        message = " (written as an escape)"
        raise InvalidSchemaError(
            [
                SchemaProblem(p, _surrogate_message(found) + message, *where.get(p, (None, None)))
                for p, found in escaped
            ]
        )
    return value


def positions(text: str) -> dict[str, tuple[int, int]]:
    """Where each value of ``text`` (valid JSON) starts, by JSON pointer: line and column, both from 1.

    A repeated key keeps its last position, as decoding keeps its last value.
    """
    starts = {pointer: offset for pointer, offset in _values(text)}
    return {pointer: _line_column(text, offset) for pointer, offset in starts.items()}


def _values(text: str) -> Iterator[tuple[str, int]]:
    """Each value's pointer and offset, in the order written (the text is valid JSON)."""
    # Each frame: [pointer, is_object, next index or pending key]
    stack: list[list[Any]] = []
    expect_key = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in ":,":
            if token == "," and stack:
                frame = stack[-1]
                if frame[1]:
                    expect_key = True
                else:
                    frame[2] += 1
            continue
        if token in "]}":
            stack.pop()
            expect_key = False
            continue
        if expect_key:
            stack[-1][2] = json.loads(token)
            expect_key = False
            continue
        here = pointer_join(stack[-1][0], stack[-1][2]) if stack else ""
        yield here, match.start()
        if token == "{":
            stack.append([here, True, None])
            expect_key = True
        elif token == "[":
            stack.append([here, False, 0])


def _check_nesting(text: str) -> None:
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_NESTING:
                message = f"the schema nests arrays and objects more than {MAX_NESTING} deep"
                raise InvalidSchemaError([_at(text, match.start(), message)])
        elif token in "]}":
            depth -= 1


def _escaped_surrogates(value: Any) -> Iterator[tuple[str, str]]:
    """The pointers of strings (keys included) holding a lone surrogate, and the surrogate."""
    todo: list[tuple[str, Any]] = [("", value)]
    while todo:
        pointer, item = todo.pop()
        if isinstance(item, str):
            bad = _SURROGATE.search(item)
            if bad is not None:
                yield pointer, bad.group()
        elif isinstance(item, dict):
            for key, child in item.items():
                bad = _SURROGATE.search(key)
                if bad is not None:
                    yield pointer_join(pointer, key), bad.group()
                todo.append((pointer_join(pointer, key), child))
        elif isinstance(item, list):
            todo.extend((pointer_join(pointer, i), child) for i, child in enumerate(item))


def _surrogate_message(surrogate: str) -> str:
    return (
        f"the schema holds a lone surrogate U+{ord(surrogate):04X}, which is not Unicode text "
        "(invalid UTF-8, or half of a character); send valid UTF-8"
    )


def _at(text: str, offset: int, message: str) -> SchemaProblem:
    line, column = _line_column(text, offset)
    return SchemaProblem("", message, line, column)


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - text.rfind("\n", 0, offset)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _finite_float(literal: str) -> float:
    number = float(literal)
    if math.isinf(number):
        raise ValueError(f"the number {literal[:40]} is too large")
    return number
