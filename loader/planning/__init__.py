"""What a run loads and what it has loaded: the offset plan of every partition, the state directory, the
identity of the Kafka cluster the offsets are of, and the commit log that makes a run exactly once."""
