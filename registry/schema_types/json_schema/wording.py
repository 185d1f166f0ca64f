"""How a JSON Schema incompatibility reads to a person: what is wrong, and how to fix it.

Messages speak of "the reader" and "the writer", as Avro's do (``registry.compatibility.hints``): the
same finding is reported for BACKWARD (the new schema reads) and FORWARD (the old one reads), and the
:class:`~registry.compatibility.Conflict` says which. Only incompatible kinds are ever worded for people;
a compatible one gets a plain fallback.
"""

from __future__ import annotations

from collections.abc import Callable

from registry.compatibility.hints import Incompatibility
from registry.schema_types.json_schema.findings import Finding
from registry.schema_types.json_schema.kinds import Difference as D

__all__ = ["word"]

_LOOSER = {"max": "a larger value", "min": "a smaller value", "exc": "a looser one"}


def word(finding: Finding, path: str) -> Incompatibility:
    """``finding`` as an incompatibility at ``path`` (the dotted path, the reader's root label first)."""
    wording = _WORDING.get(finding.kind, _fallback)
    message, hint = wording(finding, path)
    return Incompatibility(finding.kind, finding.reader, finding.writer, path, message, hint)


def _fallback(finding: Finding, path: str) -> tuple[str, str]:
    return f'"{path}": {finding.kind.value.lower().replace("_", " ")}', "no change needed"


def _tighter(finding: Finding, path: str) -> tuple[str, str]:
    keyword, old, new = finding.detail
    if old == "absent":
        message = f'"{path}": the reader adds "{keyword}": {new}, which data the writer allows may not meet'
        return message, f'remove "{keyword}" from the reader'
    message = (
        f'"{path}": "{keyword}" is {new} in the reader but {old} in the writer, '
        "so some data the writer allows is refused"
    )
    if keyword == "pattern":
        return message, f"keep the writer's pattern {old} in the reader, or remove the reader's"
    if keyword == "multipleOf":
        return message, f'keep "multipleOf": {old} in the reader, or use a number that divides it'
    looser = _LOOSER.get(keyword[:3], "a looser one")
    return message, f'keep "{keyword}": {old} in the reader, or use {looser}'


def _type_changed(finding: Finding, path: str) -> tuple[str, str]:
    old, new = finding.detail
    message = (
        f'"{path}" is {_a(new)} in the reader but {_a(old)} in the writer, whose data the reader refuses'
    )
    return (
        message,
        f"keep the writer's type ({old}) in the reader, or make the reader an anyOf that includes it",
    )


def _type_narrowed(finding: Finding, path: str) -> tuple[str, str]:
    message = f'"{path}" accepts only integers in the reader but any number in the writer'
    return message, 'keep "type": "number" in the reader'


def _items_added(finding: Finding, path: str) -> tuple[str, str]:
    message = f'"{path}": the reader gives the array\'s items a schema, where the writer allowed any item'
    return message, 'remove "items" from the reader, or make it true'


def _required_added(finding: Finding, path: str) -> tuple[str, str]:
    (name,) = finding.detail
    message = f'"{path}" is required in the reader but optional in the writer, whose data may lack it'
    return message, f'give "{name}" a "default" in the reader, or keep it optional'


def _added_to_open(finding: Finding, path: str) -> tuple[str, str]:
    required = "" if finding.kind is D.OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL else " (and required)"
    message = (
        f'"{path}" is new{required} in the reader, and the writer\'s open content model lets its data carry '
        "a property of that name with any value"
    )
    hint = (
        "give the new property an empty schema ({}), or first register a version whose model is closed "
        '("additionalProperties": false), then add the property'
    )
    return message, hint


def _required_added_to_closed(finding: Finding, path: str) -> tuple[str, str]:
    message = f'"{path}" is new and required in the reader, and the writer\'s data never has it'
    return message, 'give the new property a "default", or do not require it'


def _removed_from_closed(finding: Finding, path: str) -> tuple[str, str]:
    thing = _thing(finding)
    message = (
        f'"{path}" is gone from the reader, whose closed content model refuses the {thing} '
        "the writer's data may have"
    )
    keyword = "additionalProperties" if thing == "property" else "additionalItems"
    return message, f'keep the {thing} in the reader, or let the reader accept it ("{keyword}")'


