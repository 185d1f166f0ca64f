package tableloader;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import java.io.IOException;
import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A Confluent-framed Protobuf record as its table's row: a function of one schema's records
 * ({@link #column}), called with a record's bytes after the 5-byte header. The schema's files (a base64
 * {@code FileDescriptorSet}, imports first), the table's message and the row's type (the columns the
 * loader's {@code loader.reading.value_formats.protobuf_tables} gives, as DDL) are the function's own,
 * serialized with it to the tasks once and read once per task.
 *
 * <p>Spark's {@code spark-protobuf} is not served by the package registries the project reaches. Each
 * column is filled from the field of its name: a field without presence (a proto3 scalar, a repeated
 * field, a map) always, its default when unset; a field with presence (a message, a {@code optional} or
 * {@code oneof} member) only when set, else NULL. {@code uint64} and {@code fixed64} as decimals (no
 * value wraps), {@code uint32} and {@code fixed32} as longs, enums by name (a number the schema does not
 * name as its number, in text), map keys as text, a {@code Timestamp} as a timestamp, a wrapper as its
 * value, a {@code Duration} as Protobuf's JSON mapping writes it ({@code 1.500s}), and what a string
 * column holds for a message (a {@code Struct}, an {@code Any}, a message where it contains itself) as
 * JSON ({@link ProtobufJson}).
 *
 * <p>NULL for bytes that do not parse as a message of the table's type (the loader quarantines the
 * record). The message indexes are read past, not checked: the loader's query sends a record to the
 * decoder of the message its indexes name in its writer's file.
 */
public final class ProtobufRows implements UDF1<byte[], Row> {
  private static final long serialVersionUID = 1L;

  private final String descriptorSet;
  private final String messageName;
  private final StructType rowType;
  private transient Descriptor type;

  public ProtobufRows(String descriptorSet, String messageName, StructType rowType) {
    this.descriptorSet = descriptorSet;
    this.messageName = messageName;
    this.rowType = rowType;
    this.type = ProtobufJson.message(descriptorSet, messageName); // a schema that does not read fails here
  }

  /**
   * The rows of the records in the binary column {@code body} (bytes after the 5-byte header), of the
   * type {@code rowDdl} ({@code STRUCT<name: TYPE, ...>}).
   */
  public static Column column(Column body, String descriptorSet, String messageName, String rowDdl) {
    StructType rowType = (StructType) DataType.fromDDL(rowDdl);
    return functions.udf(new ProtobufRows(descriptorSet, messageName, rowType), rowType).apply(body);
  }

  @Override
  public Row call(byte[] body) throws IOException {
    if (body == null) {
      return null;
    }
    if (type == null) {
      type = ProtobufJson.message(descriptorSet, messageName);
    }
    DynamicMessage record = ProtobufJson.record(body, type);
    return record == null ? null : row(record, rowType);
  }

  static Row row(Message message, StructType rowType) throws IOException {
    Descriptor descriptor = message.getDescriptorForType();
    StructField[] columns = rowType.fields();
    Object[] values = new Object[columns.length];
    for (int i = 0; i < columns.length; i++) {
      FieldDescriptor field = descriptor.findFieldByName(columns[i].name());
      if (field == null || (field.hasPresence() && !message.hasField(field))) {
        continue; // a column of another version's field, or a field not set: NULL
      }
      values[i] = value(field, message.getField(field), columns[i].dataType());
    }
    return RowFactory.create(values);
  }

  private static Object value(FieldDescriptor field, Object value, DataType column) throws IOException {
    if (field.isMapField()) {
      Map<String, Object> map = new LinkedHashMap<>();
      for (Object entry : (List<?>) value) {
        Message pair = (Message) entry;
        FieldDescriptor key = pair.getDescriptorForType().findFieldByNumber(1);
        FieldDescriptor item = pair.getDescriptorForType().findFieldByNumber(2);
        Object mapped = single(item, pair.getField(item), ((MapType) column).valueType());
        map.put(ProtobufJson.keyText(key, pair.getField(key)), mapped);
      }
      return map;
    }
    if (field.isRepeated()) {
      List<Object> items = new ArrayList<>();
      for (Object item : (List<?>) value) {
        items.add(single(field, item, ((ArrayType) column).elementType()));
      }
      return items;
    }
    return single(field, value, column);
  }

  private static Object single(FieldDescriptor field, Object value, DataType column) throws IOException {
    switch (field.getType()) {
      case UINT64:
      case FIXED64:
        return new BigDecimal(Long.toUnsignedString((Long) value));
      case UINT32:
      case FIXED32:
        return Integer.toUnsignedLong((Integer) value);
      case BYTES:
        return ((ByteString) value).toByteArray();
      case ENUM:
        EnumValueDescriptor symbol = (EnumValueDescriptor) value;
        boolean named = symbol.getType().findValueByNumber(symbol.getNumber()) != null;
        return named ? symbol.getName() : String.valueOf(symbol.getNumber());
      case MESSAGE:
      case GROUP:
        return nested((Message) value, column);
      default:
        return value; // Long, Integer, Float, Double, Boolean, String
    }
  }

  private static Object nested(Message message, DataType column) throws IOException {
    Descriptor type = message.getDescriptorForType();
    String name = type.getFullName();
    if (name.equals("google.protobuf.Timestamp")) {
      long seconds = (Long) message.getField(type.findFieldByNumber(1));
      int nanos = (Integer) message.getField(type.findFieldByNumber(2));
      return Timestamp.from(Instant.ofEpochSecond(seconds, nanos));
    }
    if (ProtobufJson.WRAPPERS.contains(name)) {
      FieldDescriptor inner = type.findFieldByNumber(1);
      return single(inner, message.getField(inner), column);
    }
    if (name.equals("google.protobuf.Duration")) {
      long seconds = (Long) message.getField(type.findFieldByNumber(1));
      int nanos = (Integer) message.getField(type.findFieldByNumber(2));
      return ProtobufJson.duration(seconds, nanos);
    }
    if (ProtobufJson.JSON_TEXT.contains(name)) {
      return ProtobufJson.jsonText(message);
    }
    if (column instanceof StringType) {
      return ProtobufJson.json(message); // a message where it contains itself
    }
    return row(message, (StructType) column);
  }
}
