"""Schema text to a :class:`ParsedJsonSchema`, collecting every problem with its pointer and position.

The document is checked against its draft's metaschema (:mod:`metaschema`: quick when it is valid), then
every ``$ref`` in it must lead somewhere: into the document, or into one of the references it was given
by name. Problems carry the JSON pointer of the value at fault and the line and column where that value
is written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from registry.compatibility.problems import InvalidSchemaError, SchemaProblem
from registry.schema_types.base import Reference
from registry.schema_types.json_schema.drafts import UnknownDraft, draft_of
from registry.schema_types.json_schema.metaschema import metaschema_problems
from registry.schema_types.json_schema.parsed import ParsedJsonSchema
from registry.schema_types.json_schema.refs import Refs
from registry.schema_types.json_schema.text import load_json, positions

__all__ = ["MAX_PROBLEMS", "canonical_form", "parse_json_schema"]

#: Problems reported for one schema; a document wrong everywhere is not listed in full.
MAX_PROBLEMS = 50


def parse_json_schema(text: str, references: Sequence[Reference] = ()) -> ParsedJsonSchema:
    """The schema ``text`` is, given the schemas its ``$ref``s name; raises :class:`InvalidSchemaError`."""
    document = load_json(text)
    problems: list[SchemaProblem] = []
    try:
        draft = draft_of(document)
    except UnknownDraft as exc:
        raise InvalidSchemaError(_placed(text, [SchemaProblem("/$schema", str(exc))])) from None
    try:
        problems.extend(metaschema_problems(document, draft, MAX_PROBLEMS))
        theirs: list[tuple[str, Refs]] = []
        for reference in references:
            if isinstance(reference.schema, ParsedJsonSchema):
                theirs.append((reference.name, reference.schema.refs))
            else:
                message = (
                    f"the reference {reference.name!r} is a {reference.schema.schema_type} schema; "
                    "a JSON schema can refer only to JSON schemas"
                )
                problems.append(SchemaProblem("", message))
        refs = Refs(document, draft, theirs)
        if not problems:
            problems.extend(refs.problems())
    except RecursionError:  # the nesting limit keeps this far away; never a crash if not
        problems = [SchemaProblem("", "the schema is nested too deeply")]
    if problems:
        raise InvalidSchemaError(_placed(text, problems[:MAX_PROBLEMS]))
    canonical = canonical_form(document)
    return ParsedJsonSchema(
        text=text,
        canonical=canonical,
        identity=canonical,
        fingerprint=hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
        document=document,
        draft=draft,
        refs=refs,
    )


def canonical_form(document: Any) -> str:
    """Compact JSON with keys sorted and non-ASCII characters as themselves."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _placed(text: str, problems: list[SchemaProblem]) -> list[SchemaProblem]:
    """``problems`` with the line and column of the value each one points at."""
    where = positions(text)
    placed = []
    for problem in problems:
        line, column = where.get(problem.pointer, (None, None))
        placed.append(SchemaProblem(problem.pointer, problem.message, line, column))
    return placed
