"""Differential test: our verdicts against the Apache ``avro`` package's on thousands of generated pairs.

Every generated schema and its evolution are compared in both directions (reader = old / writer = new,
and the reverse): same verdict and the same set of incompatibility kinds.

Named deviations of the oracle from Avro Java (we follow Java), handled before comparing:

* aliases: Java qualifies an unqualified alias of a named type with that type's namespace (alias "Old"
  of "x.New" means "x.Old"); the Python package compares aliases as written;
* references: Java resolves an unqualified reference in the enclosing namespace and then in the null
  namespace; the Python package does not try the null namespace and refuses the schema (such pairs
  cannot be given to it at all and are counted as not compared).

``javaize`` hands the oracle the aliases already qualified, i.e. Java's meaning.

Union defaults may match any branch (Avro 1.12): the generator gives some unions a default of a later
branch, and each chunk must compare enough such pairs (before 1.12 we refused those schemas, and Avro
Java 1.12 does not).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from registry.compatibility import InvalidSchemaError, check_reader_writer, parse_schema
from registry.compatibility.schema_model import Node
from registry.compatibility.validation import default_branch
from tests.registry.compatibility.generator import SchemaGenerator
from tests.registry.compatibility.oracle import oracle_kinds
from tests.tiers import in_default_tier

CHUNKS = 10
PAIRS_PER_CHUNK = 550  # 5,500 schema pairs, each checked both ways


PRIMITIVE_NAMES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


class Unexpressible(ValueError):
    """The schema needs a Java parsing rule the Python package cannot be given."""


def javaize(schema: Any) -> Any:
    """Java's reading of names made explicit, so the Python package judges the same schema as Java.

    Unqualified aliases get their type's namespace; a reference without a dot that is not defined in the
    enclosing namespace falls back to the null namespace (Java's ``Names.get``); the Python package has
    no way to spell that reference, so such a pair raises :class:`Unexpressible` and is not compared.
    """
    defined: set[str] = set()

    def walk(node: Any, enclosing: str) -> Any:
        if isinstance(node, list):
            return [walk(b, enclosing) for b in node]
        if isinstance(node, str):
            if node in PRIMITIVE_NAMES or "." in node:
                return node
            if not enclosing or f"{enclosing}.{node}" in defined:
                return f"{enclosing}.{node}" if enclosing else node
            raise Unexpressible(node)  # a null-namespace type referenced from inside a namespace
        out = dict(node)
        kind = node.get("type")
        namespace = enclosing
        if kind in ("record", "enum", "fixed"):
            name = node["name"]
            namespace = name.rpartition(".")[0] if "." in name else node.get("namespace", enclosing) or ""
            defined.add(f"{namespace}.{name}" if namespace and "." not in name else name)
            if "aliases" in node:
                out["aliases"] = [
                    a if "." in a or not namespace else f"{namespace}.{a}" for a in node["aliases"]
                ]
        if kind == "record":
            out["fields"] = [{**f, "type": walk(f["type"], namespace)} for f in node["fields"]]
        elif kind == "array":
            out["items"] = walk(node["items"], namespace)
        elif kind == "map":
            out["values"] = walk(node["values"], namespace)
        return out

    return walk(schema, "")


def later_branch_defaults(schema: Any) -> int:
    """How many union defaults in ``schema`` (field defaults, nested record defaults included) match a
    branch other than the first: the schemas only Avro 1.12's rule accepts."""
    parsed = parse_schema(json.dumps(schema)).model
    assert parsed is not None
    found = 0
    seen: set[int] = set()

    def value(node: Node, default: Any) -> None:
        nonlocal found
        if node.type == "union" and node.branches:
            branch = default_branch(node, default)
            found += branch is not None and branch is not node.branches[0]
            if branch is not None:
                value(branch, default)
        elif node.type == "record" and isinstance(default, dict):
            for f in node.fields:
                if f.name in default:
                    value(f.type, default[f.name])

    def walk(node: Node) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        for f in node.fields:
            if f.has_default:
                value(f.type, f.default)
            walk(f.type)
        for child in (node.items, node.values, *node.branches):
            if child is not None:
                walk(child)

    walk(parsed)
    return found


def our_kinds(reader: Any, writer: Any) -> set | None:
    found = check_reader_writer(parse_schema(json.dumps(reader)), parse_schema(json.dumps(writer)))
    return {i.kind for i in found} or None


# The first two chunks (1,100 pairs) in the default tier, all ten in the full one.
@pytest.mark.parametrize("chunk", in_default_tier(range(CHUNKS), 2))
def test_same_verdicts_as_the_avro_package(chunk: int) -> None:
    generator = SchemaGenerator(seed=1000 + chunk)
    mismatches: list[str] = []
    compared = skipped = incompatible = later_branch = 0
    while compared < PAIRS_PER_CHUNK:
        old = generator.schema()
        mutation, new = generator.evolve(copy.deepcopy(old))
        try:
            parse_schema(json.dumps(old))
            parse_schema(json.dumps(new))
            javaize(old)
            javaize(new)
        except (InvalidSchemaError, Unexpressible):
            skipped += 1  # an evolution that broke the schema (a dangling name, say), or see javaize
            continue
        compared += 1
        later_branch += bool(later_branch_defaults(old) or later_branch_defaults(new))
        for reader, writer, direction in ((new, old, "new_reads_old"), (old, new, "old_reads_new")):
            ours = our_kinds(reader, writer)
            theirs = oracle_kinds(javaize(reader), javaize(writer))
            incompatible += ours is not None
            if ours != theirs:
                mismatches.append(f"{mutation} {direction}: ours={ours} oracle={theirs}\n{reader}\n{writer}")
    assert mismatches == [], mismatches[:3]
    # The generator must exercise both outcomes and rarely produce invalid evolutions.
    assert 0.2 * PAIRS_PER_CHUNK < incompatible < 1.8 * PAIRS_PER_CHUNK
    assert skipped < PAIRS_PER_CHUNK // 5
    assert later_branch > PAIRS_PER_CHUNK // 20, (
        f"only {later_branch} pairs with a later-branch union default"
    )
