"""Confluent-compatible schema registry (Avro, Protobuf, JSON Schema) and its compatibility rules."""
