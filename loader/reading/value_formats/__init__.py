"""The value formats a topic's records are decoded from: Confluent-framed Avro (`avro_read`) and JSON
Schema (`json_schema_tables` for the table's columns, `json_read` for the records) and Protobuf
(`protobuf_tables` for the columns, `protobuf_read` for the records, which the loader's JVM module
decodes). `lookup` says which module makes a subject's table. A subject's type
(`SubjectSchemas.schema_type`) chooses one; the run, planning and table formats see only the table's
schema and the decoded columns."""