def _removed_not_covered(finding: Finding, path: str) -> tuple[str, str]:
    (where,) = finding.detail
    message = (
        f'"{path}" is gone from the reader, and the reader\'s {where}, which now applies to it, '
        "refuses the writer's values for it"
    )
    return (
        message,
        f"keep the {_thing(finding)} in the reader, or make the reader's {where} accept its values",
    )


def _added_not_covered(finding: Finding, path: str) -> tuple[str, str]:
    (where,) = finding.detail
    message = (
        f'"{path}" is new in the reader, and its schema refuses values the writer\'s {where} '
        f"let through as that {_thing(finding)}"
    )
    return message, f"make the new {_thing(finding)} accept what the writer's {where} allows"


def _item_added_to_open(finding: Finding, path: str) -> tuple[str, str]:
    message = (
        f'"{path}" is a new tuple item in the reader, and the writer\'s open tuple allowed any item there'
    )
    return message, "give the new item an empty schema ({}), or first close the writer's tuple"


def _refused(finding: Finding, path: str) -> tuple[str, str]:
    keyword = _keyword(finding)
    message = f'"{path}": the reader refuses {_extras(keyword)} ("{keyword}": false), which the writer allows'
    return message, f'remove "{keyword}": false from the reader'


def _narrowed(finding: Finding, path: str) -> tuple[str, str]:
    keyword = _keyword(finding)
    message = (
        f'"{path}": the reader gives {_extras(keyword)} a schema ("{keyword}"), where the writer allowed any'
    )
    return message, f'remove "{keyword}" from the reader, or make it true'


def _dependency(finding: Finding, path: str) -> tuple[str, str]:
    name, old, new = finding.detail
    message = f'"{path}": where "{name}" is present the reader requires {new}, the writer {old}'
    return message, f'require no more with "{name}" than the writer did ({old})'


def _dependency_schema(finding: Finding, path: str) -> tuple[str, str]:
    (name,) = finding.detail
    message = f'"{path}": the reader adds a schema that data with "{name}" must meet'
    return message, f'remove the dependency on "{name}" from the reader'


def _unique(finding: Finding, path: str) -> tuple[str, str]:
    return (
        f'"{path}": the reader requires unique items, the writer did not',
        'remove "uniqueItems" from the reader',
    )


def _values(finding: Finding, path: str) -> tuple[str, str]:
    if len(finding.detail) == 2:  # const
        old, new = finding.detail
        return (
            f'"{path}" is const {new} in the reader but {old} in the writer',
            f'keep "const": {old} in the reader',
        )
    (missing,) = finding.detail
    message = f'"{path}": the reader\'s "enum" lacks the writer\'s values {missing}'
    return message, f'add {missing} to the reader\'s "enum"'


def _combined_changed(finding: Finding, path: str) -> tuple[str, str]:
    old, new = finding.detail
    message = (
        f'"{path}" is {new} in the reader but {old} in the writer, which accepts data the reader refuses'
    )
    return message, f"keep {old} in the reader (anyOf accepts what oneOf and allOf accept)"


def _product_extended(finding: Finding, path: str) -> tuple[str, str]:
    message = f"\"{path}\": the reader's allOf has more parts than the writer's, each one more constraint"
    return message, "remove the parts the reader added to its allOf"


def _sum_narrowed(finding: Finding, path: str) -> tuple[str, str]:
    message = f'"{path}": the reader offers fewer choices (oneOf/anyOf) than the writer'
    return message, "keep every choice of the writer's in the reader"


def _choices_unmatched(finding: Finding, path: str) -> tuple[str, str]:
    criterion, *unmatched = finding.detail
    which = f"parts {', '.join(unmatched)}" if len(unmatched) > 1 else f"part {''.join(unmatched)}"
    message = f"\"{path}\": the writer's {criterion} {which} (from 0) match no part of the reader's"
    return message, f"keep those parts, or parts that read them, in the reader's {criterion}"


def _not_extended(finding: Finding, path: str) -> tuple[str, str]:
    message = f'"{path}": the reader\'s "not" excludes data the writer\'s allows'
    return message, "make the reader's \"not\" exclude no more than the writer's"


def _thing(finding: Finding) -> str:
    return "item" if finding.kind.value.startswith("ITEM") else "property"


