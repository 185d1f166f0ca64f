"""Spark SQL text for the expressions of a topic's query.

A query built from PySpark's Column functions costs a round trip into the JVM for every function, every
operator and every release of a Java object (several per field, hundreds per topic). The same expression
written as SQL text costs one call (`F.expr`, `selectExpr`), however large it is: the text is composed
here in Python and parsed once by Spark. See docs/loader.md ("A topic's query is SQL text").

Literals follow Spark's default parser, which reads a backslash as an escape
(`spark.sql.parser.escapedStringLiterals=false`; the loader's sessions keep it so:
`loader.runtime.spark_session.read_string_escapes_as_spark_does`).
"""

from __future__ import annotations

from collections.abc import Iterable


def identifier(name: str) -> str:
    """A column or field name, quoted so that any name (a keyword, a dot, a backtick) reads as itself."""
    return "`" + name.replace("`", "``") + "`"


def string_literal(text: str) -> str:
    """A string literal holding exactly `text` (a schema's JSON, a subject's name)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def string_map(entries: dict[str, str]) -> str:
    """A `map<string, string>` literal (the options of `from_avro`)."""
    return "map(" + ", ".join(f"{string_literal(k)}, {string_literal(v)}" for k, v in entries.items()) + ")"


def binary_literal(data: bytes) -> str:
    return f"X'{data.hex()}'"


def field(struct: str, name: str) -> str:
    """The field `name` of the struct column `struct` (a name, not an expression)."""
    return f"{identifier(struct)}.{identifier(name)}"


def case_when(branches: Iterable[tuple[str, str]], otherwise: str | None = None) -> str:
    """`CASE WHEN c1 THEN v1 ... [ELSE otherwise] END`; NULL where no condition holds."""
    whens = " ".join(f"WHEN {condition} THEN {value}" for condition, value in branches)
    assert whens, "a CASE needs at least one branch"
    default = f" ELSE {otherwise}" if otherwise is not None else ""
    return f"CASE {whens}{default} END"


def named_struct(fields: Iterable[tuple[str, str]]) -> str:
    """A struct whose fields are (name, expression), in order."""
    return "named_struct(" + ", ".join(f"{string_literal(name)}, {value}" for name, value in fields) + ")"


def aliased(expression: str, name: str) -> str:
    return f"{expression} AS {identifier(name)}"
