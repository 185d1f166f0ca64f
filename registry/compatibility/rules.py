"""Reader/writer compatibility, the specification's "Schema Resolution" as Avro Java decides it.

A few mutually recursive functions over the internal model, each returning the problems it found as
values (:class:`Found`) with pointers and a field path *relative to the pair being compared*. Relative
results let us memoise every ``(reader node, writer node)`` pair, as Java's ``SchemaCompatibility`` does,
and still report a problem in a shared named type at every place it is used: a memoised result is only
re-prefixed. A pair met again while it is still being computed (a recursive schema) counts as compatible
for now, exactly like Java's ``RECURSION_IN_PROGRESS``, which is what makes recursion terminate.

Verdicts follow Java, including its corners:

* named types match when their unqualified names are equal, or a reader alias (fully qualified) equals
  the writer's full name; the namespace alone never makes two named types differ;
* a reader field is matched to the writer field of the same name, else to the first writer field named
  by one of its aliases (Java throws when both match different fields; we take the direct match);
* an enum reader with a ``default`` accepts writer symbols it lacks;
* a reader field missing from the writer, without a default, whose type is an enum with a default, is a
  TYPE_MISMATCH (Java compares the enum with the writer record) rather than a missing default;
* logical types are ignored: only the underlying type decides (Java does the same), so ``int`` and
  ``{"type": "int", "logicalType": "date"}`` are compatible both ways.
"""

from __future__ import annotations

from typing import Any

from registry.compatibility.kinds import IncompatibilityKind as Kind
from registry.compatibility.parsing import INVALID
from registry.compatibility.schema_model import PRIMITIVES, Node

#: writer type -> the other types a reader may use to read it (the spec's promotions)
PROMOTIONS: dict[str, tuple[str, ...]] = {
    "int": ("long", "float", "double"),
    "long": ("float", "double"),
    "float": ("double",),
    "string": ("bytes",),
    "bytes": ("string",),
}
_READABLE = {(w, r) for w, readers in PROMOTIONS.items() for r in readers}

#: problems kept per compared pair; bounds the work on adversarial schemas that share types heavily
MAX_FOUND = 1000


class Found:
    """One problem, located relative to the pair it was found in; ``attr`` names the attribute at fault."""

    __slots__ = ("attr", "detail", "kind", "path", "reader", "reader_ptr", "writer", "writer_ptr")

    def __init__(
        self,
        kind: Kind,
        reader: Node,
        writer: Node,
        *,
        reader_ptr: str = "",
        writer_ptr: str = "",
        path: str = "",
        attr: str | None = None,
        detail: Any = None,
    ) -> None:
        self.kind = kind
        self.reader = reader
        self.writer = writer
        self.reader_ptr = reader_ptr
        self.writer_ptr = writer_ptr
        self.path = path
        self.attr = attr
        self.detail = detail

    def under(self, reader_ptr: str, writer_ptr: str, path: str) -> Found:
        """The same problem seen from one level up."""
        return Found(
            self.kind,
            self.reader,
            self.writer,
            reader_ptr=reader_ptr + self.reader_ptr,
            writer_ptr=writer_ptr + self.writer_ptr,
            path=path + self.path,
            attr=self.attr,
            detail=self.detail,
        )


class Checker:
    """One comparison's memo: results per ``(id(reader), id(writer))``; None while in progress."""

    def __init__(self) -> None:
        self.memo: dict[tuple[int, int], list[Found] | None] = {}

    def check(self, reader: Node, writer: Node) -> list[Found]:
        key = (id(reader), id(writer))
        memo = self.memo
        if key in memo:
            return memo[key] or []
        memo[key] = None
        found = self.calculate(reader, writer)
        if len(found) > MAX_FOUND:
            del found[MAX_FOUND:]
        memo[key] = found
        return found

    def calculate(self, reader: Node, writer: Node) -> list[Found]:
        rtype, wtype = reader.type, writer.type
        if rtype == INVALID or wtype == INVALID:
            return []
        if rtype == wtype:
            if rtype in PRIMITIVES:
                return []
            if rtype == "array":
                return _under(self.check(reader.items, writer.items), "/items", "/items", "[]")  # type: ignore[arg-type]
            if rtype == "map":
                return _under(self.check(reader.values, writer.values), "/values", "/values", "{}")  # type: ignore[arg-type]
            if rtype == "union":
                return self.union_writer_into_union(reader, writer)
            found = check_names(reader, writer)
            if rtype == "fixed" and reader.size != writer.size:
                found.append(Found(Kind.FIXED_SIZE_MISMATCH, reader, writer, attr="size"))
            elif rtype == "enum":
                found.extend(check_enum_symbols(reader, writer))
            elif rtype == "record":
                found.extend(self.record_fields(reader, writer))
            return found
        if wtype == "union":
            # Each branch the writer may use must be readable by the (non-union) reader.
            found = []
            for i, branch in enumerate(writer.branches):
                found.extend(_under(self.check(reader, branch), "", f"/{i}", ""))
            return found
        if rtype == "union":
            for branch in reader.branches:
                if not self.check(branch, writer):
                    return []
            return [Found(Kind.MISSING_UNION_BRANCH, reader, writer, detail=writer)]
        if (wtype, rtype) in _READABLE:
            return []
        return [Found(Kind.TYPE_MISMATCH, reader, writer)]

    def union_writer_into_union(self, reader: Node, writer: Node) -> list[Found]:
        found = []
        for i, branch in enumerate(writer.branches):
            if self.check(reader, branch):
                found.append(
                    Found(Kind.MISSING_UNION_BRANCH, reader, branch, writer_ptr=f"/{i}", detail=branch)
                )
        return found

    def record_fields(self, reader: Node, writer: Node) -> list[Found]:
        found: list[Found] = []
        for field in reader.fields:
            here = f"/fields/{field.position}"
            path = "." + field.name
            match = writer.field_index.get(field.name)
            if match is None:
                for alias in field.aliases:
                    match = writer.field_index.get(alias)
                    if match is not None:
                        break
            if match is not None:
                inner = self.check(field.type, match.type)
                found.extend(_under(inner, here + "/type", f"/fields/{match.position}/type", path))
            elif field.has_default:
                continue
            elif field.type.type == "enum" and field.type.enum_default is not None:
                found.append(
                    Found(
                        Kind.TYPE_MISMATCH,
                        field.type,
                        writer,
                        reader_ptr=here + "/type",
                        path=path,
                        detail=field,
                    )
                )
            else:
                found.append(
                    Found(
                        Kind.READER_FIELD_MISSING_DEFAULT_VALUE,
                        reader,
                        writer,
                        reader_ptr=here,
                        path=path,
                        detail=field,
                    )
                )
        return found


def names_match(reader: Node, writer: Node) -> bool:
    """Java's ``schemaNameEquals``: same unqualified name, or a reader alias is the writer's full name."""
    return reader.simple_name == writer.simple_name or writer.name in reader.aliases


def check_names(reader: Node, writer: Node) -> list[Found]:
    if names_match(reader, writer):
        return []
    return [Found(Kind.NAME_MISMATCH, reader, writer, attr="name")]


def check_enum_symbols(reader: Node, writer: Node) -> list[Found]:
    missing = sorted(set(writer.symbols).difference(reader.symbols))
    if not missing or reader.enum_default is not None:
        return []
    return [Found(Kind.MISSING_ENUM_SYMBOLS, reader, writer, attr="symbols", detail=missing)]


def _under(found: list[Found], reader_ptr: str, writer_ptr: str, path: str) -> list[Found]:
    return [f.under(reader_ptr, writer_ptr, path) for f in found] if found else []
