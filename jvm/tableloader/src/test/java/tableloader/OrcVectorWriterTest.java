package tableloader;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.when;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The vector writer, through the group writer as the loader uses it: for the types it takes, the file
 * Spark's own ORC writer writes from the same rows, byte for byte, and the rows read back by Spark.
 */
class OrcVectorWriterTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static SparkSession spark;

  // `id`, then a column of each type the vector writer takes, values from `id`: negative and extreme
  // numbers, non-ASCII and empty strings, dates and timestamps on both sides of the Gregorian calendar's
  // start (ORC files hold the hybrid Julian calendar), a decimal past a long, nested structs, arrays and
  // maps with NULLs. Rows 10 and 11 hold 20,000 array elements each: more children than ORC's writer
  // lets a batch hold (32,768), so a batch is flushed early, where Spark's writer flushes it; 1,100 rows
  // are more than a batch (1,024).
  private static final String MAIN_TYPES = "SELECT"
      + " id,"
      + " id % 2 = 0 AS flag,"
      + " CAST(id % 256 - 128 AS TINYINT) AS tiny,"
      + " CAST(id * 31 % 65536 - 32768 AS SMALLINT) AS small,"
      + " CAST(id * 104729 - 2147483648 AS INT) AS whole,"
      + " id * 1000000007 - 9223372036854775807 AS big,"
      + " CAST(id / 7 AS FLOAT) AS single,"
      + " id / 3.0D - 100 AS double,"
      + " concat('ü', repeat('z', CAST(id % 4 AS INT)), CAST(id AS STRING)) AS text,"
      + " CASE WHEN id % 9 = 0 THEN '' ELSE 'plain' END AS maybe_empty,"
      + " CAST(concat('bytes', CAST(id AS STRING)) AS BINARY) AS bytes,"
      + " CAST(id / 7 - 150 AS DECIMAL(9, 3)) AS money,"
      + " CAST(concat('123456789012345678901234567', CAST(id % 10 AS STRING), '.1234567891')"
      + "   AS DECIMAL(38, 10)) AS huge,"
      + " date_add(DATE'0001-01-01', CAST(id * 673 AS INT)) AS day,"
      + " timestamp_micros(id * 63072000000000 + id - 62135596800000000) AS moment,"
      + " named_struct('id', id, 'inner', CASE WHEN id % 5 = 1 THEN NULL"
      + "   ELSE named_struct('name', CAST(id AS STRING)) END) AS nested,"
      + " CASE WHEN id BETWEEN 10 AND 11 THEN sequence(1L, 20000L)"
      + "   WHEN id % 4 = 0 THEN array() ELSE array(id, NULL) END AS numbers,"
      + " array(named_struct('k', 'a', 'v', CAST(NULL AS INT)), NULL) AS pairs,"
      + " map('zeta', CAST(id AS STRING), 'alpha', CAST(NULL AS STRING), 'Émile', 'x') AS tags"
      + " FROM range(1100)";

  @TempDir Path tmp;

  @BeforeAll
  static void startSpark() throws Exception {
    spark = LocalSpark.session().newSession();
    spark.conf().set("spark.sql.orc.compression.codec", "snappy");
  }

  /** Every column but `id` NULL where `id % 7 = 3`. */
  private static Dataset<Row> withNulls(Dataset<Row> rows) {
    String[] names = rows.columns();
    Column[] columns = new Column[names.length];
    columns[0] = col(names[0]);
    for (int c = 1; c < names.length; c++) {
      columns[c] = when(col("id").mod(7).equalTo(3), lit(null)).otherwise(col(names[c])).alias(names[c]);
    }
    return rows.select(columns);
  }

  /** Writes `rows` as the one member of a group, in one task, with or without the vector writer. */
  private String writeWith(Dataset<Row> rows, String directory, boolean vectorWriter) throws Exception {
    Column[] all = new Column[rows.columns().length];
    for (int c = 0; c < all.length; c++) {
      all[c] = col(rows.columns()[c]);
    }
    Dataset<Row> group = rows.coalesce(1).select(
        lit(0).alias("member"), lit("2026-01-02").alias("dt"), struct(all).alias("m0"));
    spark.conf().set(ManyTablesOrcWriter.VECTOR_WRITER, Boolean.toString(vectorWriter));
    try {
      String[] directories = {tmp.resolve(directory).toString()};
      String json = ManyTablesOrcWriter.write(spark, group,
          new String[] {group.schema().apply("m0").dataType().json()}, directories, new String[] {"dt"});
      JsonNode files = JSON.readTree(json);
      assertEquals(1, files.size(), json);
      return files.get(0).get("path").asText();
    } finally {
      spark.conf().unset(ManyTablesOrcWriter.VECTOR_WRITER);
    }
  }

  @Test
  void writesSparksFileByteForByteForTheMainTypesAndTheRowsReadBack() throws Exception {
    Dataset<Row> rows = withNulls(spark.sql(MAIN_TYPES));
    assertTrue(OrcVectorWriter.writes(rows.schema()));

    String sparks = writeWith(rows, "spark", false);
    String vectors = writeWith(rows, "vectors", true);

    assertArrayEquals(Files.readAllBytes(Path.of(sparks)), Files.readAllBytes(Path.of(vectors)));
    // One file of one task: its rows in the order they were written, that of `id`.
    List<Row> written = spark.read().orc(vectors).collectAsList();
    List<Row> expected = rows.collectAsList();
    assertEquals(1100, written.size());
    for (int r = 0; r < expected.size(); r++) {
      assertEquals(expected.get(r), written.get(r), "row " + r);
    }
    // Spot checks that do not rest on Row's equality.
    Row row = written.get(11);
    assertEquals(20000, row.getList(row.fieldIndex("numbers")).size());
    assertEquals("0001-01-01", written.get(0).getDate(written.get(0).fieldIndex("day")).toString());
    assertTrue(written.get(3).isNullAt(written.get(3).fieldIndex("text")));
  }

  @Test
  void aTypeItDoesNotTakeIsWrittenBySparksWriter() throws Exception {
    Dataset<Row> rows = spark.sql("SELECT 1L AS id, map(1, 'a') AS by_number");
    StructType type = rows.schema();
    assertFalse(OrcVectorWriter.writes(type), "a map whose keys are not strings");

    String written = writeWith(rows, "table", true);
    String sparks = writeWith(rows, "spark", false);

    assertArrayEquals(Files.readAllBytes(Path.of(sparks)), Files.readAllBytes(Path.of(written)));
    assertEquals(rows.collectAsList(), spark.read().orc(written).collectAsList());
  }

  @Test
  void aMapsEntriesGoInKeyByteOrderOnePerKeyTheValuePutLast() {
    // Spark's writer builds an OrcMap (a TreeMap): keys in byte order, a key put twice keeps its last.
    assertArrayEquals(new int[] {1, 2}, entries("m", "k", "m"));
    assertArrayEquals(new int[] {2, 1, 0}, entries("é", "e", "E"));
    assertArrayEquals(new int[] {3, 4, 2, 1}, entries("b", "c", "b", "", "a"));
    assertArrayEquals(new int[] {}, entries());
  }

  private static int[] entries(String... keys) {
    List<Object> values = new ArrayList<>();
    for (String key : keys) {
      values.add(UTF8String.fromString(key));
    }
    return OrcVectorWriter.entriesInKeyOrder(new GenericArrayData(values.toArray()), keys.length);
  }
}
