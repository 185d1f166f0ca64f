package tableloader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The group writer for DataSource V2 tables on a local Spark, with a table format of the test's own (a
 * table that keeps committed rows in memory): two tables' rows written by one job, each table committed
 * or aborted on its own, and a failed task's job aborting every table.
 */
class ManyTablesV2WriterTest {
  private static SparkSession spark;

  @BeforeAll
  static void startSpark() throws Exception {
    spark = LocalSpark.session().newSession();
  }

  /** A table whose commits keep their rows (as text) and whose aborts keep how many messages they had. */
  static final class MemoryTable implements Table, SupportsWrite {
    // Static: the tasks' writers run in this JVM on deserialized copies, the commits on the driver.
    static final Map<String, List<String>> COMMITTED = Collections.synchronizedMap(new java.util.HashMap<>());
    static final Map<String, Integer> ABORTED = Collections.synchronizedMap(new java.util.HashMap<>());
    static final Map<String, String> OPTIONS = Collections.synchronizedMap(new java.util.HashMap<>());
    final String name;
    final StructType schema;

    MemoryTable(String name, StructType schema) {
      this.name = name;
      this.schema = schema;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
      return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
      return EnumSet.of(TableCapability.BATCH_WRITE);
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
      OPTIONS.put(name, info.options().getOrDefault("note", ""));
      StructType written = info.schema();
      String table = name;
      return new WriteBuilder() {
        @Override
        public Write build() {
          return new Write() {
        @Override
        public BatchWrite toBatch() {
          return new BatchWrite() {
            @Override
            public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo physical) {
              return (DataWriterFactory) (partition, task) -> new RowsWriter(written);
            }

            @Override
            public void commit(WriterCommitMessage[] messages) {
              List<String> rows = new ArrayList<>();
              for (WriterCommitMessage message : messages) {
                rows.addAll(((Rows) message).rows);
              }
              COMMITTED.put(table, rows);
            }

            @Override
            public void abort(WriterCommitMessage[] messages) {
              ABORTED.put(table, messages.length);
            }
          };
        }
      };
        }
      };
    }
  }

  record Rows(List<String> rows) implements WriterCommitMessage {}

  /** Keeps each row as text; refuses a row whose first field is "boom". */
  static final class RowsWriter implements DataWriter<InternalRow> {
    private final StructType schema;
    private final List<String> rows = new ArrayList<>();

    RowsWriter(StructType schema) {
      this.schema = schema;
    }

    @Override
    public void write(InternalRow row) {
      Row values = (Row) org.apache.spark.sql.catalyst.CatalystTypeConverters
          .createToScalaConverter(schema).apply(row);
      if ("boom".equals(String.valueOf(values.get(0)))) {
        throw new IllegalStateException("refused row " + values);
      }
      rows.add(values.toString());
    }

    @Override
    public WriterCommitMessage commit() {
      return new Rows(new ArrayList<>(rows));
    }

    @Override
    public void abort() {}

    @Override
    public void close() {}
  }

  private static Dataset<Row> rows(String values) {
    return spark.sql("SELECT * FROM VALUES " + values + " AS t(member, m0, m1)").coalesce(1);
  }

  private static String[] schemas(Dataset<Row> rows) {
    return new String[] {
      rows.schema().apply("m0").dataType().json(), rows.schema().apply("m1").dataType().json()
    };
  }

  private static Table[] tables(Dataset<Row> rows, String prefix) {
    return new Table[] {
      new MemoryTable(prefix + "0", (StructType) rows.schema().apply("m0").dataType()),
      new MemoryTable(prefix + "1", (StructType) rows.schema().apply("m1").dataType())
    };
  }

  @Test
  void eachTableGetsItsOwnRowsOnceCommittedAndNothingOnceAborted() throws Exception {
    Dataset<Row> rows = rows(
        "(0, named_struct('id', 1L, 'url', '/a'), CAST(NULL AS STRUCT<n: INT>)),"
        + " (1, NULL, named_struct('n', 7)),"
        + " (NULL, NULL, NULL),"
        + " (0, named_struct('id', 2L, 'url', '/b'), NULL),"
        + " (1, NULL, named_struct('n', 8))");
    List<Map<String, String>> options = List.of(Map.of("note", "first"), Map.of("note", "second"));

    ManyTablesV2Writer.Writes writes =
        ManyTablesV2Writer.write(spark, rows, tables(rows, "a"), schemas(rows), options);

    assertEquals(2, writes.rows(0));
    assertEquals(2, writes.rows(1));
    assertEquals("first", MemoryTable.OPTIONS.get("a0"));
    assertEquals("second", MemoryTable.OPTIONS.get("a1"));
    assertTrue(!MemoryTable.COMMITTED.containsKey("a0"), "nothing is committed before the driver says so");
    writes.commit(0);
    writes.abort(1);
    // Rows of one table that come apart (another's between) are all written, by a writer per stretch.
    assertEquals(List.of("[1,/a]", "[2,/b]"), MemoryTable.COMMITTED.get("a0"));
    assertTrue(!MemoryTable.COMMITTED.containsKey("a1"));
    assertEquals(2, MemoryTable.ABORTED.get("a1"));
  }

  @Test
  void aFailedTaskFailsTheJobAndAbortsEveryTable() {
    Dataset<Row> rows = rows(
        "(0, named_struct('id', 'fine'), CAST(NULL AS STRUCT<n: STRING>)),"
        + " (1, NULL, named_struct('n', 'boom'))");
    List<Map<String, String>> options = List.of(Map.of(), Map.of());

    Exception failure = assertThrows(Exception.class,
        () -> ManyTablesV2Writer.write(spark, rows, tables(rows, "b"), schemas(rows), options));

    assertTrue(String.valueOf(failure.getMessage()).contains("refused row"), failure.toString());
    assertEquals(0, MemoryTable.ABORTED.get("b0"));
    assertEquals(0, MemoryTable.ABORTED.get("b1"));
    assertTrue(!MemoryTable.COMMITTED.containsKey("b0") && !MemoryTable.COMMITTED.containsKey("b1"));
  }
}
