"""The entry point of the JSON Schema rules: why a reader cannot read a writer's data, worded."""

from __future__ import annotations

from registry.compatibility.hints import Incompatibility
from registry.compatibility.problems import InvalidSchemaError, SchemaProblem
from registry.schema_types.json_schema.kinds import COMPATIBLE
from registry.schema_types.json_schema.parsed import ParsedJsonSchema
from registry.schema_types.json_schema.rules import Comparison, TooComplex
from registry.schema_types.json_schema.wording import word

__all__ = ["incompatibilities"]


def incompatibilities(reader: ParsedJsonSchema, writer: ParsedJsonSchema) -> list[Incompatibility]:
    """Every reason ``reader`` cannot read data written with ``writer``; empty when it always can.

    Paths start at the reader's label (its ``title`` when a plain name, else ``$``). Schemas too complex
    or too deep to compare raise :class:`InvalidSchemaError`, as Avro's rules do (the ``RecursionError``
    caught here is a last resort: :data:`~rules.MAX_DEPTH` ends deep comparisons first).
    """
    try:
        findings = Comparison().compare(writer.model.root(), reader.model.root())
    except TooComplex as exc:
        raise InvalidSchemaError([SchemaProblem("", str(exc))]) from None
    except RecursionError:
        raise InvalidSchemaError(
            [SchemaProblem("", "the schemas are nested too deeply to compare")]
        ) from None
    out: dict[Incompatibility, None] = {}
    for finding in findings:
        if finding.kind not in COMPATIBLE:
            out.setdefault(word(finding, reader.label + finding.path))
    return list(out)
