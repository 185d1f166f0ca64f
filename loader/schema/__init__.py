"""What a topic's table looks like, whatever its format: its name, its columns from the latest schema, how
they evolve, the defaults old rows read, and its time partitions. No I/O: Spark types and column
expressions only."""
