package tableloader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.orc.CompressionKind;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The group writer on a local Spark: the rows of two tables of different schemas written in one Spark
 * job, each into its own directory partitioned by (dt, hour), and read back with Spark.
 */
class ManyTablesOrcWriterTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] PARTITIONS = {"dt", "hour"};
  private static SparkSession spark;

  @TempDir Path tmp;

  @BeforeAll
  static void startSpark() throws Exception {
    spark = LocalSpark.session().newSession();
    // Not Spark's default codec (zstd in Spark 4, snappy in 3.5): the files must take the session's.
    spark.conf().set("spark.sql.orc.compression.codec", "lz4");
  }

  /** A file the writer reports: its table, its partition directory (relative), its rows. */
  record Written(int member, String partition, String path, long rows) {}

  /**
   * Rows laid out as the loader lays them out: (member, dt, hour, one struct column per member); the
   * struct of the row's member is the one written, a row of no member (NULL) is not written.
   */
  private static Dataset<Row> groupRows() {
    return spark.sql("SELECT * FROM VALUES"
        + " (0, '2026-01-02', '03', named_struct('id', 1L, 'url', '/a'), CAST(NULL AS STRUCT<n: INT, tags: ARRAY<STRING>>)),"
        + " (1, '2026-01-02', '03', NULL, named_struct('n', 7, 'tags', array('x', NULL))),"
        + " (0, '2026-01-02', '04', named_struct('id', 2L, 'url', 'ünï'), NULL),"
        + " (0, '2026-01-02', NULL, named_struct('id', 3L, 'url', CAST(NULL AS STRING)), NULL),"
        + " (NULL, '2026-01-02', '04', NULL, NULL)"
        + " AS t(member, dt, hour, m0, m1)").coalesce(1);
  }

  private static String[] schemas(Dataset<Row> rows, int members) {
    String[] schemas = new String[members];
    for (int m = 0; m < members; m++) {
      schemas[m] = rows.schema().apply("m" + m).dataType().json();
    }
    return schemas;
  }

  private List<Written> parse(String json, String[] directories) throws Exception {
    List<Written> files = new ArrayList<>();
    for (JsonNode file : JSON.readTree(json)) {
      int member = file.get("member").asInt();
      String path = file.get("path").asText();
      String relative = Path.of(directories[member]).relativize(Path.of(path).getParent()).toString();
      files.add(new Written(member, relative, path, file.get("rows").asLong()));
    }
    files.sort((a, b) -> (a.member + a.path).compareTo(b.member + b.path));
    return files;
  }

  private static List<String> readBack(String path) {
    return spark.read().orc(path).collectAsList().stream().map(Row::toString).collect(Collectors.toList());
  }

  private static Reader orcReader(String path) throws Exception {
    return OrcFile.createReader(new org.apache.hadoop.fs.Path(path), OrcFile.readerOptions(new Configuration()));
  }

  @Test
  void oneJobWritesEachMembersRowsIntoItsOwnPartitionedFiles() throws Exception {
    Dataset<Row> rows = groupRows();
    String[] directories = {tmp.resolve("views").toString(), tmp.resolve("counts").toString()};
    String group = "many-tables-" + System.nanoTime();
    spark.sparkContext().setJobGroup(group, "one job for both tables", false);
    String json;
    try {
      json = ManyTablesOrcWriter.write(spark, rows, schemas(rows, 2), directories, PARTITIONS);
    } finally {
      spark.sparkContext().clearJobGroup();
    }

    List<Written> files = parse(json, directories);
    assertEquals(List.of("dt=2026-01-02/hour=03", "dt=2026-01-02/hour=04",
            "dt=2026-01-02/hour=__HIVE_DEFAULT_PARTITION__", "dt=2026-01-02/hour=03"),
        files.stream().map(Written::partition).collect(Collectors.toList()));
    assertEquals(List.of(0, 0, 0, 1), files.stream().map(Written::member).collect(Collectors.toList()));
    assertEquals(List.of(1L, 1L, 1L, 1L), files.stream().map(Written::rows).collect(Collectors.toList()));
    for (Written file : files) {
      assertTrue(file.path().matches(".*/part-00000-[0-9a-f-]{36}-c000\\.lz4\\.orc"), file.path());
      assertEquals(CompressionKind.LZ4, orcReader(file.path()).getCompressionKind(), file.path());
    }
    assertEquals(List.of("[1,/a]"), readBack(files.get(0).path()));
    assertEquals(List.of("[2,ünï]"), readBack(files.get(1).path()));
    assertEquals(List.of("[3,null]"), readBack(files.get(2).path()));
    List<Row> counts = spark.read().orc(files.get(3).path()).collectAsList();
    assertEquals(1, counts.size());
    assertEquals(7, counts.get(0).getInt(0));
    assertEquals(Arrays.asList("x", null), counts.get(0).getList(1));
    assertEquals("struct<n:int,tags:array<string>>", orcReader(files.get(3).path()).getSchema().toString());

    // One Spark job for both tables (the status store hears of it through the listener bus).
    int jobs = 0;
    for (int waited = 0; waited < 100 && jobs == 0; waited++) {
      jobs = spark.sparkContext().statusTracker().getJobIdsForGroup(group).length;
      if (jobs == 0) {
        Thread.sleep(100);
      }
    }
    assertEquals(1, jobs);
  }

  @Test
  void eachMembersFilesTakeTheOrcBufferSizeItIsGivenOrOrcsOwn() throws Exception {
    Dataset<Row> rows = groupRows();
    String[] directories = {tmp.resolve("small").toString(), tmp.resolve("default").toString()};

    List<Written> files = parse(ManyTablesOrcWriter.write(spark, rows, schemas(rows, 2), directories,
        PARTITIONS, new int[] {16 * 1024, 0}), directories);

    for (Written file : files) {
      int expected = file.member() == 0 ? 16 * 1024 : 256 * 1024; // ORC's own: 256 KB
      assertEquals(expected, orcReader(file.path()).getCompressionSize(), file.path());
    }
  }

  @Test
  void aTaskPastItsOpenFilesClosesTheLeastRecentlyWrittenAndStartsAnother() throws Exception {
    // One member's rows, hours out of order: 01, 02, 01, 03, 01.
    Dataset<Row> rows = spark.sql("SELECT * FROM VALUES"
        + " (0, '2026-01-02', '01', named_struct('id', 1L)),"
        + " (0, '2026-01-02', '02', named_struct('id', 2L)),"
        + " (0, '2026-01-02', '01', named_struct('id', 3L)),"
        + " (0, '2026-01-02', '03', named_struct('id', 4L)),"
        + " (0, '2026-01-02', '01', named_struct('id', 5L))"
        + " AS t(member, dt, hour, m0)").coalesce(1);
    String[] limited = {tmp.resolve("limited").toString()};
    String[] unlimited = {tmp.resolve("unlimited").toString()};

    List<Written> twoOpen = parse(ManyTablesOrcWriter.write(spark, rows, schemas(rows, 1), limited,
        PARTITIONS, new int[1], 2), limited);
    List<Written> allOpen = parse(ManyTablesOrcWriter.write(spark, rows, schemas(rows, 1), unlimited,
        PARTITIONS, new int[1], 0), unlimited);

    // With two open: 01 and 02 open, 01 written again (02 now least recent), 03 closes 02, 01 stays.
    assertEquals(Map.of("dt=2026-01-02/hour=01", List.of(3L), "dt=2026-01-02/hour=02", List.of(1L),
        "dt=2026-01-02/hour=03", List.of(1L)), rowsByPartition(twoOpen));
    // With one open, hour 01 is opened three times: files -c000, -c001, -c002.
    String[] oneOpenDir = {tmp.resolve("one").toString()};
    List<Written> oneOpen = parse(ManyTablesOrcWriter.write(spark, rows, schemas(rows, 1), oneOpenDir,
        PARTITIONS, new int[1], 1), oneOpenDir);
    assertEquals(List.of(1L, 1L, 1L), rowsByPartition(oneOpen).get("dt=2026-01-02/hour=01"));
    assertEquals(List.of("c000", "c001", "c002"), oneOpen.stream()
        .filter(f -> f.partition().endsWith("hour=01"))
        .map(f -> f.path().replaceAll(".*-(c\\d{3})\\..*", "$1")).sorted().collect(Collectors.toList()));
    List<String> ids = new ArrayList<>();
    for (Written file : oneOpen) {
      ids.addAll(readBack(file.path()));
    }
    assertEquals(List.of("[1]", "[2]", "[3]", "[4]", "[5]"), ids.stream().sorted().collect(Collectors.toList()));
    // Without a limit: one file per partition.
    assertEquals(Map.of("dt=2026-01-02/hour=01", List.of(3L), "dt=2026-01-02/hour=02", List.of(1L),
        "dt=2026-01-02/hour=03", List.of(1L)), rowsByPartition(allOpen));
  }

  private static Map<String, List<Long>> rowsByPartition(List<Written> files) {
    Map<String, List<Long>> rows = new TreeMap<>();
    for (Written file : files) {
      rows.computeIfAbsent(file.partition(), p -> new ArrayList<>()).add(file.rows());
    }
    return rows;
  }
}
