package tableloader;

import java.io.IOException;
import java.nio.file.Files;
import org.apache.spark.sql.SparkSession;

/**
 * The one local Spark of the test JVM (one task at a time, as a small driver runs the loader), started
 * by the first test class that asks for it and stopped by Spark's own shutdown hook.
 */
final class LocalSpark {
  private static SparkSession spark;

  private LocalSpark() {}

  static synchronized SparkSession session() throws IOException {
    if (spark == null) {
      spark = SparkSession.builder()
          .master("local[1]")
          .appName("tableloader-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.sql.shuffle.partitions", "1")
          .config("spark.sql.session.timeZone", "UTC")
          .config("spark.sql.warehouse.dir",
              Files.createTempDirectory("tableloader-warehouse").toUri().toString())
          .getOrCreate();
    }
    return spark;
  }
}
