"""What a loader run tells a monitoring system: its metrics in Prometheus' text format (`metrics`,
written or pushed by `sinks`), how fresh each table is (`freshness`) and its log lines for machines
(`logs`). The decisions are pure functions of a run's report; only `sinks` does I/O."""