def _keyword(finding: Finding) -> str:
    name = finding.kind.value
    if name.startswith("UNEVALUATED"):
        return "unevaluatedItems" if "ITEMS" in name else "unevaluatedProperties"
    return "additionalItems" if "ITEMS" in name else "additionalProperties"


def _extras(keyword: str) -> str:
    return "items beyond the tuple" if "Items" in keyword else "properties it does not name"


def _a(type_name: str) -> str:
    return f"an {type_name}" if type_name[0] in "aeiou" else f"a {type_name}"


_TIGHTER = (
    D.MAX_LENGTH_ADDED, D.MAX_LENGTH_DECREASED, D.MIN_LENGTH_ADDED, D.MIN_LENGTH_INCREASED, D.PATTERN_ADDED,
    D.PATTERN_CHANGED, D.MAXIMUM_ADDED, D.MAXIMUM_DECREASED, D.MINIMUM_ADDED, D.MINIMUM_INCREASED,
    D.EXCLUSIVE_MAXIMUM_ADDED, D.EXCLUSIVE_MAXIMUM_DECREASED, D.EXCLUSIVE_MINIMUM_ADDED,
    D.EXCLUSIVE_MINIMUM_INCREASED, D.MULTIPLE_OF_ADDED, D.MULTIPLE_OF_EXPANDED, D.MULTIPLE_OF_CHANGED,
    D.MAX_PROPERTIES_ADDED, D.MAX_PROPERTIES_DECREASED, D.MIN_PROPERTIES_ADDED, D.MIN_PROPERTIES_INCREASED,
    D.MAX_ITEMS_ADDED, D.MAX_ITEMS_DECREASED, D.MIN_ITEMS_ADDED, D.MIN_ITEMS_INCREASED,
    D.MAX_CONTAINS_ADDED, D.MAX_CONTAINS_DECREASED, D.MIN_CONTAINS_ADDED, D.MIN_CONTAINS_INCREASED,
)  # fmt: skip

_WORDING: dict[D, Callable[[Finding, str], tuple[str, str]]] = {
    **dict.fromkeys(_TIGHTER, _tighter),
    D.TYPE_CHANGED: _type_changed,
    D.TYPE_NARROWED: _type_narrowed,
    D.SCHEMA_ADDED: _items_added,
    D.REQUIRED_ATTRIBUTE_ADDED: _required_added,
    D.OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL: _added_to_open,
    D.REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL: _added_to_open,
    D.REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL: _added_to_open,
    D.REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL: _required_added_to_closed,
    D.PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL: _removed_from_closed,
    D.ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL: _removed_from_closed,
    D.PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL: _removed_not_covered,
    D.ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL: _removed_not_covered,
    D.PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL: _added_not_covered,
    D.ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL: _added_not_covered,
    D.ITEM_ADDED_TO_OPEN_CONTENT_MODEL: _item_added_to_open,
    D.ADDITIONAL_PROPERTIES_REMOVED: _refused,
    D.ADDITIONAL_ITEMS_REMOVED: _refused,
    D.UNEVALUATED_PROPERTIES_REMOVED: _refused,
    D.UNEVALUATED_ITEMS_REMOVED: _refused,
    D.ADDITIONAL_PROPERTIES_NARROWED: _narrowed,
    D.ADDITIONAL_ITEMS_NARROWED: _narrowed,
    D.UNEVALUATED_PROPERTIES_NARROWED: _narrowed,
    D.UNEVALUATED_ITEMS_NARROWED: _narrowed,
    D.DEPENDENCY_ARRAY_ADDED: _dependency,
    D.DEPENDENCY_ARRAY_EXTENDED: _dependency,
    D.DEPENDENCY_ARRAY_CHANGED: _dependency,
    D.DEPENDENCY_SCHEMA_ADDED: _dependency_schema,
    D.UNIQUE_ITEMS_ADDED: _unique,
    D.ENUM_ARRAY_NARROWED: _values,
    D.ENUM_ARRAY_CHANGED: _values,
    D.COMBINED_TYPE_CHANGED: _combined_changed,
    D.PRODUCT_TYPE_EXTENDED: _product_extended,
    D.SUM_TYPE_NARROWED: _sum_narrowed,
    D.COMBINED_TYPE_SUBSCHEMAS_CHANGED: _choices_unmatched,
    D.NOT_TYPE_EXTENDED: _not_extended,
}
