"""JSON schema text to the internal model, collecting every problem instead of stopping at the first.

We parse ourselves rather than through fastavro or Apache avro because we need a JSON pointer for each
problem and a few rules stricter than theirs (invalid decimals, logical types on the wrong type). The
name rules follow the specification's "Names" section the way Avro Java applies them: a dotted name is a
full name, otherwise the ``namespace`` attribute or the enclosing namespace qualifies it; a reference
without a dot is looked up in the enclosing namespace, then in the null namespace.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from registry.compatibility import validation
from registry.compatibility.problems import SchemaProblem, pointer_join
from registry.compatibility.schema_model import PRIMITIVES, Field, Node

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
INVALID = "<invalid>"  # placeholder type for a part that could not be parsed; never checked further

_STRUCTURAL = {
    "record": {"type", "name", "namespace", "fields", "aliases"},
    "enum": {"type", "name", "namespace", "symbols", "aliases", "default"},
    "fixed": {"type", "name", "namespace", "size", "aliases"},
    "array": {"type", "items"},
    "map": {"type", "values"},
}
_FIELD_STRUCTURAL = {"name", "type", "default", "aliases"}
_ORDERS = {"ascending", "descending", "ignore"}
_NAME_RULE = 'must start with a letter or "_" and contain only letters, digits and "_"'


def json_type(value: Any) -> str:
    """The JSON name of a Python value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def load_json(text: str) -> Any:
    """Decodes JSON text; a syntax error becomes a problem with its line and column."""

    def reject_constant(name: str) -> Any:
        raise _ConstantError(name)

    try:
        return json.loads(text, parse_constant=reject_constant)
    except json.JSONDecodeError as exc:
        problem = SchemaProblem("", f"the schema is not valid JSON: {exc.msg}", exc.lineno, exc.colno)
        raise _JsonError(problem) from None
    except RecursionError:
        raise _JsonError(SchemaProblem("", "the schema is nested too deeply")) from None
    except _ConstantError as exc:
        raise _JsonError(
            SchemaProblem("", f"the schema is not valid JSON: {exc.args[0]} is not a JSON value")
        ) from None


class _ConstantError(ValueError):
    pass


