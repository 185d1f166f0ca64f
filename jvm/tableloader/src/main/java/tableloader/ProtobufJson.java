package tableloader;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.io.IOException;
import java.io.StringWriter;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Protobuf records as the loader reads them ({@link ProtobufRows} makes the rows): the framing's message
 * indexes, a schema's message from its files, and a message as JSON text, for the columns that hold JSON
 * (a {@code Struct}, {@code Value}, {@code ListValue}, {@code FieldMask}, {@code Empty} or {@code Any}, a
 * message that contains itself where it recurs; the loader's {@code loader.reading.value_formats.
 * protobuf_tables} decides which).
 *
 * <p>The JSON: fields by their {@code .proto} names; a field without presence (a proto3 scalar, a repeated
 * field, a map) always, its default when unset; a field with presence (a message, a {@code optional} or
 * {@code oneof} member) only when set. 64-bit integers as numbers ({@code uint64} and {@code fixed64}
 * unsigned: protobuf-java's own {@code JsonFormat} writes them as strings), enums by name (a number the
 * schema does not name by its number), bytes in base64, map keys as text; a {@code Timestamp} as RFC 3339
 * text, a wrapper as its value, a {@code Duration} as Protobuf's JSON mapping writes it, an {@code Any} as
 * its type URL and base64 value (its message's type is not known here).
 */
public final class ProtobufJson {
  private static final JsonFactory JSON = new JsonFactory();
  static final Set<String> WRAPPERS =
      Set.of(
          "google.protobuf.DoubleValue",
          "google.protobuf.FloatValue",
          "google.protobuf.Int64Value",
          "google.protobuf.UInt64Value",
          "google.protobuf.Int32Value",
          "google.protobuf.UInt32Value",
          "google.protobuf.BoolValue",
          "google.protobuf.StringValue",
          "google.protobuf.BytesValue");
  /** The well-known types a column holds as their Protobuf JSON. */
  static final Set<String> JSON_TEXT =
      Set.of(
          "google.protobuf.Struct",
          "google.protobuf.Value",
          "google.protobuf.ListValue",
          "google.protobuf.FieldMask",
          "google.protobuf.Empty",
          "google.protobuf.Any");

  private ProtobufJson() {}

  /**
   * The record in the bytes after the 5-byte header (its message indexes, then the message) when it is a
   * message of {@code type}, the file's first; null otherwise (bytes that do not parse, or message
   * indexes naming another message of the file).
   */
  static DynamicMessage record(byte[] body, Descriptor type) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(body);
      return skipMessageIndexes(in) ? DynamicMessage.parseFrom(type, in) : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** A message as JSON text. */
  static String json(Message message) {
    StringWriter out = new StringWriter(256);
    try (JsonGenerator json = JSON.createGenerator(out)) {
      writeMessage(json, message);
    } catch (IOException e) {
      throw new IllegalStateException("JSON into a string failed", e); // a StringWriter does not fail
    }
    return out.toString();
  }

  /**
   * Reads past the message indexes of Confluent's framing ({@code [0]} in its short form, a zero); false
   * when they do not read. Which message they name is the loader's query's to decide: a record reaches
   * the decoder of its message only (by its writer schema id and indexes, in its writer's file).
   */
  static boolean skipMessageIndexes(CodedInputStream in) throws IOException {
    int count = in.readSInt32();
    if (count < 0) {
      return false;
    }
    for (int i = 0; i < count; i++) {
      if (in.readSInt32() < 0) {
        return false;
      }
    }
    return true;
  }

  /** The message named, in the files of a base64 {@code FileDescriptorSet}, imports first. */
  static Descriptor message(String descriptorSet, String messageName) {
    try {
      FileDescriptorSet set = FileDescriptorSet.parseFrom(Base64.getDecoder().decode(descriptorSet));
      Map<String, FileDescriptor> built = new HashMap<>();
      FileDescriptor last = null;
      for (FileDescriptorProto file : set.getFileList()) {
        FileDescriptor[] imports =
            file.getDependencyList().stream().map(built::get).toArray(FileDescriptor[]::new);
        last = FileDescriptor.buildFrom(file, imports);
        built.put(file.getName(), last);
      }
      for (FileDescriptor file : built.values()) {
        for (Descriptor candidate : file.getMessageTypes()) {
          Descriptor found = find(candidate, messageName);
          if (found != null) {
            return found;
          }
        }
      }
      throw new IllegalArgumentException("no message " + messageName + " in the schema's files");
    } catch (InvalidProtocolBufferException | DescriptorValidationException e) {
      throw new IllegalArgumentException("the schema's files do not read: " + e.getMessage(), e);
    }
  }

  private static Descriptor find(Descriptor message, String name) {
    if (message.getFullName().equals(name)) {
      return message;
    }
    for (Descriptor nested : message.getNestedTypes()) {
      Descriptor found = find(nested, name);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  static void writeMessage(JsonGenerator json, Message message) throws IOException {
    json.writeStartObject();
    for (FieldDescriptor field : message.getDescriptorForType().getFields()) {
      if (field.hasPresence() && !message.hasField(field)) {
        continue; // unset: the column reads NULL
      }
      json.writeFieldName(field.getName());
      Object value = message.getField(field);
      if (field.isMapField()) {
        json.writeStartObject();
        for (Object entry : (List<?>) value) {
          Message pair = (Message) entry;
          FieldDescriptor key = pair.getDescriptorForType().findFieldByNumber(1);
          FieldDescriptor item = pair.getDescriptorForType().findFieldByNumber(2);
          json.writeFieldName(keyText(key, pair.getField(key)));
          writeValue(json, item, pair.getField(item));
        }
        json.writeEndObject();
      } else if (field.isRepeated()) {
        json.writeStartArray();
        for (Object item : (List<?>) value) {
          writeValue(json, field, item);
        }
        json.writeEndArray();
      } else {
        writeValue(json, field, value);
      }
    }
    json.writeEndObject();
  }

  /** A map key as text, as Protobuf's JSON mapping writes it (unsigned integers unsigned). */
  static String keyText(FieldDescriptor key, Object value) {
    switch (key.getType()) {
      case UINT32:
      case FIXED32:
        return Integer.toUnsignedString((Integer) value);
      case UINT64:
      case FIXED64:
        return Long.toUnsignedString((Long) value);
      default:
        return String.valueOf(value);
    }
  }

  private static void writeValue(JsonGenerator json, FieldDescriptor field, Object value)
      throws IOException {
    switch (field.getType()) {
      case DOUBLE:
        json.writeNumber((Double) value);
        break;
      case FLOAT:
        json.writeNumber((Float) value);
        break;
      case INT64:
      case SINT64:
      case SFIXED64:
        json.writeNumber((Long) value);
        break;
      case UINT64:
      case FIXED64:
        json.writeNumber(Long.toUnsignedString((Long) value)); // unquoted: read into decimal(20,0)
        break;
      case INT32:
      case SINT32:
      case SFIXED32:
        json.writeNumber((Integer) value);
        break;
      case UINT32:
      case FIXED32:
        json.writeNumber(Integer.toUnsignedLong((Integer) value));
        break;
      case BOOL:
        json.writeBoolean((Boolean) value);
        break;
      case STRING:
        json.writeString((String) value);
        break;
      case BYTES:
        json.writeString(Base64.getEncoder().encodeToString(((ByteString) value).toByteArray()));
        break;
      case ENUM:
        EnumValueDescriptor symbol = (EnumValueDescriptor) value;
        if (symbol.getType().findValueByNumber(symbol.getNumber()) == null) {
          json.writeString(String.valueOf(symbol.getNumber())); // a number the schema does not name
        } else {
          json.writeString(symbol.getName());
        }
        break;
      default:
        writeNested(json, (Message) value);
    }
  }

  private static void writeNested(JsonGenerator json, Message message) throws IOException {
    Descriptor type = message.getDescriptorForType();
    switch (type.getFullName()) {
      case "google.protobuf.Timestamp":
        json.writeString(Instant.ofEpochSecond(longField(message, 1), intField(message, 2)).toString());
        break;
      case "google.protobuf.Duration":
        json.writeString(duration(longField(message, 1), intField(message, 2)));
        break;
      case "google.protobuf.Struct":
      case "google.protobuf.Value":
      case "google.protobuf.ListValue":
      case "google.protobuf.FieldMask":
      case "google.protobuf.Empty":
      case "google.protobuf.Any":
        json.writeRawValue(jsonText(message)); // the column holds the JSON as text
        break;
      default:
        if (WRAPPERS.contains(type.getFullName())) {
          FieldDescriptor inner = type.findFieldByNumber(1);
          writeValue(json, inner, message.getField(inner));
        } else {
          writeMessage(json, message);
        }
    }
  }

  private static long longField(Message message, int number) {
    return (Long) message.getField(message.getDescriptorForType().findFieldByNumber(number));
  }

  private static int intField(Message message, int number) {
    return (Integer) message.getField(message.getDescriptorForType().findFieldByNumber(number));
  }

  /** A {@code Duration} as Protobuf's JSON mapping writes it: seconds with 0, 3, 6 or 9 decimals. */
  static String duration(long seconds, int nanos) {
    boolean negative = seconds < 0 || nanos < 0;
    String whole = Long.toString(Math.abs(seconds));
    int fraction = Math.abs(nanos);
    String decimals = "";
    if (fraction != 0) {
      decimals = String.format("%09d", fraction);
      decimals = "." + decimals.replaceAll("(000)+$", "");
    }
    return (negative ? "-" : "") + whole + decimals + "s";
  }

  /** {@code Struct}, {@code Value}, {@code ListValue}, {@code FieldMask}, {@code Empty} and {@code Any}
   * as the JSON text a column holds: as Protobuf's JSON mapping writes the first five; an {@code Any}
   * as its type URL and base64 value (its message's type is not known here). */
  static String jsonText(Message message) throws IOException {
    StringWriter out = new StringWriter();
    try (JsonGenerator json = JSON.createGenerator(out)) {
      writeJsonValue(json, message);
    }
    return out.toString();
  }

  private static void writeJsonValue(JsonGenerator json, Message message) throws IOException {
    Descriptor type = message.getDescriptorForType();
    switch (type.getFullName()) {
      case "google.protobuf.Struct":
        json.writeStartObject();
        for (Object entry : (List<?>) message.getField(type.findFieldByNumber(1))) {
          Message pair = (Message) entry;
          Descriptor pairType = pair.getDescriptorForType();
          json.writeFieldName((String) pair.getField(pairType.findFieldByNumber(1)));
          writeJsonValue(json, (Message) pair.getField(pairType.findFieldByNumber(2)));
        }
        json.writeEndObject();
        break;
      case "google.protobuf.ListValue":
        json.writeStartArray();
        for (Object item : (List<?>) message.getField(type.findFieldByNumber(1))) {
          writeJsonValue(json, (Message) item);
        }
        json.writeEndArray();
        break;
      case "google.protobuf.Value":
        FieldDescriptor kind = message.getOneofFieldDescriptor(type.getOneofs().get(0));
        if (kind == null || kind.getNumber() == 1) {
          json.writeNull();
        } else if (kind.getNumber() == 2) {
          json.writeNumber((Double) message.getField(kind));
        } else if (kind.getNumber() == 3) {
          json.writeString((String) message.getField(kind));
        } else if (kind.getNumber() == 4) {
          json.writeBoolean((Boolean) message.getField(kind));
        } else {
          writeJsonValue(json, (Message) message.getField(kind));
        }
        break;
      case "google.protobuf.FieldMask":
        List<?> paths = (List<?>) message.getField(type.findFieldByNumber(1));
        json.writeString(String.join(",", paths.stream().map(String::valueOf).toList()));
        break;
      case "google.protobuf.Any":
        json.writeStartObject();
        json.writeStringField("type_url", (String) message.getField(type.findFieldByNumber(1)));
        ByteString bytes = (ByteString) message.getField(type.findFieldByNumber(2));
        json.writeStringField("value", Base64.getEncoder().encodeToString(bytes.toByteArray()));
        json.writeEndObject();
        break;
      default: // Empty
        json.writeStartObject();
        json.writeEndObject();
    }
  }
}
