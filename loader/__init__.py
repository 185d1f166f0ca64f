"""The generic Kafka-to-Hive/Spark table loader."""
