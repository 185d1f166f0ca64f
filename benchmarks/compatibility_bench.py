"""Benchmark of the compatibility checker: `python benchmarks/compatibility_bench.py`.

Times our checker next to the Apache ``avro`` package's ``avro.compatibility`` doing the same work in the
same process, and prints a markdown table (best of several rounds; ratio = avro time / our time):

* a pair of 500-field nested schemas (records in records, arrays and maps of records, unions, enums),
  the new one a compatible evolution of the old, so every field is compared;
* a new schema against 1000 existing versions under FULL_TRANSITIVE (2000 reader/writer checks).

Schemas are parsed once beforehand on both sides (the registry keeps parsed schemas cached), and the
parse itself is timed as a separate row.
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


if __name__ == "__main__":
    main()
