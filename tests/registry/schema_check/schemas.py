"""Schema texts for the tests, laid out as people write them so that line numbers mean something."""

from __future__ import annotations

import json
from typing import Any

PAGE_VIEW_V1 = """{
  "type": "record",
  "name": "PageView",
  "namespace": "com.example.tracking",
  "doc": "A page was shown to a member.",
  "fields": [
    {"name": "member_id", "type": "long", "doc": "Who saw the page."},
    {"name": "url", "type": "string", "doc": "The page's URL."},
    {
      "name": "time",
      "type": {"type": "long", "logicalType": "timestamp-millis"},
      "doc": "When the page was shown (UTC)."
    }
  ]
}
"""

# Line 14, column 5: where the added field's object starts.
ADDED_WITHOUT_DEFAULT = PAGE_VIEW_V1.replace(
    """      "doc": "When the page was shown (UTC)."
    }
""",
    """      "doc": "When the page was shown (UTC)."
    },
    {"name": "referrer", "type": "string", "doc": "The page before."}
""",
)
ADDED_WITHOUT_DEFAULT_LINE = 14

ADDED_WITH_DEFAULT = ADDED_WITHOUT_DEFAULT.replace(
    '{"name": "referrer", "type": "string", "doc": "The page before."}',
    '{"name": "referrer", "type": ["null", "string"], "default": null, "doc": "The page before."}',
)

# The default "none" is not a long: invalid whatever the history. Line 7, column 54 is where it starts.
INVALID_DEFAULT = PAGE_VIEW_V1.replace(
    '{"name": "member_id", "type": "long", "doc": "Who saw the page."}',
    '{"name": "member_id", "type": "long", "default": "none", "doc": "Who saw the page."}',
)
INVALID_DEFAULT_LINE = 7

# url changed from string to int: a type change no reader can resolve. Line 8, column 29.
URL_AS_INT = PAGE_VIEW_V1.replace('{"name": "url", "type": "string"', '{"name": "url", "type": "int"')
URL_AS_INT_LINE, URL_AS_INT_COLUMN = 8, 29

SYNTAX_ERROR = PAGE_VIEW_V1.replace('"doc": "Who saw the page."}', '"doc": "Who saw the page."')


def record(name: str, fields: list[dict[str, Any]]) -> str:
    """A compact record schema, for tests where positions do not matter."""
    return json.dumps(
        {"type": "record", "name": name, "namespace": "com.example", "fields": fields}, indent=2
    )


# -- Protobuf and JSON Schema files, laid out as people write them ------------------------------------------
CUSTOMER_PROTO = """syntax = "proto3";
package shop;

message Customer {
  string id = 1;
  string email = 2;
}
"""

# Imports customer.proto (a file beside it in schemas/).
ORDER_PROTO_V1 = """syntax = "proto3";
package shop;

import "customer.proto";

message Order {
  string id = 1;
  Customer customer = 2;
  int64 total_cents = 3;
}
"""
ORDER_PROTO_ADDED = ORDER_PROTO_V1.replace(
    "  int64 total_cents = 3;\n", "  int64 total_cents = 3;\n  string note = 4;\n"
)
# total_cents becomes a string: the wire encodings differ (Confluent's FIELD_SCALAR_KIND_CHANGED).
ORDER_PROTO_RETYPED = ORDER_PROTO_V1.replace("int64 total_cents = 3;", "string total_cents = 3;")
# A field without its ";": protoc stops at line 10, column 1 (the "}" after it).
ORDER_PROTO_INVALID = ORDER_PROTO_V1.replace("int64 total_cents = 3;", "int64 total_cents = 3")
ORDER_PROTO_INVALID_AT = (10, 1)

ADDRESS_JSON = """{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "title": "Address",
  "type": "object",
  "properties": {"city": {"type": "string"}}
}
"""

# Refers to address.json (a file beside it in schemas/). Closed, so that a property may be added.
PAYMENT_JSON_V1 = """{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "title": "Payment",
  "type": "object",
  "properties": {
    "id": {"type": "string"},
    "amount": {"type": "number"},
    "billing": {"$ref": "address.json"}
  },
  "required": ["id"],
  "additionalProperties": false
}
"""
PAYMENT_JSON_ADDED = PAYMENT_JSON_V1.replace(
    '"amount": {"type": "number"},', '"amount": {"type": "number"},\n    "note": {"type": "string"},'
)
# amount becomes a string: the new schema refuses the old data. Line 7, column 15 is its schema.
PAYMENT_JSON_RETYPED = PAYMENT_JSON_V1.replace('"amount": {"type": "number"}', '"amount": {"type": "string"}')
PAYMENT_JSON_RETYPED_AT = (7, 15)
# A title that is not a string: line 3, column 12.
PAYMENT_JSON_INVALID = PAYMENT_JSON_V1.replace('"title": "Payment"', '"title": 3')
PAYMENT_JSON_INVALID_AT = (3, 12)
