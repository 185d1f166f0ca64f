"""Reading Kafka and the registry: metadata and access to secured clusters, a topic's ranges as a Spark
source, and decoding each record with the schema it was written with onto the latest one."""