class _JsonError(ValueError):
    def __init__(self, problem: SchemaProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


class Parser:
    """One parse: the names defined so far, the problems found, the defaults to check at the end."""

    def __init__(self, known: Mapping[str, Node]) -> None:
        self.names: dict[str, Node] = dict(known)
        self.problems: list[SchemaProblem] = []
        self.document = object()
        self._defaults: list[tuple[Node, Any, str]] = []

    def problem(self, pointer: str, message: str) -> None:
        self.problems.append(SchemaProblem(pointer, message))

    def parse_root(self, value: Any) -> Node:
        root = self.parse(value, "", "")
        # Defaults are checked last: a default may hold a record whose fields were still being parsed.
        for node, default, pointer in self._defaults:
            reason = validation.default_mismatch(node, default)
            if reason is not None:
                self.problem(pointer, f"the default {_short_json(default)} does not match the type: {reason}")
        return root

    # -- dispatch ---------------------------------------------------------------------------------
    def parse(self, value: Any, pointer: str, namespace: str) -> Node:
        if isinstance(value, str):
            return self.reference(value, pointer, namespace)
        if isinstance(value, list):
            return self.union(value, pointer, namespace)
        if isinstance(value, dict):
            return self.complex(value, pointer, namespace)
        self.problem(
            pointer, f"a schema must be a type name, an object or a union array, not {json_type(value)}"
        )
        return Node(INVALID)

    def reference(self, name: str, pointer: str, namespace: str) -> Node:
        if name in PRIMITIVES:
            return Node(name)
        found = self.lookup(name, namespace)
        if found is None:
            self.problem(pointer, f'unknown type "{name}" (named types must be defined before they are used)')
            return Node(INVALID)
        return found

    def lookup(self, name: str, namespace: str) -> Node | None:
        if "." not in name and namespace:
            found = self.names.get(f"{namespace}.{name}")
            if found is not None:
                return found
        return self.names.get(name)

    def complex(self, obj: dict[str, Any], pointer: str, namespace: str) -> Node:
        kind = obj.get("type")
        if kind is None:
            self.problem(pointer, 'a schema object needs a "type"')
            return Node(INVALID)
        if not isinstance(kind, str):
            self.problem(
                pointer_join(pointer, "type"),
                f'"type" must be a type name string here, not {json_type(kind)}',
            )
            return Node(INVALID)
        if kind in PRIMITIVES:
            node = Node(kind, props={k: v for k, v in obj.items() if k != "type"})
            self.check_logical(node, pointer)
            return node
        if kind in ("record", "error"):
            return self.record(obj, pointer, namespace)
        if kind == "enum":
            return self.enum(obj, pointer, namespace)
        if kind == "fixed":
            return self.fixed(obj, pointer, namespace)
        if kind == "array":
            return self.container(obj, "items", pointer, namespace)
        if kind == "map":
            return self.container(obj, "values", pointer, namespace)
        return self.reference(kind, pointer_join(pointer, "type"), namespace)

    # -- named types ------------------------------------------------------------------------------
    def define(self, obj: dict[str, Any], kind: str, pointer: str, namespace: str) -> tuple[Node, str]:
        """Creates and registers a named node before its body is parsed, so that it can recurse."""
        full, space = self.full_name(obj, kind, pointer, namespace)
        node = Node(kind, name=full, document=self.document, pointer=pointer)
        node.props = {k: v for k, v in obj.items() if k not in _STRUCTURAL[kind] and k != "type"}
        node.aliases = self.aliases(obj, pointer, space, qualify=True)
        if full in self.names:
            self.problem(pointer_join(pointer, "name"), f'the name "{full}" is already defined')
        elif full:
            self.names[full] = node
        return node, space

    def full_name(self, obj: dict[str, Any], kind: str, pointer: str, namespace: str) -> tuple[str, str]:
        name = obj.get("name")
        if not isinstance(name, str):
            what = "is missing" if name is None else f"must be a string, not {json_type(name)}"
            self.problem(
                pointer_join(pointer, "name") if "name" in obj else pointer, f'the {kind}\'s "name" {what}'
            )
            return "", namespace
        if "." in name:
            space = name.rpartition(".")[0]
            full = name
        else:
            space = obj.get("namespace", namespace)
            if space is None:
                space = namespace
            if not isinstance(space, str):
                self.problem(pointer_join(pointer, "namespace"), '"namespace" must be a string')
                space = namespace
            full = f"{space}.{name}" if space else name
        if not all(NAME_RE.match(part) for part in full.split(".")):
            self.problem(
                pointer_join(pointer, "name"), f'"{full}" is not a valid name: each part {_NAME_RULE}'
            )
        elif full.rpartition(".")[2] in PRIMITIVES:
            self.problem(
                pointer_join(pointer, "name"), f'a {kind} cannot be named after the primitive type "{name}"'
            )
        return full, space

    def aliases(self, obj: dict[str, Any], pointer: str, space: str, *, qualify: bool) -> tuple[str, ...]:
        raw = obj.get("aliases")
        if raw is None:
            return ()
        where = pointer_join(pointer, "aliases")
        if not isinstance(raw, list) or not all(isinstance(a, str) for a in raw):
            self.problem(where, '"aliases" must be an array of strings')
            return ()
        out: list[str] = []
        for i, alias in enumerate(raw):
            parts = alias.split(".") if qualify else [alias]
            if not all(NAME_RE.match(p) for p in parts):
                self.problem(
                    pointer_join(where, i), f'the alias "{alias}" is not a valid name: it {_NAME_RULE}'
                )
            out.append(f"{space}.{alias}" if qualify and space and "." not in alias else alias)
        return tuple(out)

    def record(self, obj: dict[str, Any], pointer: str, namespace: str) -> Node:
        node, space = self.define(obj, "record", pointer, namespace)
        fields = obj.get("fields")
        if not isinstance(fields, list):
            what = "is missing" if fields is None else f"must be an array, not {json_type(fields)}"
            self.problem(
                pointer_join(pointer, "fields") if "fields" in obj else pointer,
                f'the record\'s "fields" {what}',
            )
            return node
        for i, raw in enumerate(fields):
            where = pointer_join(pointer, "fields", i)
            if not isinstance(raw, dict):
                self.problem(where, f"a field must be an object, not {json_type(raw)}")
                continue
            parsed = self.field(raw, where, space, i)
            if parsed is None:
                continue
            if parsed.name in node.field_index:
                other = node.field_index[parsed.name].position
                self.problem(
                    pointer_join(where, "name"), f'duplicate field name "{parsed.name}" (also field {other})'
                )
                continue
            node.fields.append(parsed)
            node.field_index[parsed.name] = parsed
        return node

    def field(self, raw: dict[str, Any], pointer: str, space: str, position: int) -> Field | None:
        name = raw.get("name")
        ok = True
        if not isinstance(name, str):
            self.problem(pointer, 'a field needs a "name" string')
            ok = False
        elif not NAME_RE.match(name):
            self.problem(
                pointer_join(pointer, "name"), f'the field name "{name}" is not valid: it {_NAME_RULE}'
            )
        if "type" not in raw:
            self.problem(pointer, f'the field "{name}" needs a "type"')
            return None
        type_node = self.parse(raw["type"], pointer_join(pointer, "type"), space)
        order = raw.get("order")
        if order is not None and order not in _ORDERS:
            self.problem(
                pointer_join(pointer, "order"), '"order" must be "ascending", "descending" or "ignore"'
            )
        if not ok:
            return None
        out = Field(
            name=name,
            type=type_node,
            position=position,
            has_default="default" in raw,
            default=raw.get("default"),
            aliases=self.aliases(raw, pointer, space, qualify=False),
            props={k: v for k, v in raw.items() if k not in _FIELD_STRUCTURAL},
        )
        if out.has_default and type_node.type != INVALID:
            self._defaults.append((type_node, out.default, pointer_join(pointer, "default")))
        return out

    def enum(self, obj: dict[str, Any], pointer: str, namespace: str) -> Node:
        node, _ = self.define(obj, "enum", pointer, namespace)
        symbols = obj.get("symbols")
        where = pointer_join(pointer, "symbols")
        if not isinstance(symbols, list) or not all(isinstance(s, str) for s in symbols):
            self.problem(
                where if "symbols" in obj else pointer, 'an enum needs "symbols", an array of strings'
            )
            return node
        seen: dict[str, int] = {}
        for i, symbol in enumerate(symbols):
            if not NAME_RE.match(symbol):
                self.problem(pointer_join(where, i), f'the symbol "{symbol}" is not valid: it {_NAME_RULE}')
            if symbol in seen:
                self.problem(
                    pointer_join(where, i), f'duplicate enum symbol "{symbol}" (also symbol {seen[symbol]})'
                )
            seen.setdefault(symbol, i)
        node.symbols = tuple(symbols)
        if "default" in obj:
            default = obj["default"]
            if not isinstance(default, str) or default not in seen:
                self.problem(
                    pointer_join(pointer, "default"),
                    f"the enum default {_short_json(default)} is not one of its symbols",
                )
            else:
                node.enum_default = default
        return node

    def fixed(self, obj: dict[str, Any], pointer: str, namespace: str) -> Node:
        node, _ = self.define(obj, "fixed", pointer, namespace)
        size = obj.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            where = pointer_join(pointer, "size") if "size" in obj else pointer
            self.problem(where, 'a fixed needs a "size", a non-negative integer')
        else:
            node.size = size
            self.check_logical(node, pointer)
        return node

    # -- unnamed complex types ------------------------------------------------------------------
    def container(self, obj: dict[str, Any], key: str, pointer: str, namespace: str) -> Node:
        kind = obj["type"]
        node = Node(kind, props={k: v for k, v in obj.items() if k not in _STRUCTURAL[kind]})
        if key not in obj:
            self.problem(pointer, f'an {kind} needs "{key}"' if kind == "array" else f'a map needs "{key}"')
            setattr(node, key, Node(INVALID))
            return node
        setattr(node, key, self.parse(obj[key], pointer_join(pointer, key), namespace))
        return node

    def union(self, branches: list[Any], pointer: str, namespace: str) -> Node:
        node = Node("union")
        seen: dict[str, int] = {}
        for i, raw in enumerate(branches):
            where = pointer_join(pointer, i)
            if isinstance(raw, list):
                self.problem(where, "a union cannot directly contain another union")
                continue
            branch = self.parse(raw, where, namespace)
            node.branches.append(branch)
            if branch.type == INVALID:
                continue
            key = branch.name if branch.name is not None else branch.type
            if key in seen:
                self.problem(
                    where, f"the union already has a branch of type {branch.describe()} (branch {seen[key]})"
                )
            seen.setdefault(key, i)
        return node

    # -- logical types ----------------------------------------------------------------------------
    def check_logical(self, node: Node, pointer: str) -> None:
        if "logicalType" not in node.props:
            return
        for where, message in validation.logical_type_problems(node):
            self.problem(pointer_join(pointer, where) if where else pointer, message)


def _short_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
