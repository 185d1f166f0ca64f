package tableloader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static tableloader.ProtobufJsonTest.FILES;
import static tableloader.ProtobufJsonTest.ORDER;
import static tableloader.ProtobufJsonTest.framed;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Duration;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Int64Value;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.Value;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** The rows of ProtobufJsonTest's records, on the columns the loader's Protobuf mapping gives them. */
class ProtobufRowsTest {
  static final StructType ROW =
      StructType.fromDDL(
          "id BIGINT, big DECIMAL(20,0), count BIGINT, price DOUBLE, paid BOOLEAN, note STRING, raw BINARY, "
              + "status STRING, lines ARRAY<STRUCT<sku: STRING, qty: INT>>, tags MAP<STRING, STRING>, "
              + "placed TIMESTAMP, maybe BIGINT, took STRING, extra STRING, card STRING, cash BIGINT, "
              + "coupon STRING, gone STRING");
  static final ProtobufRows DECODER = new ProtobufRows(FILES, "shop.Order", ROW);

  @Test
  void everyKindOfFieldFillsItsColumn() throws Exception {
    Descriptor line = ORDER.findNestedTypeByName("Line");
    Descriptor entry = ORDER.findNestedTypeByName("TagsEntry");
    DynamicMessage order =
        DynamicMessage.newBuilder(ORDER)
            .setField(ORDER.findFieldByName("id"), 9_007_199_254_740_993L)
            .setField(ORDER.findFieldByName("big"), -1L)
            .setField(ORDER.findFieldByName("count"), -1)
            .setField(ORDER.findFieldByName("raw"), ByteString.copyFrom(new byte[] {1, 2}))
            .setField(ORDER.findFieldByName("status"), ORDER.findEnumTypeByName("Status").findValueByName("PAID"))
            .addRepeatedField(
                ORDER.findFieldByName("lines"),
                DynamicMessage.newBuilder(line).setField(line.findFieldByName("sku"), "A-1").build())
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
                Struct.newBuilder().putFields("a", Value.newBuilder().setNumberValue(1).build()).build())
            .setField(ORDER.findFieldByName("cash"), 300L)
            .build();
    Row row = DECODER.call(framed(new byte[] {0}, order));
    assertEquals(9_007_199_254_740_993L, row.get(0));
    assertEquals(new BigDecimal("18446744073709551615"), row.get(1));
    assertEquals(4_294_967_295L, row.get(2));
    assertEquals(0.0, row.get(3));
    assertEquals(false, row.get(4));
    assertEquals("", row.get(5));
    assertEquals(List.of((byte) 1, (byte) 2), List.of(((byte[]) row.get(6))[0], ((byte[]) row.get(6))[1]));
    assertEquals("PAID", row.get(7));
    Row firstLine = (Row) ((List<?>) row.get(8)).get(0);
    assertEquals(List.of("A-1", 0), List.of(firstLine.get(0), firstLine.get(1)));
    assertEquals(Map.of("7", "seven"), row.get(9));
    assertEquals(java.sql.Timestamp.from(java.time.Instant.parse("2026-12-07T11:15:30.250Z")), row.get(10));
    assertEquals(5L, row.get(11));
    assertEquals("1.500s", row.get(12));
    assertEquals("{\"a\":1.0}", row.get(13));
    assertNull(row.get(14)); // the oneof's other member
    assertEquals(300L, row.get(15));
    assertNull(row.get(16)); // an optional field not set
    assertNull(row.get(17)); // a column of no field of this version
  }

  @Test
  void aDecoderSentToATaskDecodesThere() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(DECODER);
    }
    ProtobufRows sent;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      sent = (ProtobufRows) in.readObject();
    }
    DynamicMessage order = DynamicMessage.newBuilder(ORDER).setField(ORDER.findFieldByName("id"), 7L).build();
    assertEquals(7L, sent.call(framed(new byte[] {0}, order)).get(0));
  }

  @Test
  void bytesThatAreNoMessageOrIndexesThatDoNotReadAreNull() throws Exception {
    DynamicMessage order = DynamicMessage.newBuilder(ORDER).setField(ORDER.findFieldByName("id"), 1L).build();
    assertNull(DECODER.call(framed(new byte[] {3}, order))); // a count of -2
    assertNull(DECODER.call(new byte[] {0, (byte) 0xff, (byte) 0xff, (byte) 0xff}));
    assertNull(DECODER.call(null));
  }
}
