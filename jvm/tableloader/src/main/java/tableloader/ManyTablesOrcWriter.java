package tableloader;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.catalog.ExternalCatalogUtils;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.execution.SQLExecution$;
import org.apache.spark.sql.execution.datasources.OutputWriter;
import org.apache.spark.sql.execution.datasources.OutputWriterFactory;
import org.apache.spark.sql.execution.datasources.orc.OrcFileFormat;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.SerializableConfiguration;
import scala.Option;

/**
 * Writes the rows of one query over many small topics into many tables' ORC files, so that the topics
 * cost one Spark job instead of one each (see the loader's docs, "What a busy topic costs").
 *
 * <p>An input row is (table index, partition values..., one struct column per table): the struct at the
 * row's index is written, straight into ORC's column vectors ({@link OrcVectorWriter}; Spark's own ORC
 * OutputWriter, as {@code df.write.orc} writes, for a type it does not know), into
 * {@code <directory of the table>/<partition>=<value>/.../part-...}; a row whose index is NULL is not
 * one to write. {@link #write} returns (table index, file, rows) for every file a task wrote: the driver
 * stages those files and no others, so a failed task attempt's files are never moved into a table.
 *
 * <p>The tasks take the query's own rows (Spark's InternalRow), not {@code Row} objects: a Dataset's
 * {@code mapPartitions} would convert each row to a {@code Row} and back, with code generated in every
 * task for a row type that holds every member table's columns (measured in the benchmarks' README,
 * "A group's rows written as the query gives them"). The job still runs as a SQL execution of the query,
 * so the query's observations (what was read) complete with it, as they do with a Dataset action.
 *
 * <p>The tables share one Hadoop configuration, shipped once, plus the few settings each table's {@code
 * prepareWrite} made its own (today the ORC codec and output format): a configuration serializes to
 * about 115 KB, and one per table was serialized twice on the driver and read back in every task.
 *
 * <p>A table may also be given the buffer size of its ORC writer (ORC's {@code orc.compress.size}, the
 * size of a compression chunk and of each column stream's buffers): ORC sizes those for a 64 MB stripe,
 * so a file of a few hundred rows allocates and zeroes megabytes it never fills (measured in the
 * benchmarks' README, "ORC buffers the size of a small topic's file"). A size the configuration already
 * holds (the cluster's or the user's) is kept.
 *
 * <p>A task may be held to a number of open files: a busy topic's rows come in the order Kafka holds
 * them, mostly in time, so a task writes one or two time partitions at a time, and Spark's own writer
 * sorts every row of the task by partition first (a seventh of a big topic's task time). Past the limit
 * the file the task wrote to least recently is closed, and a later row of its partition starts another
 * file ({@code -c001}, ...): memory stays bounded however many hours a backlog spans, at the price of a
 * few more files where rows come out of time order.
 */
public class ManyTablesOrcWriter implements FlatMapFunction<Iterator<InternalRow>, String> {
  private static final ObjectMapper JSON = new ObjectMapper();
  // ORC's setting of its writer's buffer size, and the older name ORC still reads it under.
  static final String ORC_BUFFER_SIZE = "orc.compress.size";
  static final String HIVE_ORC_BUFFER_SIZE = "hive.exec.orc.default.buffer.size";
  // The Spark setting that turns off OrcVectorWriter (true by default): "false" has every table written
  // by Spark's own ORC OutputWriter.
  static final String VECTOR_WRITER = "spark.tableloader.orc.vectorWriter";

  private final StructType[] types;
  private final String[] directories;
  private final String[] partitionNames;
  private final OutputWriterFactory[] factories;
  private final SerializableConfiguration shared;
  // Per table: the settings its prepareWrite set or changed (a null value: one it unset).
  private final ArrayList<HashMap<String, String>> ownSettings;
  // The most files a task keeps open at once; 0: no limit.
  private final int maxOpenFiles;
  // Per table: whether its rows go straight into ORC's vectors (OrcVectorWriter), and the batch size
  // Spark's ORC writer would use.
  private final boolean[] vectorWritten;
  private final int orcBatchSize;

  private ManyTablesOrcWriter(StructType[] types, String[] directories, String[] partitionNames,
      OutputWriterFactory[] factories, SerializableConfiguration shared,
      ArrayList<HashMap<String, String>> ownSettings, int maxOpenFiles, boolean[] vectorWritten,
      int orcBatchSize) {
    this.types = types;
    this.directories = directories;
    this.partitionNames = partitionNames;
    this.factories = factories;
    this.shared = shared;
    this.ownSettings = ownSettings;
    this.maxOpenFiles = maxOpenFiles;
    this.vectorWritten = vectorWritten;
    this.orcBatchSize = orcBatchSize;
  }

