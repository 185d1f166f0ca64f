"""Optional house rules beyond Avro compatibility, as pure functions over parsed schema JSON.

Compatibility says whether data keeps flowing; these say whether the schema is a good one to live with:
- ``field-doc``: every field has a ``doc`` (LinkedIn's rule: the schema is the documentation of the data,
  and the loader turns ``doc`` into the table's column comments);
- ``added-field-default``: every field added since the previous version has a ``default``. BACKWARD already
  demands that; under FORWARD or NONE it does not, yet a field without a default is a one-way door (the
  next reader that wants to drop back to BACKWARD cannot). The policy keeps that door open at every level.

Each violation carries a JSON pointer into the schema as written, like the checker's, so the same code
turns both into ``file:line:column``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ADDED_FIELD_DEFAULT",
    "FIELD_DOC",
    "PolicyViolation",
    "RecordSite",
    "added_without_default",
    "missing_docs",
    "records",
    "suggested_default",
]

FIELD_DOC = "field-doc"
ADDED_FIELD_DEFAULT = "added-field-default"


@dataclass(frozen=True)
class PolicyViolation:
    """One broken house rule: where (pointer into the new schema), which rule, what, and the fix."""

    pointer: str
    rule: str
    message: str
    hint: str


@dataclass(frozen=True)
class RecordSite:
    """A record type defined inline in a schema, with the names it answers to."""

    full_name: str
    names: frozenset[str]  # the full name and the full names of its aliases
    pointer: str
    json: dict[str, Any]


def _full_name(name: str, namespace: str | None) -> str:
    if "." in name or not namespace:
        return name
    return f"{namespace}.{name}"


def _own_namespace(definition: dict[str, Any], enclosing: str | None) -> str | None:
    """The namespace a named type passes on to what it contains (Avro's namespace inheritance)."""
    name = definition.get("name")
    if isinstance(name, str) and "." in name:
        return name.rsplit(".", 1)[0]
    namespace = definition.get("namespace")
    if isinstance(namespace, str):
        return namespace or None
    return enclosing


def records(schema: Any, pointer: str = "", namespace: str | None = None) -> Iterator[RecordSite]:
    """Every record defined inline in ``schema``, outermost first.

    Named references (a bare type name used a second time) are not followed: they point at a definition
    this walk has already visited, and reporting it twice would only repeat the message.
    """
    if isinstance(schema, list):
        for index, branch in enumerate(schema):
            yield from records(branch, f"{pointer}/{index}", namespace)
        return
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")
    if kind in ("record", "error"):
        own = _own_namespace(schema, namespace)
        name = schema.get("name")
        if isinstance(name, str):
            full = _full_name(name, own)
            aliases = schema.get("aliases")
            alias_names = [a for a in aliases if isinstance(a, str)] if isinstance(aliases, list) else []
            names = frozenset([full, *(_full_name(alias, own) for alias in alias_names)])
            yield RecordSite(full, names, pointer, schema)
        fields = schema.get("fields")
        for index, field in enumerate(fields if isinstance(fields, list) else []):
            if isinstance(field, dict):
                yield from records(field.get("type"), f"{pointer}/fields/{index}/type", own)
    elif kind == "array":
        yield from records(schema.get("items"), pointer + "/items", namespace)
    elif kind == "map":
        yield from records(schema.get("values"), pointer + "/values", namespace)
    elif isinstance(kind, (dict, list)):
        yield from records(kind, pointer + "/type", namespace)


def _fields(site: RecordSite) -> Iterator[tuple[int, dict[str, Any]]]:
    fields = site.json.get("fields")
    for index, field in enumerate(fields if isinstance(fields, list) else []):
        if isinstance(field, dict) and isinstance(field.get("name"), str):
            yield index, field


def _short(full_name: str) -> str:
    return full_name.rsplit(".", 1)[-1]


def missing_docs(schema: Any) -> list[PolicyViolation]:
    """Fields with no ``doc`` (or only whitespace), in document order."""
    found: list[PolicyViolation] = []
    for site in records(schema):
        for index, field in _fields(site):
            doc = field.get("doc")
            if isinstance(doc, str) and doc.strip():
                continue
            found.append(
                PolicyViolation(
                    pointer=f"{site.pointer}/fields/{index}",
                    rule=FIELD_DOC,
                    message=f"field '{field['name']}' of {_short(site.full_name)} has no doc",
                    hint='say what the field means, its unit and where it comes from: "doc": "..."',
                )
            )
    return found


def suggested_default(field_type: Any) -> str:
    """A fix a person can paste: a default that is valid for the field's type, or how to get one."""
    if isinstance(field_type, list):
        if field_type and field_type[0] == "null":
            return '"default": null'
        if "null" in field_type:
            return 'move "null" to the front of the union and add "default": null'
        return "add a default of the union's first type"
    if isinstance(field_type, dict):
        field_type = field_type.get("type")  # array, map, or a primitive carrying a logicalType
    examples = {
        "string": '"default": ""',
        "boolean": '"default": false',
        "int": '"default": 0',
        "long": '"default": 0',
        "float": '"default": 0.0',
        "double": '"default": 0.0',
        "bytes": '"default": ""',
        "array": '"default": []',
        "map": '"default": {}',
        "null": '"default": null',
    }
    if isinstance(field_type, str) and field_type in examples:
        return examples[field_type]
    return 'make it optional: "type": ["null", ...] with "default": null'


def added_without_default(new: Any, old: Any) -> list[PolicyViolation]:
    """Fields of ``new`` that the same record in ``old`` lacks and that have no ``default``.

    Records are matched by full name or alias, fields by name or alias, as Avro's resolution matches
    them, so a rename done properly (with an alias) is not mistaken for an addition. Records that are new
    altogether are skipped: the field that introduced them is the addition that needs the default.
    """
    old_records: dict[str, RecordSite] = {}
    for site in records(old):
        old_records.setdefault(site.full_name, site)
    found: list[PolicyViolation] = []
    for site in records(new):
        previous = next((old_records[name] for name in sorted(site.names) if name in old_records), None)
        if previous is None:
            continue
        known = {field["name"] for _, field in _fields(previous)}
        for index, field in _fields(site):
            aliases = field.get("aliases") if isinstance(field.get("aliases"), list) else []
            if "default" in field or known.intersection([field["name"], *aliases]):
                continue
            record = _short(site.full_name)
            found.append(
                PolicyViolation(
                    pointer=f"{site.pointer}/fields/{index}",
                    rule=ADDED_FIELD_DEFAULT,
                    message=f"field '{field['name']}' of {record} was added without a default",
                    hint=f"{suggested_default(field.get('type'))}, so readers of older data can fill it in",
                )
            )
    return found
