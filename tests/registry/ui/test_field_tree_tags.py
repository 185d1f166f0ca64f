"""The page's field tree: the type's rows, each field with the tags of the version's data contract."""

from __future__ import annotations

import json

from registry.schema_types import schema_type
from registry.ui.field_tree import field_tree


def test_a_contract_s_tags_join_a_field_s_own_and_name_no_type_or_branch_row() -> None:
    avro = schema_type("AVRO")
    card = {"type": "record", "name": "Card", "fields": [{"name": "last4", "type": "string"}]}
    bank = {"type": "record", "name": "Bank", "fields": [{"name": "iban", "type": "string"}]}
    schema = {
        "type": "record",
        "name": "Payment",
        "namespace": "shop",
        "fields": [
            {"name": "email", "type": "string", "confluent:tags": ["PII"]},
            {"name": "method", "type": [card, bank]},
        ],
    }
    parsed = avro.parse(json.dumps(schema))
    metadata = {
        "tags": {"shop.Payment.email": ["GDPR"], "Payment.method": ["PAYMENT"], "Payment.*.last4": ["CARD"]}
        | {"Payment": ["ROOT"]}
    }
    rows = {(row.name, row.path): row.tags for row in field_tree(avro, parsed, metadata)}
    assert rows[("email", "Payment.email")] == ("GDPR", "PII")
    assert rows[("method", "Payment.method")] == ("PAYMENT",)
    assert rows[("last4", "Payment.method.last4")] == ("CARD",)
    branches = [tags for (name, _), tags in rows.items() if name.startswith("(record ")]
    assert branches == [(), ()]  # a union's branch rows are not fields
    assert rows[("Payment", "Payment")] == ()  # the top-level type: not a field
    assert [row.tags for row in field_tree(avro, parsed)][1] == ("PII",)  # no contract: the field's own
