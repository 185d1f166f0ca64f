"""Benchmark of the compatibility checker: `python benchmarks/compatibility_bench.py`.

Times our checker next to the Apache ``avro`` package's ``avro.compatibility`` doing the same work in the
same process, and prints a markdown table (best of several rounds; ratio = avro time / our time):

* a pair of 500-field nested schemas (records in records, arrays and maps of records, unions, enums),
  the new one a compatible evolution of the old, so every field is compared;
* a new schema against 1000 existing versions under FULL_TRANSITIVE (2000 reader/writer checks).

Schemas are parsed once beforehand on both sides (the registry keeps parsed schemas cached), and the
parse itself is timed as a separate row.

A second table puts the registry's three schema types side by side, through the interface the service
uses (``registry.schema_types``): the same 30-field event (a nested record among its fields) as Avro,
JSON Schema (closed content models, so that an added optional property is a compatible change, as
Confluent's rules have it) and Protobuf, parsed, and a new version checked against 100 earlier ones (each
adds a field) under BACKWARD_TRANSITIVE.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import avro.schema
from avro.compatibility import ReaderWriterCompatibilityChecker, SchemaCompatibilityType

from registry.compatibility import check_compatibility, check_reader_writer, parse_schema
from registry.schema_types import schema_type


def nested_schema(fields_wanted: int, evolved: bool) -> dict[str, Any]:
    """A record with ``fields_wanted`` fields in all, spread over nested records and containers.

    ``evolved`` gives the next version: ints widened to long, and a defaulted field added per record.
    """
    counter = 0

    def leaf(i: int) -> Any:
        kinds = ["int", "string", "double", ["null", "string"], "boolean", "long"]
        kind = kinds[i % len(kinds)]
        return "long" if evolved and kind == "int" else kind

    def record(name: str, width: int, depth: int) -> dict[str, Any]:
        nonlocal counter
        fields: list[dict[str, Any]] = []
        for i in range(width):
            if counter >= fields_wanted:
                break
            counter += 1
            name_i = f"{name.lower()}_f{i}"
            if depth < 2 and i % 5 == 0:
                inner = record(f"{name}N{i}", width // 2, depth + 1)
                wrap = [inner, {"type": "array", "items": inner}, {"type": "map", "values": inner}][i % 3]
                fields.append({"name": name_i, "type": wrap})
            elif i % 7 == 0:
                symbols = ["A", "B", "C"] + (["D"] if evolved else [])
                fields.append(
                    {"name": name_i, "type": {"type": "enum", "name": f"{name}E{i}", "symbols": symbols}}
                )
            else:
                fields.append({"name": name_i, "type": leaf(i)})
        if evolved:
            fields.append({"name": f"{name.lower()}_added", "type": ["null", "string"], "default": None})
        return {"type": "record", "name": name, "fields": fields}

    out = record("Root", 60, 0)
    while counter < fields_wanted:  # top up with plain fields
        out["fields"].insert(0, {"name": f"extra_{counter}", "type": leaf(counter)})
        counter += 1
    return out


def count_fields(schema: Any) -> int:
    if isinstance(schema, list):
        return sum(count_fields(b) for b in schema)
    if not isinstance(schema, dict):
        return 0
    if schema["type"] == "record":
        return len(schema["fields"]) + sum(count_fields(f["type"]) for f in schema["fields"])
    return count_fields(schema.get("items")) + count_fields(schema.get("values"))


def version(i: int) -> dict[str, Any]:
    """Version ``i`` of a 30-field event schema: each version adds one defaulted field."""
    base = nested_schema(30, evolved=False)
    base["fields"].append({"name": f"added_in_v{i}", "type": ["null", "long"], "default": None})
    return base


# The event of the types' table: (name, kind) fields, kinds "long", "string", "double", "boolean",
# "optional string" and "nested" (a record of five such fields).
EVENT_KINDS = ("long", "string", "double", "boolean", "optional string")


def event_fields(added: int) -> list[tuple[str, str]]:
    fields = [(f"f{i}", EVENT_KINDS[i % len(EVENT_KINDS)]) for i in range(29)] + [("inner", "nested")]
    return fields + [(f"added_in_v{v}", "optional string") for v in range(1, added + 1)]


def event_avro(added: int) -> str:
    kinds = {"long": "long", "string": "string", "double": "double", "boolean": "boolean"}

    def field(name: str, kind: str) -> dict[str, Any]:
        if kind == "optional string":
            return {"name": name, "type": ["null", "string"], "default": None}
        if kind == "nested":
            inner = [field(f"g{i}", EVENT_KINDS[i]) for i in range(5)]
            return {"name": name, "type": {"type": "record", "name": "Inner", "fields": inner}}
        return {"name": name, "type": kinds[kind]}

    fields = [field(n, k) for n, k in event_fields(added)]
    return json.dumps({"type": "record", "name": "Event", "namespace": "bench", "fields": fields})


def event_json_schema(added: int) -> str:
    kinds = {"long": "integer", "string": "string", "double": "number", "boolean": "boolean"}

    def prop(kind: str) -> dict[str, Any]:
        if kind == "optional string":
            return {"type": ["null", "string"]}
        if kind == "nested":
            inner = {f"g{i}": prop(EVENT_KINDS[i]) for i in range(5)}
            required = [f"g{i}" for i in range(4)]
            return {
                "type": "object",
                "properties": inner,
                "required": required,
                "additionalProperties": False,
            }
        return {"type": kinds[kind]}

    fields = event_fields(added)
    required = [n for n, k in fields if k != "optional string"]
    properties = {n: prop(k) for n, k in fields}
    closed = {"additionalProperties": False}
    return json.dumps(
        {"type": "object", "title": "Event", "properties": properties, "required": required, **closed}
    )


def event_proto(added: int) -> str:
    kinds = {"long": "int64", "string": "string", "double": "double", "boolean": "bool"}
    kinds["optional string"] = "optional string"
    inner = "".join(f"  {kinds[EVENT_KINDS[i]]} g{i} = {i + 1};\n" for i in range(5))
    lines = [
        f"  {'Inner' if k == 'nested' else kinds[k]} {n} = {i + 1};\n"
        for i, (n, k) in enumerate(event_fields(added))
    ]
    event = "".join(lines)
    return f'syntax = "proto3";\npackage bench;\nmessage Inner {{\n{inner}}}\nmessage Event {{\n{event}}}\n'


EVENTS = {"AVRO": event_avro, "JSON": event_json_schema, "PROTOBUF": event_proto}


def types_rows(rounds: int, versions: int) -> list[tuple[str, float, float]]:
    """Per type: (name, one parse, new version against `versions` earlier ones under BACKWARD_TRANSITIVE)."""
    rows = []
    for name, text_of in EVENTS.items():
        kind = schema_type(name)
        history = [(v, kind.parse(text_of(v))) for v in range(1, versions + 1)]
        candidate_text = text_of(versions + 1)
        candidate = kind.parse(candidate_text)
        assert kind.conflicts(candidate, history, "BACKWARD_TRANSITIVE") == [], name
        parse = best_of(rounds, lambda: kind.parse(candidate_text))  # noqa: B023 (called at once)
        check = best_of(rounds, lambda: kind.conflicts(candidate, history, "BACKWARD_TRANSITIVE"))  # noqa: B023
        rows.append((name, parse, check))
    return rows


def best_of(rounds: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def avro_compatible(reader: Any, writer: Any) -> bool:
    result = ReaderWriterCompatibilityChecker().get_compatibility(reader, writer)
    return result.compatibility is SchemaCompatibilityType.compatible


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--versions", type=int, default=1000)
    parser.add_argument("--type-versions", type=int, default=100)
    args = parser.parse_args()

    old_json, new_json = nested_schema(500, evolved=False), nested_schema(500, evolved=True)
    old_text, new_text = json.dumps(old_json), json.dumps(new_json)
    ours_old, ours_new = parse_schema(old_text), parse_schema(new_text)
    avro_old, avro_new = avro.schema.parse(old_text), avro.schema.parse(new_text)
    assert check_reader_writer(ours_new, ours_old) == [] and avro_compatible(avro_new, avro_old)

    history_texts = [json.dumps(version(i)) for i in range(1, args.versions + 1)]
    ours_history = [(i, parse_schema(t)) for i, t in enumerate(history_texts, 1)]
    avro_history = [avro.schema.parse(t) for t in history_texts]
    candidate_text = json.dumps(version(args.versions + 1))
    ours_candidate, avro_candidate = parse_schema(candidate_text), avro.schema.parse(candidate_text)
    assert check_compatibility(ours_candidate, ours_history, "FULL_TRANSITIVE") == []

    def avro_full_transitive() -> bool:
        ok = True
        for old in reversed(avro_history):
            ok &= avro_compatible(avro_candidate, old)
            ok &= avro_compatible(old, avro_candidate)
        return ok

    assert avro_full_transitive()

    rows = [
        (
            f"check a pair of {count_fields(old_json)}/{count_fields(new_json)}-field nested schemas",
            best_of(args.rounds, lambda: check_reader_writer(ours_new, ours_old)),
            best_of(args.rounds, lambda: avro_compatible(avro_new, avro_old)),
        ),
        (
            "parse both 500-field schemas",
            best_of(args.rounds, lambda: (parse_schema(old_text), parse_schema(new_text))),
            best_of(args.rounds, lambda: (avro.schema.parse(old_text), avro.schema.parse(new_text))),
        ),
        (
            f"new schema vs {args.versions} versions, FULL_TRANSITIVE ({2 * args.versions} checks)",
            best_of(
                args.rounds, lambda: check_compatibility(ours_candidate, ours_history, "FULL_TRANSITIVE")
            ),
            best_of(args.rounds, avro_full_transitive),
        ),
    ]
    print(f"Python {sys.version.split()[0]}, best of {args.rounds} rounds\n")
    print("| work | ours (ms) | avro.compatibility (ms) | ratio (avro / ours) |")
    print("| --- | ---: | ---: | ---: |")
    for label, ours, theirs in rows:
        print(f"| {label} | {ours * 1000:.2f} | {theirs * 1000:.2f} | {theirs / ours:.1f}x |")

    typed = types_rows(args.rounds, args.type_versions)
    avro_parse, avro_check = typed[0][1], typed[0][2]
    print(f"\nThe schema types: a 30-field event, parsed; a new version against {args.type_versions} earlier")
    print("ones, BACKWARD_TRANSITIVE. The rate is Avro's time over the type's (1.00x: as fast as Avro).\n")
    print("| type | parse (ms) | rate | check (ms) | rate |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, parse, check in typed:
        rates = f"{avro_parse / parse:.2f}x | {check * 1000:.2f} | {avro_check / check:.2f}x"
        print(f"| {name} | {parse * 1000:.2f} | {rates} |")


if __name__ == "__main__":
    main()