  /**
   * On the driver: writes the rows of {@code rows}, given each table's row type (as JSON) and staging
   * directory and the partition columns; returns the files written as a JSON array of {@code {"member",
   * "path", "rows"}} objects.
   */
  public static String write(SparkSession spark, Dataset<Row> rows, String[] schemas,
      String[] directories, String[] partitionNames) throws Exception {
    return write(spark, rows, schemas, directories, partitionNames, new int[schemas.length]);
  }

  /**
   * As above, each table's files written with ORC buffers of {@code bufferSizes[t]} bytes (0: ORC's
   * own size).
   */
  public static String write(SparkSession spark, Dataset<Row> rows, String[] schemas,
      String[] directories, String[] partitionNames, int[] bufferSizes) throws Exception {
    return write(spark, rows, schemas, directories, partitionNames, bufferSizes, 0);
  }

  /** As above, each task keeping at most {@code maxOpenFiles} files open (0: no limit). */
  public static String write(SparkSession spark, Dataset<Row> rows, String[] schemas,
      String[] directories, String[] partitionNames, int[] bufferSizes, int maxOpenFiles)
      throws Exception {
    ManyTablesOrcWriter writer =
        create(spark, schemas, directories, partitionNames, bufferSizes, maxOpenFiles);
    QueryExecution query = rows.queryExecution();
    List<String> files = SQLExecution$.MODULE$.withNewExecutionId(query,
        Option.apply("write many tables"), () -> query.toRdd().toJavaRDD().mapPartitions(writer).collect());
    return "[" + String.join(",", files) + "]";
  }

  static ManyTablesOrcWriter create(SparkSession spark, String[] schemas, String[] directories,
      String[] partitionNames, int[] bufferSizes, int maxOpenFiles) throws Exception {
    int n = schemas.length;
    StructType[] types = new StructType[n];
    OutputWriterFactory[] factories = new OutputWriterFactory[n];
    Configuration shared = spark.sessionState().newHadoopConf();
    ArrayList<HashMap<String, String>> ownSettings = new ArrayList<>(n);
    boolean[] vectorWritten = new boolean[n];
    boolean vectorWriter = Boolean.parseBoolean(spark.conf().get(VECTOR_WRITER, "true"));
    for (int t = 0; t < n; t++) {
      types[t] = (StructType) DataType.fromJson(schemas[t]);
      Job job = Job.getInstance(shared); // a copy: prepareWrite changes the job's, not the shared one
      factories[t] = new OrcFileFormat().prepareWrite(
          spark, job, scala.collection.immutable.Map$.MODULE$.<String, String>empty(), types[t]);
      HashMap<String, String> own = difference(shared, job.getConfiguration());
      if (bufferSizes[t] > 0 && job.getConfiguration().get(ORC_BUFFER_SIZE) == null
          && job.getConfiguration().get(HIVE_ORC_BUFFER_SIZE) == null) {
        own.put(ORC_BUFFER_SIZE, Integer.toString(bufferSizes[t]));
      }
      ownSettings.add(own);
      vectorWritten[t] = vectorWriter && OrcVectorWriter.writes(types[t]);
    }
    return new ManyTablesOrcWriter(types, directories, partitionNames, factories,
        new SerializableConfiguration(shared), ownSettings, maxOpenFiles, vectorWritten,
        spark.sessionState().conf().orcVectorizedWriterBatchSize());
  }

  /** The settings of {@code changed} that are not those of {@code base}; null for one it has not. */
  static HashMap<String, String> difference(Configuration base, Configuration changed) {
    HashMap<String, String> settings = new HashMap<>();
    for (Map.Entry<String, String> setting : changed) {
      if (!setting.getValue().equals(base.getRaw(setting.getKey()))) {
        settings.put(setting.getKey(), setting.getValue());
      }
    }
    for (Map.Entry<String, String> setting : base) {
      if (changed.getRaw(setting.getKey()) == null) {
        settings.put(setting.getKey(), null);
      }
    }
    return settings;
  }

  /** Table {@code t}'s configuration in a task: the shared one with the table's own settings. */
  private Configuration tableConf(int t) {
    Configuration conf = new Configuration(shared.value());
    for (Map.Entry<String, String> setting : ownSettings.get(t).entrySet()) {
      if (setting.getValue() == null) {
        conf.unset(setting.getKey());
      } else {
        conf.set(setting.getKey(), setting.getValue());
      }
    }
    return conf;
  }

