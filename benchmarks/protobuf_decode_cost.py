"""What decoding a Protobuf record costs in Python: `python benchmarks/protobuf_decode_cost.py`.

A 17-field event like the loader benchmarks' page view, parsed by the `protobuf` runtime and written as
JSON (what Spark's JSON reader would then read) or read field by field; microseconds per record, one
process. The journal's "Decoding Protobuf records: where" has the rows and what they decided.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from google.protobuf.internal import api_implementation

FIELD = descriptor_pb2.FieldDescriptorProto
FIELDS = [
    ("event_id", FIELD.TYPE_STRING), ("member_id", FIELD.TYPE_INT64), ("session_id", FIELD.TYPE_STRING),
    ("page_key", FIELD.TYPE_STRING), ("url", FIELD.TYPE_STRING), ("referrer", FIELD.TYPE_STRING),
    ("ip_address", FIELD.TYPE_STRING), ("user_agent", FIELD.TYPE_STRING), ("country", FIELD.TYPE_STRING),
    ("viewed_at", FIELD.TYPE_INT64), ("duration_ms", FIELD.TYPE_INT32), ("scroll_depth", FIELD.TYPE_FLOAT),
    ("logged_in", FIELD.TYPE_BOOL), ("locale", FIELD.TYPE_STRING), ("app_version", FIELD.TYPE_STRING),
    ("load_time_ms", FIELD.TYPE_INT32),
]  # fmt: skip


def event_class() -> type:
    file = descriptor_pb2.FileDescriptorProto(name="event.proto", package="bench", syntax="proto3")
    message = file.message_type.add(name="PageView")
    for number, (name, kind) in enumerate(FIELDS, start=1):
        message.field.add(name=name, number=number, type=kind, label=FIELD.LABEL_OPTIONAL)
    message.field.add(name="experiment_ids", number=20, type=FIELD.TYPE_INT64, label=FIELD.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("bench.PageView"))


def fields_of(message: object, names: list[str]) -> dict[str, object]:
    return {name: getattr(message, name) for name in names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=50_000)
    records = parser.parse_args().records
    cls = event_class()
    body = cls(
        event_id="0123456789abcdef", member_id=1_234_567, session_id="abcdefabcdef", page_key="feed",
        url="https://www.example.com/feed", referrer="https://www.example.com/", ip_address="10.1.2.3",
        user_agent="Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36", country="us",
        viewed_at=1_790_000_000_000, duration_ms=1234, scroll_depth=0.5, logged_in=True, locale="en_US",
        app_version="5.1.2", load_time_ms=300, experiment_ids=[1, 2, 3],
    ).SerializeToString()  # fmt: skip
    names = [f.name for f in cls.DESCRIPTOR.fields]
    ways: dict[str, Callable[[], object]] = {
        "parse and json_format.MessageToJson": lambda: json_format.MessageToJson(
            cls.FromString(body), preserving_proto_field_name=True, indent=None
        ),
        "parse and MessageToDict, then json.dumps": lambda: json.dumps(
            json_format.MessageToDict(cls.FromString(body), preserving_proto_field_name=True)
        ),
        "parse and read every field into a dict": lambda: fields_of(cls.FromString(body), names),
    }
    print(f"protobuf runtime: {api_implementation.Type()}\n\n| per record | µs |\n|---|---:|")
    for label, way in ways.items():
        started = time.perf_counter()
        for _ in range(records):
            way()
        print(f"| {label} | {(time.perf_counter() - started) / records * 1e6:.1f} |")


if __name__ == "__main__":
    main()
