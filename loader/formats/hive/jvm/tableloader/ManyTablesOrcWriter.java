package tableloader;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.catalog.ExternalCatalogUtils;
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder;
import org.apache.spark.sql.execution.datasources.OutputWriter;
import org.apache.spark.sql.execution.datasources.OutputWriterFactory;
import org.apache.spark.sql.execution.datasources.orc.OrcFileFormat;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Writes the rows of one query over many small topics into many tables' ORC files, so that the topics
 * cost one Spark job instead of one each (see the loader's docs, "What a busy topic costs").
 *
 * <p>An input row is (table index, partition values..., one struct column per table): the struct at the
 * row's index is written, with Spark's own ORC OutputWriter (as {@code df.write.orc} writes), into
 * {@code <directory of the table>/<partition>=<value>/.../part-...}; a row whose index is NULL is not
 * one to write. Returns (table index, file, rows) for every file a task wrote: the driver stages those
 * files and no others, so a failed task attempt's files are never moved into a table.
 */
public class ManyTablesOrcWriter implements MapPartitionsFunction<Row, Row> {
  private final StructType[] types;
  private final String[] directories;
  private final String[] partitionNames;
  private final OutputWriterFactory[] factories;
  private final SerializableConfiguration[] confs;

  private ManyTablesOrcWriter(StructType[] types, String[] directories, String[] partitionNames,
      OutputWriterFactory[] factories, SerializableConfiguration[] confs) {
    this.types = types;
    this.directories = directories;
    this.partitionNames = partitionNames;
    this.factories = factories;
    this.confs = confs;
  }

  /** On the driver: each table's row type (as JSON) and staging directory, and the partition columns. */
  public static ManyTablesOrcWriter create(SparkSession spark, String[] schemas, String[] directories,
      String[] partitionNames) throws Exception {
    int n = schemas.length;
    StructType[] types = new StructType[n];
    OutputWriterFactory[] factories = new OutputWriterFactory[n];
    SerializableConfiguration[] confs = new SerializableConfiguration[n];
    for (int t = 0; t < n; t++) {
      types[t] = (StructType) DataType.fromJson(schemas[t]);
      Job job = Job.getInstance(spark.sessionState().newHadoopConf());
      factories[t] = new OrcFileFormat().prepareWrite(
          spark, job, scala.collection.immutable.Map$.MODULE$.<String, String>empty(), types[t]);
      confs[t] = new SerializableConfiguration(job.getConfiguration());
    }
    return new ManyTablesOrcWriter(types, directories, partitionNames, factories, confs);
  }

  @Override
  public Iterator<Row> call(Iterator<Row> rows) throws Exception {
    TaskContext task = TaskContext.get();
    String name = String.format("part-%05d-%s-c000", task.partitionId(), UUID.randomUUID());
    int n = types.length;
    int parts = partitionNames.length;
    @SuppressWarnings("unchecked")
    ExpressionEncoder.Serializer<Row>[] serializers = new ExpressionEncoder.Serializer[n];
    TaskAttemptContextImpl[] contexts = new TaskAttemptContextImpl[n];
    Map<String, OutputWriter> writers = new LinkedHashMap<>();
    Map<String, long[]> counts = new LinkedHashMap<>();
    Map<String, Integer> tableOf = new LinkedHashMap<>();
    boolean written = false;
    try {
      while (rows.hasNext()) {
        Row row = rows.next();
        if (row.isNullAt(0)) {
          continue;
        }
        int t = row.getInt(0);
        if (serializers[t] == null) {
          serializers[t] = ExpressionEncoder.apply(types[t]).createSerializer();
          contexts[t] = new TaskAttemptContextImpl(confs[t].value(), new TaskAttemptID(
              "tableloader", task.stageId(), TaskType.MAP, task.partitionId(), task.attemptNumber()));
        }
        StringBuilder dir = new StringBuilder(directories[t]);
        for (int p = 0; p < parts; p++) {
          String value = row.isNullAt(1 + p) ? null : row.getString(1 + p);
          dir.append('/').append(ExternalCatalogUtils.getPartitionPathString(partitionNames[p], value));
        }
        String path = dir + "/" + name + factories[t].getFileExtension(contexts[t]);
        OutputWriter writer = writers.get(path);
        if (writer == null) {
          writer = factories[t].newInstance(path, types[t], contexts[t]);
          writers.put(path, writer);
          counts.put(path, new long[1]);
          tableOf.put(path, t);
        }
        writer.write(serializers[t].apply(row.getStruct(1 + parts + t)));
        counts.get(path)[0]++;
      }
      written = true;
    } finally {
      for (OutputWriter w : writers.values()) {
        try {
          w.close();
        } catch (Exception e) {
          if (written) {
            throw e;
          }
        }
      }
      if (!written) {
        // Best effort: a failed attempt's files are never staged anyway (they are not returned).
        for (Map.Entry<String, Integer> e : tableOf.entrySet()) {
          try {
            Path path = new Path(e.getKey());
            path.getFileSystem(confs[e.getValue()].value()).delete(path, false);
          } catch (Exception ignored) {
            // the run's staging directory goes with the run
          }
        }
      }
    }
    List<Row> out = new ArrayList<>();
    for (Map.Entry<String, long[]> e : counts.entrySet()) {
      out.add(RowFactory.create(tableOf.get(e.getKey()), e.getKey(), e.getValue()[0]));
    }
    return out.iterator();
  }
}
