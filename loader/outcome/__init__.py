"""How a run ends and says so: the run's report and exit statuses (`report`); an exception's chain of
causes (`chain`) and the dependency a failure is of (`cause`); the one line a failed run ends with
(`message`) and the traces kept for `--debug` (`trace`); the signals that ask a run to stop (`signals`);
and the points where the tests kill a run (`fault_injection`). Nothing here talks to Spark, Kafka or a
catalog: the run's steps (`loader.run`, `loader.job`) hand these modules what happened."""
