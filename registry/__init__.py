"""Confluent-compatible Avro schema registry and its compatibility rules."""
