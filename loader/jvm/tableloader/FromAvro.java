package tableloader;

import java.io.Serializable;
import java.util.Objects;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.avro.AvroDeserializer;
import org.apache.spark.sql.avro.AvroOptions;
import org.apache.spark.sql.avro.SchemaConverters;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry;
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow;
import org.apache.spark.sql.catalyst.expressions.codegen.CodeBlock;
import org.apache.spark.sql.catalyst.expressions.codegen.CodeGenerator;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.catalyst.expressions.codegen.JavaCode;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.catalyst.util.PermissiveMode$;
import org.apache.spark.sql.types.BinaryType$;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.List;
import scala.collection.immutable.Map;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.util.control.NonFatal$;

/**
 * Spark's {@code from_avro(body, writer schema, options)} in PERMISSIVE mode, decoding as it does, with
 * its options read without a Hadoop {@code Configuration} of their own.
 *
 * <p>Spark's expression builds its options in every task that evaluates it interpreted (generated code
 * keeps the driver's): outside the driver a task has no session, so it makes a new Hadoop {@code
 * Configuration} and parses its default XML files (core, hdfs, mapred, yarn) to read one setting that
 * concerns Avro files only. About 5 ms per expression and task, and a topic's query has one expression per
 * writer schema, in the interpreted queries of small topics: a measurable share of a small topic's cost
 * (the benchmarks' README, "Avro options without a Hadoop configuration"). Here the options read an empty
 * configuration; everything else is Spark's own: {@link AvroOptions} from the same options,
 * {@link SchemaConverters} for the type, {@link AvroDeserializer} for the rows, the writer schema
 * resolved to the {@code avroSchema} option by Avro, and a body that does not decode reads as a struct of
 * NULLs (NULL for a type that is not a record).
 *
 * <p>Registered in a session as {@value #NAME} by {@link #registerIn}; the loader falls back to Spark's
 * {@code from_avro} when its jar is not on the driver's class path.
 */