  @Override
  public Iterator<String> call(Iterator<InternalRow> rows) throws Exception {
    TaskContext task = TaskContext.get();
    String name = String.format("part-%05d-%s", task.partitionId(), UUID.randomUUID());
    int n = types.length;
    int parts = partitionNames.length;
    TaskAttemptContextImpl[] contexts = new TaskAttemptContextImpl[n];
    String[] extensions = new String[n];
    // The open files by partition directory, the one written to least recently first.
    LinkedHashMap<String, OpenFile> files = new LinkedHashMap<>(16, 0.75f, true);
    // Files closed before the end (past maxOpenFiles), and how many files each directory has had.
    List<OpenFile> closed = new ArrayList<>();
    Map<String, Integer> filesMade = new HashMap<>();
    // The file of the row before: rows come in runs of one table and partition, so most rows find
    // their file without building its path.
    int lastTable = -1;
    UTF8String[] lastValues = new UTF8String[parts];
    OpenFile file = null;
    Throwable failure = null;
    try {
      while (rows.hasNext()) {
        InternalRow row = rows.next();
        if (row.isNullAt(0)) {
          continue;
        }
        int t = row.getInt(0);
        if (t != lastTable || !samePartition(row, lastValues)) {
          if (contexts[t] == null) {
            contexts[t] = new TaskAttemptContextImpl(tableConf(t), new TaskAttemptID(
                "tableloader", task.stageId(), TaskType.MAP, task.partitionId(), task.attemptNumber()));
            extensions[t] = factories[t].getFileExtension(contexts[t]);
          }
          StringBuilder dir = new StringBuilder(directories[t]);
          for (int p = 0; p < parts; p++) {
            UTF8String value = row.isNullAt(1 + p) ? null : row.getUTF8String(1 + p);
            lastValues[p] = value == null ? null : value.clone();
            dir.append('/').append(ExternalCatalogUtils.getPartitionPathString(
                partitionNames[p], value == null ? null : value.toString()));
          }
          String directory = dir.toString();
          file = files.get(directory);
          if (file == null) {
            if (maxOpenFiles > 0 && files.size() >= maxOpenFiles) {
              Iterator<OpenFile> eldest = files.values().iterator();
              OpenFile done = eldest.next();
              eldest.remove();
              closed.add(done); // before its close, so that a failed close's file is deleted too
              done.close();
            }
            int made = filesMade.merge(directory, 1, Integer::sum) - 1;
            String path = String.format("%s/%s-c%03d%s", directory, name, made, extensions[t]);
            file = new OpenFile(t, path, vectorWritten[t]
                ? new OrcVectorWriter(path, types[t], contexts[t].getConfiguration(), orcBatchSize)
                : factories[t].newInstance(path, types[t], contexts[t]));
            files.put(directory, file);
          }
          lastTable = t;
        }
        file.writer.write(row.getStruct(1 + parts + t, types[t].size()));
        file.rows++;
      }
    } catch (Throwable t) {
      failure = t;
    }
    // Every file is closed, even after one fails to close (an HDFS quota refuses its block): a file left
    // open stays open for write on the namenode, with its lease, for as long as the executor lives.
    for (OpenFile open : files.values()) {
      try {
        open.close();
      } catch (Throwable t) {
        if (failure == null) {
          failure = t;
        } else {
          failure.addSuppressed(t);
        }
      }
    }
    closed.addAll(files.values());
    if (failure != null) {
      // Best effort: a failed attempt's files are never staged anyway (they are not returned).
      for (OpenFile open : closed) {
        try {
          Path path = new Path(open.path);
          path.getFileSystem(contexts[open.table].getConfiguration()).delete(path, false);
        } catch (Exception ignored) {
          // the run's staging directory goes with the run
        }
      }
      if (failure instanceof Error) {
        throw (Error) failure;
      }
      if (failure instanceof Exception) {
        throw (Exception) failure;
      }
      throw new IllegalStateException(failure);
    }
    List<String> out = new ArrayList<>();
    for (OpenFile open : closed) {
      Map<String, Object> described = new LinkedHashMap<>();
      described.put("member", open.table);
      described.put("path", open.path);
      described.put("rows", open.rows);
      out.add(JSON.writeValueAsString(described));
    }
    return out.iterator();
  }

  /**
   * A file a task has open: its table (the index into the group's members), path and rows so far. Once
   * closed it keeps only those, not its writer: a task over days of hours closes thousands of files,
   * and each writer holds its row batch and ORC's buffers.
   */
  private static final class OpenFile {
    final int table;
    final String path;
    OutputWriter writer;
    long rows;

    OpenFile(int table, String path, OutputWriter writer) {
      this.table = table;
      this.path = path;
      this.writer = writer;
    }

    void close() throws Exception {
      OutputWriter open = writer;
      writer = null;
      open.close();
    }
  }

  private static boolean samePartition(InternalRow row, UTF8String[] values) {
    for (int p = 0; p < values.length; p++) {
      boolean isNull = row.isNullAt(1 + p);
      if (isNull != (values[p] == null) || (!isNull && !values[p].equals(row.getUTF8String(1 + p)))) {
        return false;
      }
    }
    return true;
  }
}
