package tableloader;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.common.type.HiveDecimal;
import org.apache.hadoop.hive.ql.exec.vector.BytesColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.ColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.DecimalColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.DoubleColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.ListColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.LongColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.MapColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.MultiValuedColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.StructColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.TimestampColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.VectorizedRowBatch;
import org.apache.hadoop.hive.serde2.io.HiveDecimalWritable;
import org.apache.orc.OrcConf;
import org.apache.orc.OrcFile;
import org.apache.orc.TypeDescription;
import org.apache.orc.TypeDescription.Category;
import org.apache.orc.Writer;
import org.apache.orc.mapred.OrcMapredRecordWriter;
import org.apache.orc.mapred.OrcOutputFormat;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.catalyst.util.RebaseDateTime;
import org.apache.spark.sql.execution.datasources.OutputWriter;
import org.apache.spark.sql.execution.datasources.orc.OrcUtils;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Writes Spark's rows straight into ORC's column vectors: the file Spark's own ORC writer writes, without
 * the ORC row objects it makes first.
 *
 * <p>Spark's writer turns every value of a row into a Hadoop {@code Writable} (a new {@code Text} and a
 * copy of every string), puts them in an {@code OrcStruct}, and ORC's record writer then copies each one
 * into its column vectors: a quarter of a busy topic's task time (benchmarks/JOURNAL.md, "Rows written
 * straight into ORC's vectors"). Here each column has a setter, made once from the table's type, that
 * copies a value from the row into its vector.
 *
 * <p>The file is Spark's to the byte, as far as its reader and Hive's can tell: the same ORC schema
 * ({@code OrcUtils.orcTypeDescription}), the same writer options from the same configuration, Spark's
 * version in the file's metadata, batches of the same size flushed at the same points, and every value
 * converted by the function Spark's serializer uses: dates and timestamps rebased to the hybrid Julian
 * calendar ORC files hold ({@code DaysWritable}, {@code DateTimeUtils.toJavaTimestamp}), decimals through
 * {@code HiveDecimal}, a map's entries in key order with one entry per key (Spark builds an {@code
 * OrcMap}, a {@code TreeMap}). A type this class does not know ({@link #writes} says which) is written
 * by Spark's writer.
 */
public final class OrcVectorWriter extends OutputWriter {
  private final String path;
  private final Writer writer;
  private final VectorizedRowBatch batch;
  private final ColumnSetter[] setters;
  // The list and map vectors, at any depth: ORC's record writer flushes a batch before their children
  // pass its limit, and so does this one.
  private final List<MultiValuedColumnVector> multiValued = new ArrayList<>();
  private final int childLimit;

  /** Copies the value at {@code ordinal} of {@code from} (not null) into {@code to}'s row {@code row}. */
  @FunctionalInterface
  interface ColumnSetter {
    void set(SpecializedGetters from, int ordinal, ColumnVector to, int row);
  }

  OrcVectorWriter(String path, StructType type, Configuration conf, int batchSize) throws IOException {
    this.path = path;
    TypeDescription schema = OrcUtils.orcTypeDescription(type);
    this.setters = fieldSetters(type, schema);
    if (setters == null) {
      throw new IllegalArgumentException("not a type the ORC vector writer writes: " + type.simpleString());
    }
    this.writer = OrcFile.createWriter(new Path(path), OrcOutputFormat.buildOptions(conf).setSchema(schema));
    OrcUtils.addSparkVersionMetadata(writer);
    this.batch = writer.getSchema().createRowBatch(batchSize);
    OrcMapredRecordWriter.addVariableLengthColumns(multiValued, batch);
    this.childLimit = (Integer) OrcConf.ROW_BATCH_CHILD_LIMIT.getDefaultValue();
  }

  /** Whether rows of {@code type} can be written by this class (else Spark's writer writes them). */
  public static boolean writes(StructType type) {
    return fieldSetters(type, OrcUtils.orcTypeDescription(type)) != null;
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public void write(InternalRow row) {
    try {
      if (batch.size == batch.getMaxSize()
          || OrcMapredRecordWriter.getMaxChildLength(multiValued) >= childLimit) {
        writer.addRowBatch(batch);
        batch.reset();
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    int r = batch.size++;
    for (int f = 0; f < setters.length; f++) {
      set(setters[f], row, f, batch.cols[f], r);
    }
  }

  @Override
  public void close() {
    try {
      if (batch.size != 0) {
        writer.addRowBatch(batch);
      }
      writer.close();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void set(ColumnSetter setter, SpecializedGetters from, int ordinal, ColumnVector to,
      int row) {
    if (from.isNullAt(ordinal)) {
      to.noNulls = false;
      to.isNull[row] = true;
    } else {
      setter.set(from, ordinal, to, row);
    }
  }

  /** The setters of a struct's fields; null if any field's type is not one this class writes. */
  private static ColumnSetter[] fieldSetters(StructType type, TypeDescription orc) {
    List<TypeDescription> children = orc.getChildren();
    if (orc.getCategory() != Category.STRUCT || children.size() != type.fields().length) {
      return null;
    }
    ColumnSetter[] setters = new ColumnSetter[children.size()];
    for (int f = 0; f < setters.length; f++) {
      setters[f] = setter(type.fields()[f].dataType(), children.get(f));
      if (setters[f] == null) {
        return null;
      }
    }
    return setters;
  }

  /** The setter of a value of Spark's {@code type} into a vector of ORC's {@code orc}; null if none. */
  private static ColumnSetter setter(DataType type, TypeDescription orc) {
    Category category = orc.getCategory();
    if (type instanceof BooleanType && category == Category.BOOLEAN) {
      return (from, o, to, r) -> ((LongColumnVector) to).vector[r] = from.getBoolean(o) ? 1 : 0;
    } else if (type instanceof ByteType && category == Category.BYTE) {
      return (from, o, to, r) -> ((LongColumnVector) to).vector[r] = from.getByte(o);
    } else if (type instanceof ShortType && category == Category.SHORT) {
      return (from, o, to, r) -> ((LongColumnVector) to).vector[r] = from.getShort(o);
    } else if (type instanceof IntegerType && category == Category.INT) {
      return (from, o, to, r) -> ((LongColumnVector) to).vector[r] = from.getInt(o);
    } else if (type instanceof LongType && category == Category.LONG) {
      return (from, o, to, r) -> ((LongColumnVector) to).vector[r] = from.getLong(o);
    } else if (type instanceof FloatType && category == Category.FLOAT) {
      return (from, o, to, r) -> ((DoubleColumnVector) to).vector[r] = from.getFloat(o);
    } else if (type instanceof DoubleType && category == Category.DOUBLE) {
      return (from, o, to, r) -> ((DoubleColumnVector) to).vector[r] = from.getDouble(o);
    } else if (type instanceof StringType && category == Category.STRING) {
      return OrcVectorWriter::setString;
    } else if (type instanceof BinaryType && category == Category.BINARY) {
      return (from, o, to, r) -> {
        byte[] bytes = from.getBinary(o);
        ((BytesColumnVector) to).setVal(r, bytes, 0, bytes.length);
      };
    } else if (type instanceof DecimalType && category == Category.DECIMAL) {
      int precision = ((DecimalType) type).precision();
      int scale = ((DecimalType) type).scale();
      return (from, o, to, r) -> ((DecimalColumnVector) to).set(r, new HiveDecimalWritable(
          HiveDecimal.create(from.getDecimal(o, precision, scale).toJavaBigDecimal())));
    } else if (type instanceof DateType && category == Category.DATE) {
      return (from, o, to, r) ->
          ((LongColumnVector) to).vector[r] = RebaseDateTime.rebaseGregorianToJulianDays(from.getInt(o));
    } else if (type instanceof TimestampType && category == Category.TIMESTAMP) {
      return (from, o, to, r) ->
          ((TimestampColumnVector) to).set(r, DateTimeUtils.toJavaTimestamp(from.getLong(o)));
    } else if (type instanceof StructType) {
      ColumnSetter[] fields = fieldSetters((StructType) type, orc);
      return fields == null ? null : (from, o, to, r) -> {
        InternalRow struct = from.getStruct(o, fields.length);
        ColumnVector[] vectors = ((StructColumnVector) to).fields;
        for (int f = 0; f < fields.length; f++) {
          set(fields[f], struct, f, vectors[f], r);
        }
      };
    } else if (type instanceof ArrayType && category == Category.LIST) {
      ColumnSetter element = setter(((ArrayType) type).elementType(), orc.getChildren().get(0));
      return element == null ? null : (from, o, to, r) -> {
        ArrayData array = from.getArray(o);
        int n = array.numElements();
        ListColumnVector list = (ListColumnVector) to;
        int offset = startChildren(list, r, n);
        growChildren(list.child, list.childCount, offset);
        for (int i = 0; i < n; i++) {
          set(element, array, i, list.child, offset + i);
        }
      };
    } else if (type instanceof MapType && category == Category.MAP
        && ((MapType) type).keyType() instanceof StringType) {
      ColumnSetter key = setter(((MapType) type).keyType(), orc.getChildren().get(0));
      ColumnSetter value = setter(((MapType) type).valueType(), orc.getChildren().get(1));
      return key == null || value == null ? null : (from, o, to, r) -> {
        MapData map = from.getMap(o);
        ArrayData keys = map.keyArray();
        ArrayData values = map.valueArray();
        int[] entries = entriesInKeyOrder(keys, map.numElements());
        MapColumnVector vector = (MapColumnVector) to;
        int offset = startChildren(vector, r, entries.length);
        growChildren(vector.keys, vector.childCount, offset);
        growChildren(vector.values, vector.childCount, offset);
        for (int i = 0; i < entries.length; i++) {
          set(key, keys, entries[i], vector.keys, offset + i);
          set(value, values, entries[i], vector.values, offset + i);
        }
      };
    }
    return null;
  }

  /** A string copied once, from the row into the vector's buffer (Spark's copies it twice). */
  private static void setString(SpecializedGetters from, int ordinal, ColumnVector to, int row) {
    UTF8String value = from.getUTF8String(ordinal);
    BytesColumnVector vector = (BytesColumnVector) to;
    int length = value.numBytes();
    vector.ensureValPreallocated(length);
    value.writeToMemory(
        vector.getValPreallocatedBytes(), Platform.BYTE_ARRAY_OFFSET + vector.getValPreallocatedStart());
    vector.setValPreallocated(row, length);
  }

  /** Gives row {@code row} of a list or map the next {@code n} children; returns the first's index. */
  private static int startChildren(MultiValuedColumnVector vector, int row, int n) {
    int offset = vector.childCount;
    vector.offsets[row] = offset;
    vector.lengths[row] = n;
    vector.childCount += n;
    return offset;
  }

  /** As ORC's record writer: half as big again when the children outgrow their vector. */
  private static void growChildren(ColumnVector children, int needed, int offset) {
    if (children.isNull.length < needed) {
      children.ensureSize(needed * 3 / 2, offset != 0);
    }
  }

  /**
   * A map's entries as an {@code OrcMap} (a {@code TreeMap}) holds them: in the order of their keys'
   * bytes, and one per key, with the value put last.
   */
  public static int[] entriesInKeyOrder(ArrayData keys, int n) {
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    if (n > 1) {
      // Stable: of entries with the same key, the one put last stays last.
      Arrays.sort(order, (a, b) -> keys.getUTF8String(a).compareTo(keys.getUTF8String(b)));
    }
    int[] entries = new int[n];
    int kept = 0;
    for (int i = 0; i < n; i++) {
      if (i + 1 < n && keys.getUTF8String(order[i]).equals(keys.getUTF8String(order[i + 1]))) {
        continue;
      }
      entries[kept++] = order[i];
    }
    return kept == n ? entries : Arrays.copyOf(entries, kept);
  }
}
