package tableloader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Label;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.DescriptorProtos.OneofDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Duration;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Int64Value;
import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.Value;
import java.io.ByteArrayOutputStream;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** Records of a schema with every kind of field, framed as Confluent's serializer frames them, as JSON. */
class ProtobufJsonTest {
  static final FileDescriptorProto ORDERS =
      FileDescriptorProto.newBuilder()
          .setName("default")
          .setPackage("shop")
          .setSyntax("proto3")
          .addDependency("google/protobuf/timestamp.proto")
          .addDependency("google/protobuf/wrappers.proto")
          .addDependency("google/protobuf/duration.proto")
          .addDependency("google/protobuf/struct.proto")
          .addMessageType(
              DescriptorProto.newBuilder()
                  .setName("Order")
                  .addField(field("id", 1, Type.TYPE_INT64))
                  .addField(field("big", 2, Type.TYPE_UINT64))
                  .addField(field("count", 3, Type.TYPE_UINT32))
                  .addField(field("price", 4, Type.TYPE_DOUBLE))
                  .addField(field("paid", 5, Type.TYPE_BOOL))
                  .addField(field("note", 6, Type.TYPE_STRING))
                  .addField(field("raw", 7, Type.TYPE_BYTES))
                  .addField(typed("status", 8, Type.TYPE_ENUM, ".shop.Order.Status"))
                  .addField(typed("lines", 9, Type.TYPE_MESSAGE, ".shop.Order.Line").setLabel(Label.LABEL_REPEATED))
                  .addField(typed("tags", 10, Type.TYPE_MESSAGE, ".shop.Order.TagsEntry").setLabel(Label.LABEL_REPEATED))
                  .addField(typed("placed", 11, Type.TYPE_MESSAGE, ".google.protobuf.Timestamp"))
                  .addField(typed("maybe", 12, Type.TYPE_MESSAGE, ".google.protobuf.Int64Value"))
                  .addField(typed("took", 13, Type.TYPE_MESSAGE, ".google.protobuf.Duration"))
                  .addField(typed("extra", 14, Type.TYPE_MESSAGE, ".google.protobuf.Struct"))
                  .addField(field("card", 15, Type.TYPE_STRING).setOneofIndex(0))
                  .addField(field("cash", 16, Type.TYPE_INT64).setOneofIndex(0))
                  .addField(field("coupon", 17, Type.TYPE_STRING).setProto3Optional(true).setOneofIndex(1))
                  .addOneofDecl(OneofDescriptorProto.newBuilder().setName("payment"))
                  .addOneofDecl(OneofDescriptorProto.newBuilder().setName("_coupon"))
                  .addNestedType(
                      DescriptorProto.newBuilder()
                          .setName("Line")
                          .addField(field("sku", 1, Type.TYPE_STRING))
                          .addField(field("qty", 2, Type.TYPE_INT32)))
                  .addNestedType(
                      DescriptorProto.newBuilder()
                          .setName("TagsEntry")
                          .setOptions(MessageOptions.newBuilder().setMapEntry(true))
                          .addField(field("key", 1, Type.TYPE_INT32))
                          .addField(field("value", 2, Type.TYPE_STRING)))
                  .addEnumType(
                      EnumDescriptorProto.newBuilder()
                          .setName("Status")
                          .addValue(EnumValueDescriptorProto.newBuilder().setName("NEW").setNumber(0))
                          .addValue(EnumValueDescriptorProto.newBuilder().setName("PAID").setNumber(1))))
          .addMessageType(DescriptorProto.newBuilder().setName("Refund").addField(field("why", 1, Type.TYPE_STRING)))
          .build();
  static final String FILES =
      Base64.getEncoder()
          .encodeToString(
              FileDescriptorSet.newBuilder()
                  .addFile(Timestamp.getDescriptor().getFile().toProto())
                  .addFile(Int64Value.getDescriptor().getFile().toProto())
                  .addFile(Duration.getDescriptor().getFile().toProto())
                  .addFile(Struct.getDescriptor().getFile().toProto())
                  .addFile(ORDERS)
                  .build()
                  .toByteArray());
  static final Descriptor ORDER = ProtobufJson.message(FILES, "shop.Order");

  private static FieldDescriptorProto.Builder field(String name, int number, Type type) {
    return FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setType(type).setLabel(Label.LABEL_OPTIONAL);
  }

  private static FieldDescriptorProto.Builder typed(String name, int number, Type type, String typeName) {
    return field(name, number, type).setTypeName(typeName);
  }

