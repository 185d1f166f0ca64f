"""The loader's runtime: the Spark lines it supports, the Spark session it builds, the driver JVM's class
path, class archive and scratch directories, calls into the JVM, Spark's errors, and the few Spark
internals it still reaches through Py4J. The run (`loader.job` and its passes) asks this package for a
session and never tunes the JVM itself."""
