"""The value formats a topic's records are decoded from: Confluent-framed Avro (`avro_read`) and JSON
Schema (`json_schema_tables` for the table's columns, `json_read` for the records); of Protobuf, the
table's columns so far (`protobuf_tables`). A subject's type
(`SubjectSchemas.schema_type`) chooses one; the run, planning and table formats see only the table's
schema and the decoded columns."""
