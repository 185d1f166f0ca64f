"""A seeded generator of valid Avro schemas and of the evolutions people actually make to them.

Deterministic (``random.Random(seed)``) so that CI runs the same pairs every time and a failure names its
seed. Mutations: added and removed fields with and without defaults, promotions and demotions, enum symbol
and enum default changes, union branch changes, wrapping in unions/arrays/maps, renames with and without
aliases (full and unqualified), fixed resizes, namespace changes, recursive references. Union defaults
belong to any branch, as Avro 1.12 allows, so that schemas only 1.12 accepts take part.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from typing import Any

PRIMITIVES = ["null", "boolean", "int", "long", "float", "double", "bytes", "string"]
PROMOTE = {
    "int": ["long", "float", "double"],
    "long": ["float", "double"],
    "float": ["double"],
    "string": ["bytes"],
}
DEMOTE = {"long": ["int"], "float": ["int", "long"], "double": ["int", "long", "float"], "bytes": ["string"]}
LOGICAL = [
    {"type": "int", "logicalType": "date"},
    {"type": "long", "logicalType": "timestamp-millis"},
    {"type": "long", "logicalType": "timestamp-micros"},
    {"type": "string", "logicalType": "uuid"},
    {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2},
]
NO_DEFAULT = object()


def underlying(schema: Any) -> str:
    """The type name that decides duplicates in a union (named types by name)."""
    if isinstance(schema, dict):
        if schema["type"] in ("record", "enum", "fixed"):
            return schema["name"]
        return schema["type"]
    return schema


class SchemaGenerator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.counter = 0
        self.named: dict[str, Any] = {}  # names defined so far in the schema being generated

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- schemas ---------------------------------------------------------------------------------
    def schema(self) -> dict[str, Any]:
        self.named = {}
        return self.record(0, self.rng.choice([None, "com.example", "org.events"]))

    def type_(self, depth: int, enclosing: str | None) -> Any:
        rng = self.rng
        roll = rng.random()
        if roll < 0.38 or depth >= 3:
            return rng.choice(PRIMITIVES[1:])
        if roll < 0.43:
            return copy.deepcopy(rng.choice(LOGICAL))
        if roll < 0.52:
            return self.enum()
        if roll < 0.58:
            return self.fixed()
        if roll < 0.67:
            return {"type": "array", "items": self.type_(depth + 1, enclosing)}
        if roll < 0.74:
            return {"type": "map", "values": self.type_(depth + 1, enclosing)}
        if roll < 0.88:
            return self.union(depth, enclosing)
        if roll < 0.93 and self.named:
            return rng.choice(sorted(self.named))  # a reference to an earlier named type
        return self.record(depth + 1, rng.choice([None, None, "nested.ns"]))

    def enum(self) -> dict[str, Any]:
        symbols = self.rng.sample(["A", "B", "C", "D", "E"], self.rng.randint(1, 4))
        out: dict[str, Any] = {"type": "enum", "name": self.fresh("E"), "symbols": symbols}
        if self.rng.random() < 0.3:
            out["default"] = self.rng.choice(symbols)
        self.named[out["name"]] = out
        return out

    def fixed(self) -> dict[str, Any]:
        out = {"type": "fixed", "name": self.fresh("F"), "size": self.rng.choice([2, 4, 8, 16])}
        self.named[out["name"]] = out
        return out

    def union(self, depth: int, enclosing: str | None) -> list[Any]:
        branches: list[Any] = []
        seen: set[str] = set()
        if self.rng.random() < 0.6:
            branches.append("null")
            seen.add("null")
        for _ in range(self.rng.randint(1, 3)):
            branch = self.type_(depth + 1, enclosing)
            if isinstance(branch, list) or underlying(branch) in seen:
                continue
            if isinstance(branch, dict) and branch.get("logicalType") and branch["type"] in seen:
                continue
            seen.add(underlying(branch))
            branches.append(branch)
        return branches or ["null", "string"]

    def record(self, depth: int, namespace: str | None) -> dict[str, Any]:
        name = self.fresh("R")
        out: dict[str, Any] = {"type": "record", "name": name, "fields": []}
        if namespace:
            out["namespace"] = namespace
        self.named[name] = out
        for _ in range(self.rng.randint(1, 5 if depth == 0 else 3)):
            out["fields"].append(self.field(depth, namespace))
        if self.rng.random() < 0.15:  # a recursive reference
            out["fields"].append({"name": self.fresh("self"), "type": ["null", name], "default": None})
        return out

    def field(self, depth: int, enclosing: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.fresh("f"), "type": self.type_(depth, enclosing)}
        if self.rng.random() < 0.5:
            default = self.default(out["type"], 0)
            if default is not NO_DEFAULT:
                out["default"] = default
        return out

    def default(self, schema: Any, depth: int) -> Any:
        if depth > 4:
            return NO_DEFAULT
        if isinstance(schema, list):  # Avro 1.12: the default may belong to any branch
            if len(schema) > 1 and self.rng.random() < 0.35:
                later = self.default(self.rng.choice(schema[1:]), depth + 1)
                if later is not NO_DEFAULT:
                    return later
            return self.default(schema[0], depth + 1) if schema else NO_DEFAULT
        if isinstance(schema, str):
            if schema in self.named:
                return self.default(self.named[schema], depth + 1)
            return {
                "null": None,
                "boolean": True,
                "int": 7,
                "long": 2**40,
                "float": 1.5,
                "double": -2.25,
                "bytes": "\u00ff\u0001",
                "string": "text",
            }.get(schema, NO_DEFAULT)
        kind = schema["type"]
        if kind in PRIMITIVES:
            return self.default(kind, depth)
        if kind == "enum":
            return schema["symbols"][0]
        if kind == "fixed":
            return "x" * schema["size"]
        if kind == "array":
            return []
        if kind == "map":
            return {}
        if kind == "record":
            out = {}
            for f in schema["fields"]:
                value = self.default(f["type"], depth + 1)
                if value is NO_DEFAULT:
                    return NO_DEFAULT
                out[f["name"]] = value
            return out
        return NO_DEFAULT

    # -- evolutions ------------------------------------------------------------------------------
    def evolve(self, schema: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """A mutated deep copy of ``schema`` and the name of the mutation."""
        out = copy.deepcopy(schema)
        self.named = {n["name"]: n for n in _named(out)}
        mutations: list[Callable[[dict[str, Any]], str]] = [
            self.add_field,
            self.remove_field,
            self.retype_field,
            self.retype_field,
            self.wrap_field,
            self.enum_change,
            self.union_change,
            self.rename_type,
            self.rename_field,
            self.resize_fixed,
            self.renamespace,
        ]
        names = [self.rng.choice(mutations)(out) for _ in range(self.rng.choice([1, 1, 1, 2, 3]))]
        return "+".join(names), out

    def pick_record(self, schema: dict[str, Any]) -> dict[str, Any]:
        return self.rng.choice([n for n in _named(schema) if n["type"] == "record"])

    def add_field(self, schema: dict[str, Any]) -> str:
        rec = self.pick_record(schema)
        new = self.field(2, rec.get("namespace"))
        rec["fields"].append(new)
        return "add-field" + ("-with-default" if "default" in new else "")

    def remove_field(self, schema: dict[str, Any]) -> str:
        rec = self.pick_record(schema)
        if len(rec["fields"]) > 1:
            rec["fields"].pop(self.rng.randrange(len(rec["fields"])))
        return "remove-field"

    def _set_type(self, f: dict[str, Any], new_type: Any) -> None:
        f["type"] = new_type
        if "default" in f:
            default = self.default(new_type, 0)
            if default is NO_DEFAULT:
                del f["default"]
            else:
                f["default"] = default

    def retype_field(self, schema: dict[str, Any]) -> str:
        f = self.rng.choice(self.pick_record(schema)["fields"])
        current = f["type"]
        if isinstance(current, str) and current in PROMOTE and self.rng.random() < 0.4:
            self._set_type(f, self.rng.choice(PROMOTE[current]))
            return "promote"
        if isinstance(current, str) and current in DEMOTE and self.rng.random() < 0.4:
            self._set_type(f, self.rng.choice(DEMOTE[current]))
            return "demote"
        self._set_type(f, self.rng.choice(PRIMITIVES[1:]))
        return "retype"

    def wrap_field(self, schema: dict[str, Any]) -> str:
        f = self.rng.choice(self.pick_record(schema)["fields"])
        current = f["type"]
        how = self.rng.choice(["nullable", "array", "map", "unwrap"])
        if how == "unwrap" and isinstance(current, list) and current:
            self._set_type(f, self.rng.choice(current))
        elif how == "nullable" and not isinstance(current, list) and underlying(current) != "null":
            f["type"] = ["null", current]
            f["default"] = None
        elif how == "array":
            self._set_type(f, {"type": "array", "items": current})
        elif how == "map":
            self._set_type(f, {"type": "map", "values": current})
        return "wrap-" + how

    def enum_change(self, schema: dict[str, Any]) -> str:
        enums = [n for n in _named(schema) if n["type"] == "enum"]
        if not enums:
            return "enum-none"
        e = self.rng.choice(enums)
        how = self.rng.choice(["add", "remove", "default", "no-default"])
        if how == "add":
            extra = [s for s in ["A", "B", "C", "D", "E", "F"] if s not in e["symbols"]]
            e["symbols"].append(self.rng.choice(extra))
        elif how == "remove" and len(e["symbols"]) > 1:
            gone = e["symbols"].pop(self.rng.randrange(len(e["symbols"])))
            if e.get("default") == gone:
                e["default"] = e["symbols"][0]
        elif how == "default":
            e["default"] = self.rng.choice(e["symbols"])
        else:
            e.pop("default", None)
        return "enum-" + how

    def union_change(self, schema: dict[str, Any]) -> str:
        fields = [
            f
            for r in _named(schema)
            if r["type"] == "record"
            for f in r["fields"]
            if isinstance(f["type"], list)
        ]
        if not fields:
            return "union-none"
        f = self.rng.choice(fields)
        if self.rng.random() < 0.5 and len(f["type"]) > 1:
            gone = self.rng.randrange(len(f["type"]))
            self._set_type(f, [b for i, b in enumerate(f["type"]) if i != gone])
            return "union-remove-branch"
        seen = {underlying(b) for b in f["type"]}
        candidate = self.rng.choice([*PRIMITIVES, self.enum(), self.fixed()])
        if underlying(candidate) not in seen:
            f["type"].append(candidate)
        return "union-add-branch"

    def rename_type(self, schema: dict[str, Any]) -> str:
        node = self.rng.choice(list(_named(schema)))
        if any(r != node and _refers_to(r, node["name"]) for r in _named(schema)) or _refers_to(
            node, node["name"]
        ):
            return "rename-skipped"  # references by name would dangle
        old = node["name"]
        node["name"] = self.fresh("Renamed")
        how = self.rng.choice(["plain", "alias-unqualified", "alias-full", "alias-other-namespace"])
        namespace = node.get("namespace")
        if how == "alias-unqualified":
            node["aliases"] = [old]
        elif how == "alias-full":
            node["aliases"] = [f"{namespace}.{old}" if namespace else old]
        elif how == "alias-other-namespace":
            node["aliases"] = [f"elsewhere.{old}"]
        return "rename-type-" + how

    def rename_field(self, schema: dict[str, Any]) -> str:
        f = self.rng.choice(self.pick_record(schema)["fields"])
        old = f["name"]
        f["name"] = self.fresh("renamed")
        if self.rng.random() < 0.6:
            f["aliases"] = [old]
            return "rename-field-alias"
        return "rename-field"

    def resize_fixed(self, schema: dict[str, Any]) -> str:
        fixeds = [n for n in _named(schema) if n["type"] == "fixed"]
        if not fixeds:
            return "resize-none"
        fx = self.rng.choice(fixeds)
        fx["size"] = fx["size"] * 2
        for r in _named(schema):
            for f in r.get("fields", []):
                if "default" in f:
                    default = self.default(f["type"], 0)
                    if default is NO_DEFAULT:
                        del f["default"]
                    else:
                        f["default"] = default
        return "resize-fixed"

    def renamespace(self, schema: dict[str, Any]) -> str:
        node = self.rng.choice(list(_named(schema)))
        if any(_refers_to(r, node["name"]) for r in _named(schema)):
            return "renamespace-skipped"
        node["namespace"] = self.rng.choice(["moved", "other.ns", ""])
        return "renamespace"


def _named(schema: Any) -> Iterator[dict[str, Any]]:
    """Every named type defined in ``schema`` (document order)."""
    if isinstance(schema, list):
        for branch in schema:
            yield from _named(branch)
    elif isinstance(schema, dict):
        kind = schema.get("type")
        if kind in ("record", "enum", "fixed"):
            yield schema
        if kind == "record":
            for f in schema["fields"]:
                yield from _named(f["type"])
        elif kind == "array":
            yield from _named(schema["items"])
        elif kind == "map":
            yield from _named(schema["values"])


def _refers_to(schema: Any, name: str) -> bool:
    """Whether ``schema`` mentions ``name`` as a by-name reference somewhere."""
    if isinstance(schema, str):
        return schema == name
    if isinstance(schema, list):
        return any(_refers_to(b, name) for b in schema)
    kind = schema.get("type")
    if kind == "record":
        return any(_refers_to(f["type"], name) for f in schema["fields"])
    if kind == "array":
        return _refers_to(schema["items"], name)
    if kind == "map":
        return _refers_to(schema["values"], name)
    return False
