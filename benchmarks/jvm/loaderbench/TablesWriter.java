package loaderbench;

import java.util.*;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.datasources.OutputWriter;
import org.apache.spark.sql.execution.datasources.OutputWriterFactory;
import org.apache.spark.sql.execution.datasources.orc.OrcFileFormat;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Prototype (benchmarks only): one Spark job writing many topics' queries, each query as planned for
 * its own write (its rows end with the partition values), each written with Spark's own ORC
 * OutputWriter into its table's directory. The queries' RDDs are unioned, so that their tasks are one
 * job. Returns (table index, file, rows) for every file written.
 */
public class TablesWriter implements FlatMapFunction<Iterator<InternalRow>, Row> {
  private final int table;
  private final StructType dataSchema;
  private final String directory;
  private final String[] partitionNames;
  private final OutputWriterFactory factory;
  private final SerializableConfiguration conf;

  TablesWriter(int table, StructType dataSchema, String directory, String[] partitionNames,
      OutputWriterFactory factory, SerializableConfiguration conf) {
    this.table = table; this.dataSchema = dataSchema; this.directory = directory;
    this.partitionNames = partitionNames; this.factory = factory; this.conf = conf;
  }

  public static List<Row> writeAll(SparkSession spark, Dataset<Row>[] frames, String[] directories,
      String[] partitionNames) throws Exception {
    List<JavaRDD<Row>> parts = new ArrayList<>();
    for (int t = 0; t < frames.length; t++) {
      StructField[] fields = frames[t].schema().fields();
      StructType data = new StructType(Arrays.copyOf(fields, fields.length - partitionNames.length));
      Job job = Job.getInstance(spark.sessionState().newHadoopConf());
      OutputWriterFactory factory = new OrcFileFormat().prepareWrite(spark, job,
          scala.collection.immutable.Map$.MODULE$.<String, String>empty(), data);
      JavaRDD<InternalRow> rows = frames[t].queryExecution().toRdd().toJavaRDD();
      parts.add(rows.mapPartitions(new TablesWriter(t, data, directories[t], partitionNames, factory,
          new SerializableConfiguration(job.getConfiguration()))));
    }
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    return sc.union(parts.toArray(new JavaRDD[0])).collect();
  }

  @Override
  public Iterator<Row> call(Iterator<InternalRow> rows) throws Exception {
    TaskContext task = TaskContext.get();
    String name = String.format("part-%05d-%d-%d", task.partitionId(), task.stageId(), task.taskAttemptId());
    TaskAttemptContextImpl ctx = new TaskAttemptContextImpl(conf.value(),
        new TaskAttemptID("loaderbench", task.stageId(), TaskType.MAP, task.partitionId(), task.attemptNumber()));
    String extension = factory.getFileExtension(ctx);
    int first = dataSchema.fields().length;
    Map<String, OutputWriter> writers = new LinkedHashMap<>();
    Map<String, long[]> counts = new LinkedHashMap<>();
    try {
      while (rows.hasNext()) {
        InternalRow row = rows.next();
        StringBuilder dir = new StringBuilder(directory);
        for (int p = 0; p < partitionNames.length; p++)
          dir.append('/').append(partitionNames[p]).append('=').append(row.getUTF8String(first + p).toString());
        String path = dir + "/" + name + extension;
        OutputWriter writer = writers.get(path);
        if (writer == null) {
          writer = factory.newInstance(path, dataSchema, ctx);
          writers.put(path, writer); counts.put(path, new long[1]);
        }
        writer.write(row);
        counts.get(path)[0]++;
      }
    } finally {
      for (OutputWriter w : writers.values()) w.close();
    }
    List<Row> out = new ArrayList<>();
    for (Map.Entry<String, long[]> e : counts.entrySet()) out.add(RowFactory.create(table, e.getKey(), e.getValue()[0]));
    return out.iterator();
  }
}
