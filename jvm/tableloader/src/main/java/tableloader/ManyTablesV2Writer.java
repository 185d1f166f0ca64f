package tableloader;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SQLExecution$;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Option;

/**
 * Writes the rows of one query over many small topics into many tables of a DataSource V2 format
 * (Iceberg's), in one Spark job, through each table's own writers; the driver then commits each table's
 * write on its own (one Iceberg snapshot per table), or aborts it. The ORC tables' counterpart is {@link
 * ManyTablesOrcWriter}; this one needs nothing of the format but Spark's connector API: each table's
 * {@code newWriteBuilder} gives the {@link BatchWrite} whose writer factory the tasks use and whose
 * {@code commit} the driver calls, as Spark's own append would.
 *
 * <p>An input row is (table index, one struct column per table), the struct at the row's index in the
 * table's write schema; a row whose index is NULL is not one to write. A task hands each table's rows to
 * a writer of that table, one table at a time: the rows must come sorted by table, and by the table's
 * partition within it unless the table's options ask its writer to keep a file open per partition
 * (Iceberg's {@code fanout-enabled}). Spark's own append sorts them so; here the query does.
 *
 * <p>A table's write options are those of {@code df.writeTo(table).option(...)}: Iceberg takes the
 * snapshot's summary properties from them ({@code snapshot-property.<key>}).
 */
public class ManyTablesV2Writer implements FlatMapFunction<Iterator<InternalRow>, ManyTablesV2Writer.Written> {
  private final DataWriterFactory[] factories;
  private final int[] widths;

  private ManyTablesV2Writer(DataWriterFactory[] factories, int[] widths) {
    this.factories = factories;
    this.widths = widths;
  }

  /** What one task wrote of one table: the writer's commit message and the rows it wrote. */
  public static final class Written implements Serializable {
    private static final long serialVersionUID = 1L;
    final int table;
    final WriterCommitMessage message;
    final long rows;

    Written(int table, WriterCommitMessage message, long rows) {
      this.table = table;
      this.message = message;
      this.rows = rows;
    }
  }

  /**
   * On the driver: writes the rows of {@code rows} into {@code tables}, given each table's write schema
   * (as JSON) and write options; returns the writes, each table's still to commit or abort.
   */
  public static Writes write(SparkSession spark, Dataset<Row> rows, Table[] tables, String[] schemas,
      List<Map<String, String>> options) throws Exception {
    int n = tables.length;
    QueryExecution query = rows.queryExecution();
    RDD<InternalRow> rdd = query.toRdd();
    int partitions = rdd.getNumPartitions();
    BatchWrite[] batches = new BatchWrite[n];
    DataWriterFactory[] factories = new DataWriterFactory[n];
    int[] widths = new int[n];
    String queryId = UUID.randomUUID().toString();
    for (int t = 0; t < n; t++) {
      StructType schema = (StructType) DataType.fromJson(schemas[t]);
      widths[t] = schema.size();
      LogicalWriteInfo info = new WriteInfo(queryId, schema, new CaseInsensitiveStringMap(options.get(t)));
      if (!(tables[t] instanceof SupportsWrite)) {
        throw new IllegalArgumentException("table " + tables[t].name() + " does not take writes");
      }
      batches[t] = ((SupportsWrite) tables[t]).newWriteBuilder(info).build().toBatch();
      factories[t] = batches[t].createBatchWriterFactory(new PhysicalInfo(partitions));
    }
    ManyTablesV2Writer writer = new ManyTablesV2Writer(factories, widths);
    List<Written> written;
    try {
      // One SQL execution of the query, so that its observations (what was read) complete with it.
      written = SQLExecution$.MODULE$.withNewExecutionId(query, Option.apply("write many tables"),
          () -> rdd.toJavaRDD().mapPartitions(writer).collect());
    } catch (Exception e) { // Spark's SparkException is a checked one, thrown unchecked through Scala
      for (BatchWrite batch : batches) {
        try {
          batch.abort(new WriterCommitMessage[0]);
        } catch (Exception suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
    return new Writes(batches, written);
  }

  /** Each table's write of one job, committed or aborted by the driver one table at a time. */
  public static final class Writes {
    private final BatchWrite[] batches;
    private final List<List<WriterCommitMessage>> messages = new ArrayList<>();
    private final long[] rows;

    Writes(BatchWrite[] batches, List<Written> written) {
      this.batches = batches;
      this.rows = new long[batches.length];
      for (int t = 0; t < batches.length; t++) {
        messages.add(new ArrayList<>());
      }
      for (Written w : written) {
        messages.get(w.table).add(w.message);
        rows[w.table] += w.rows;
      }
    }

    /** The rows written of table {@code t}. */
    public long rows(int t) {
      return rows[t];
    }

    /** Commits table {@code t}'s write (Iceberg: one snapshot, even of no rows). */
    public void commit(int t) {
      batches[t].commit(messages.get(t).toArray(new WriterCommitMessage[0]));
    }

    /** Throws table {@code t}'s written files away (what its writers committed, not the table). */
    public void abort(int t) {
      batches[t].abort(messages.get(t).toArray(new WriterCommitMessage[0]));
    }
  }

  @Override
  public Iterator<Written> call(Iterator<InternalRow> rows) throws Exception {
    TaskContext task = TaskContext.get();
    List<Written> out = new ArrayList<>();
    int current = -1;
    DataWriter<InternalRow> writer = null;
    long count = 0;
    try {
      while (rows.hasNext()) {
        InternalRow row = rows.next();
        if (row.isNullAt(0)) {
          continue;
        }
        int t = row.getInt(0);
        if (t != current) {
          if (writer != null) {
            out.add(new Written(current, writer.commit(), count));
            DataWriter<InternalRow> done = writer;
            writer = null;
            done.close();
          }
          writer = factories[t].createWriter(task.partitionId(), task.taskAttemptId());
          current = t;
          count = 0;
        }
        writer.write(row.getStruct(1 + t, widths[t]));
        count++;
      }
      if (writer != null) {
        out.add(new Written(current, writer.commit(), count));
        DataWriter<InternalRow> done = writer;
        writer = null;
        done.close();
      }
    } catch (Throwable failure) {
      if (writer != null) {
        try {
          writer.abort();
          writer.close();
        } catch (Throwable suppressed) {
          failure.addSuppressed(suppressed);
        }
      }
      throw failure;
    }
    return out.iterator();
  }

  /** What Spark's own write tells a table's write builder. */
  private static final class WriteInfo implements LogicalWriteInfo {
    private final String queryId;
    private final StructType schema;
    private final CaseInsensitiveStringMap options;

    WriteInfo(String queryId, StructType schema, CaseInsensitiveStringMap options) {
      this.queryId = queryId;
      this.schema = schema;
      this.options = options;
    }

    @Override
    public CaseInsensitiveStringMap options() {
      return options;
    }

    @Override
    public String queryId() {
      return queryId;
    }

    @Override
    public StructType schema() {
      return schema;
    }

    // An append carries no row ids and no metadata columns (the methods of row-level writes, which
    // Spark's own interface answers with an exception; not annotated, as Spark 3.5's may lack them).
    public Optional<StructType> rowIdSchema() {
      return Optional.empty();
    }

    public Optional<StructType> metadataSchema() {
      return Optional.empty();
    }
  }

  private static final class PhysicalInfo implements PhysicalWriteInfo {
    private final int partitions;

    PhysicalInfo(int partitions) {
      this.partitions = partitions;
    }

    @Override
    public int numPartitions() {
      return partitions;
    }
  }
}