public class FromAvro extends Expression implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final String NAME = "tableloader_from_avro";

  private final Expression child;
  private final String writerSchema;
  private final Map<String, String> options;

  private transient AvroOptions avroOptions;
  private transient DataType dataType;
  private transient GenericDatumReader<Object> reader;
  private transient AvroDeserializer deserializer;
  private transient Object nullRow;
  private transient boolean nullRowMade;
  private transient BinaryDecoder decoder;
  private transient Object record;

  public FromAvro(Expression child, String writerSchema, Map<String, String> options) {
    this.child = child;
    this.writerSchema = writerSchema;
    this.options = options;
  }

  /**
   * Makes {@value #NAME} a function of {@code spark}'s SQL unless it is one already (Spark warns of a
   * function registered again, and every topic's pass asks); returns its name.
   */
  public static String registerIn(SparkSession spark) {
    FunctionRegistry functions = spark.sessionState().functionRegistry();
    FunctionIdentifier name = FunctionIdentifier.apply(NAME);
    Option<ExpressionInfo> registered = functions.lookupFunction(name);
    if (registered.isEmpty() || !FromAvro.class.getName().equals(registered.get().getClassName())) {
      functions.registerFunction(name, new ExpressionInfo(FromAvro.class.getName(), NAME), FromAvro::build);
    }
    return NAME;
  }

  private static Expression build(Seq<Expression> arguments) {
    if (arguments.length() != 3 || !arguments.apply(1).foldable() || !arguments.apply(2).foldable()) {
      throw new IllegalArgumentException(
          NAME + " takes (body, writer schema as a string literal, options as a map literal)");
    }
    Object schema = arguments.apply(1).eval(null);
    Object map = arguments.apply(2).eval(null);
    if (schema == null || !(map instanceof MapData)) {
      throw new IllegalArgumentException(NAME + ": the writer schema and the options must not be NULL");
    }
    return new FromAvro(arguments.apply(0), schema.toString(), stringMap((MapData) map));
  }

  private static Map<String, String> stringMap(MapData map) {
    scala.collection.mutable.LinkedHashMap<String, String> entries =
        new scala.collection.mutable.LinkedHashMap<>();
    for (int i = 0; i < map.numElements(); i++) {
      entries.put(map.keyArray().getUTF8String(i).toString(), map.valueArray().getUTF8String(i).toString());
    }
    return scala.collection.immutable.Map$.MODULE$.from(entries);
  }

  public Expression child() {
    return child;
  }

  @Override
  public Seq<Expression> children() {
    return listOf(child);
  }

  @Override
  public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
    return new FromAvro(newChildren.apply(0), writerSchema, options);
  }

  @Override
  public Object eval(InternalRow row) {
    Object body = child.eval(row);
    return body == null ? null : nullSafeEval(body);
  }

  @Override
  public TypeCheckResult checkInputDataTypes() {
    if (!child.dataType().equals(BinaryType$.MODULE$)) {
      return new TypeCheckResult.TypeCheckFailure(NAME + " decodes binary, not " + child.dataType().sql());
    }
    if (!avroOptions().parseMode().equals(PermissiveMode$.MODULE$)) {
      return new TypeCheckResult.TypeCheckFailure(NAME + " decodes in PERMISSIVE mode only");
    }
    return TypeCheckResult.TypeCheckSuccess$.MODULE$;
  }

  /** Spark's options over an empty Hadoop configuration: the only setting read there is for files. */
  private AvroOptions avroOptions() {
    if (avroOptions == null) {
      avroOptions = new AvroOptions(options, new Configuration(false));
    }
    return avroOptions;
  }

  private Schema readerSchema() {
    AvroOptions chosen = avroOptions();
    return chosen.schema().isDefined() ? chosen.schema().get() : writer();
  }

  private Schema writer() {
    return new Schema.Parser().setValidateDefaults(false).parse(writerSchema);
  }

  @Override
  public DataType dataType() {
    if (dataType == null) {
      AvroOptions chosen = avroOptions();
      dataType = SchemaConverters.toSqlType(readerSchema(), chosen.useStableIdForUnionType(),
          chosen.stableIdPrefixForUnionType(), chosen.recursiveFieldMaxDepth()).dataType().asNullable();
    }
    return dataType;
  }

  @Override
  public boolean nullable() {
    return true;
  }

  /** Decodes one body (not NULL); public for the generated code. */
  public Object nullSafeEval(Object input) {
    if (deserializer == null) {
      Schema expected = readerSchema();
      AvroOptions chosen = avroOptions();
      reader = new GenericDatumReader<>(writer(), expected);
      deserializer = new AvroDeserializer(expected, dataType(), chosen.datetimeRebaseModeInRead(),
          chosen.useStableIdForUnionType(), chosen.stableIdPrefixForUnionType(),
          chosen.recursiveFieldMaxDepth());
    }
    byte[] body = (byte[]) input;
    try {
      decoder = DecoderFactory.get().binaryDecoder(body, 0, body.length, decoder);
      record = reader.read(record, decoder);
      return deserializer.deserialize(record).get();
    } catch (Throwable notDecoded) {
      // As Spark's PERMISSIVE mode: whatever the body's trouble (truncated, wrong types, garbage), but
      // not the JVM's own (out of memory, an interrupt).
      if (!NonFatal$.MODULE$.apply(notDecoded)) {
        throw FromAvro.<RuntimeException>rethrown(notDecoded);
      }
      record = null;
      return nullRow();
    }
  }

  /** What a body that does not decode reads as: a struct of NULLs, or NULL for another type. */
  private Object nullRow() {
    if (!nullRowMade) {
      DataType type = dataType();
      if (type instanceof StructType struct) {
        SpecificInternalRow row = new SpecificInternalRow(struct);
        for (int i = 0; i < struct.length(); i++) {
          row.setNullAt(i);
        }
        nullRow = row;
      }
      nullRowMade = true;
    }
    return nullRow;
  }

  @SafeVarargs
  private static <T> List<T> listOf(T... items) {
    return CollectionConverters.asScala(java.util.List.of(items)).toList();
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T rethrown(Throwable thrown) throws T {
    throw (T) thrown;
  }

  /** As Spark's {@code from_avro} generates it: the child's code, then a call to {@link #nullSafeEval}. */
  @Override
  public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
    ExprCode body = child.genCode(ctx);
    String self = ctx.addReferenceObj("fromAvro", this, FromAvro.class.getName());
    String boxed = CodeGenerator.boxedType(dataType());
    String decoded = ctx.freshName("decoded");
    String code = "boolean " + ev.isNull() + " = " + body.isNull() + ";\n"
        + CodeGenerator.javaType(dataType()) + " " + ev.value() + " = "
        + CodeGenerator.defaultValue(dataType(), true) + ";\n"
        + "if (!" + ev.isNull() + ") {\n"
        + "  " + boxed + " " + decoded + " = (" + boxed + ") " + self + ".nullSafeEval(" + body.value() + ");\n"
        + "  if (" + decoded + " == null) { " + ev.isNull() + " = true; } else { " + ev.value() + " = "
        + decoded + "; }\n"
        + "}\n";
    CodeBlock block = new CodeBlock(listOf(code), listOf());
    return ev.copy(body.code().$plus(block), JavaCode.isNullVariable(ev.isNull().toString()),
        JavaCode.variable(ev.value().toString(), dataType()));
  }

  @Override
  public String prettyName() {
    return NAME;
  }

  @Override
  public int productArity() {
    return 3;
  }

  @Override
  public Object productElement(int n) {
    switch (n) {
      case 0:
        return child;
      case 1:
        return writerSchema;
      case 2:
        return options;
      default:
        throw new IndexOutOfBoundsException(String.valueOf(n));
    }
  }

  @Override
  public boolean canEqual(Object other) {
    return other instanceof FromAvro;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof FromAvro that
        && child.equals(that.child)
        && writerSchema.equals(that.writerSchema)
        && options.equals(that.options);
  }

  @Override
  public int hashCode() {
    return Objects.hash(child, writerSchema, options);
  }
}
