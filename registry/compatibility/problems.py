"""How an unacceptable schema is reported: every problem at once, each with a JSON pointer.

A registry user fixes a schema faster when told about all its problems in one answer, and a pointer
("/fields/2/default") lets tools map each one back to a line of the ``.avsc`` file.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SchemaProblem:
    """One reason a schema is refused; ``line``/``column`` are set only for JSON syntax errors."""

    pointer: str
    message: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        if self.line is not None:
            return f"line {self.line}, column {self.column}: {self.message}"
        return f"{self.pointer or '/'}: {self.message}"


class InvalidSchemaError(ValueError):
    """The schema is not valid Avro, or breaks one of our stricter rules; ``problems`` lists them all."""

    def __init__(self, problems: list[SchemaProblem]) -> None:
        self.problems: list[SchemaProblem] = list(problems)
        if len(self.problems) == 1:
            text = f"Invalid schema: {self.problems[0]}"
        else:
            lines = "\n".join(f"  - {p}" for p in self.problems)
            text = f"Invalid schema ({len(self.problems)} problems):\n{lines}"
        super().__init__(text)


def pointer_join(base: str, *tokens: str | int) -> str:
    """Appends reference tokens to a JSON pointer, escaping ``~`` and ``/`` as RFC 6901 requires."""
    out = base
    for token in tokens:
        out += "/" + str(token).replace("~", "~0").replace("/", "~1")
    return out