  /** The body after the schema id: message indexes as Confluent writes them, then the message. */
  static byte[] framed(byte[] indexes, DynamicMessage message) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(indexes);
    message.writeTo(out);
    return out.toByteArray();
  }

  private static String decoded(byte[] body) {
    DynamicMessage record = body == null ? null : ProtobufJson.record(body, ORDER);
    return record == null ? null : ProtobufJson.json(record);
  }

  @Test
  void everyKindOfFieldIsWrittenAsTheTablesColumnsReadIt() throws Exception {
    Descriptor line = ORDER.findNestedTypeByName("Line");
    Descriptor entry = ORDER.findNestedTypeByName("TagsEntry");
    DynamicMessage order =
        DynamicMessage.newBuilder(ORDER)
            .setField(ORDER.findFieldByName("id"), 9_007_199_254_740_993L)
            .setField(ORDER.findFieldByName("big"), -1L) // 2^64 - 1 unsigned
            .setField(ORDER.findFieldByName("count"), -1) // 2^32 - 1 unsigned
            .setField(ORDER.findFieldByName("price"), 12.5)
            .setField(ORDER.findFieldByName("paid"), true)
            .setField(ORDER.findFieldByName("note"), "a \"quoted\" note")
            .setField(ORDER.findFieldByName("raw"), ByteString.copyFrom(new byte[] {1, 2}))
            .setField(ORDER.findFieldByName("status"), ORDER.findEnumTypeByName("Status").findValueByName("PAID"))
            .addRepeatedField(
                ORDER.findFieldByName("lines"),
                DynamicMessage.newBuilder(line)
                    .setField(line.findFieldByName("sku"), "A-1")
                    .setField(line.findFieldByName("qty"), 2)
                    .build())
            .addRepeatedField(
                ORDER.findFieldByName("tags"),
                DynamicMessage.newBuilder(entry)
                    .setField(entry.findFieldByName("key"), 7)
                    .setField(entry.findFieldByName("value"), "seven")
                    .build())
            .setField(ORDER.findFieldByName("placed"), Timestamp.newBuilder().setSeconds(1_796_642_130L).setNanos(250_000_000).build())
            .setField(ORDER.findFieldByName("maybe"), Int64Value.of(5))
            .setField(ORDER.findFieldByName("took"), Duration.newBuilder().setSeconds(1).setNanos(500_000_000).build())
            .setField(
                ORDER.findFieldByName("extra"),
                Struct.newBuilder()
                    .putFields("a", Value.newBuilder().setNumberValue(1).build())
                    .putFields("b", Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build())
                    .putFields(
                        "c",
                        Value.newBuilder()
                            .setListValue(ListValue.newBuilder().addValues(Value.newBuilder().setStringValue("x")))
                            .build())
                    .build())
            .setField(ORDER.findFieldByName("cash"), 300L)
            .build();
    assertEquals(
        "{\"id\":9007199254740993,\"big\":18446744073709551615,\"count\":4294967295,\"price\":12.5,"
            + "\"paid\":true,\"note\":\"a \\\"quoted\\\" note\",\"raw\":\"AQI=\",\"status\":\"PAID\","
            + "\"lines\":[{\"sku\":\"A-1\",\"qty\":2}],\"tags\":{\"7\":\"seven\"},"
            + "\"placed\":\"2026-12-07T11:15:30.250Z\",\"maybe\":5,\"took\":\"1.500s\","
            + "\"extra\":{\"a\":1.0,\"b\":null,\"c\":[\"x\"]},\"cash\":300}",
        decoded(framed(new byte[] {0}, order)));
  }

  @Test
  void unsetFieldsWithoutPresenceReadTheirDefaultsAndTheOthersAreLeftOut() throws Exception {
    DynamicMessage empty = DynamicMessage.newBuilder(ORDER).build();
    assertEquals(
        "{\"id\":0,\"big\":0,\"count\":0,\"price\":0.0,\"paid\":false,\"note\":\"\",\"raw\":\"\","
            + "\"status\":\"NEW\",\"lines\":[],\"tags\":{}}",
        decoded(framed(new byte[] {0}, empty)));
    DynamicMessage coupon = DynamicMessage.newBuilder(ORDER).setField(ORDER.findFieldByName("coupon"), "").build();
    assertEquals(true, decoded(framed(new byte[] {0}, coupon)).endsWith(",\"coupon\":\"\"}"));
  }

  @Test
  void theMessageIndexesAreReadPastInEachOfTheirFormsAndNegativeOnesDoNotRead() throws Exception {
    DynamicMessage order = DynamicMessage.newBuilder(ORDER).setField(ORDER.findFieldByName("id"), 1L).build();
    String expected = decoded(framed(new byte[] {0}, order));
    assertEquals(expected, decoded(framed(new byte[] {2, 0}, order))); // [0], written out: count 1, index 0
    // which message the indexes name is the query's to check: [1], [0, 0] and [70] read past alike
    assertEquals(expected, decoded(framed(new byte[] {2, 2}, order)));
    assertEquals(expected, decoded(framed(new byte[] {4, 0, 0}, order)));
    assertEquals(expected, decoded(framed(new byte[] {2, (byte) 0x8c, 1}, order))); // 140: two bytes
    assertNull(decoded(framed(new byte[] {1}, order))); // a count of -1
    assertNull(decoded(framed(new byte[] {2, 1}, order))); // an index of -1
  }

  @Test
  void bytesThatAreNoMessageReadNull() {
    assertNull(decoded(new byte[] {0, (byte) 0xff, (byte) 0xff, (byte) 0xff}));
    assertNull(decoded(null));
  }

  @Test
  void anUnknownEnumNumberIsWrittenAsItsNumber() throws Exception {
    byte[] body = {0, 0x40, 9}; // indexes [0]; field 8 (varint), value 9: no Status has it
    assertEquals(true, decoded(body).contains("\"status\":\"9\""));
  }

  @Test
  void durationsAreWrittenAsProtobufsJsonMappingWritesThem() {
    assertEquals("0s", ProtobufJson.duration(0, 0));
    assertEquals("1.500s", ProtobufJson.duration(1, 500_000_000));
    assertEquals("-1.000001s", ProtobufJson.duration(-1, -1_000));
    assertEquals("3.000000001s", ProtobufJson.duration(3, 1));
  }
}
