#include "portal/jhist.h"

#include <avro.h>

#include <cstdio>

namespace tony::portal {
namespace {

std::string Text(avro_value_t* value);

// A Metric array (TonY's TaskFinished.metrics): "MAX_MEMORY_BYTES=123 AVG_MEMORY_BYTES=45".
std::string Items(avro_value_t* value, const char* separator) {
  size_t size = 0;
  avro_value_get_size(value, &size);
  std::string out;
  for (size_t i = 0; i < size; ++i) {
    avro_value_t child;
    const char* name = nullptr;
    if (avro_value_get_by_index(value, i, &child, &name) != 0) continue;
    if (!out.empty()) out += separator;
    out += Text(&child);
  }
  return out;
}

std::string Number(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.15g", v);
  return text;
}

// A field's value as text: strings as they are, numbers in decimal, a record's fields joined
// ("MAX_MEMORY_BYTES=1.2e+08"), null as "".
std::string Text(avro_value_t* value) {
  switch (avro_value_get_type(value)) {
    case AVRO_STRING: {
      const char* s = nullptr;
      size_t size = 0;
      avro_value_get_string(value, &s, &size);
      return s == nullptr || size == 0 ? "" : std::string(s, size - 1);
    }
    case AVRO_INT32: {
      int32_t v = 0;
      avro_value_get_int(value, &v);
      return std::to_string(v);
    }
    case AVRO_INT64: {
      int64_t v = 0;
      avro_value_get_long(value, &v);
      return std::to_string(v);
    }
    case AVRO_DOUBLE: {
      double v = 0;
      avro_value_get_double(value, &v);
      return Number(v);
    }
    case AVRO_UNION: {
      avro_value_t branch;
      return avro_value_get_current_branch(value, &branch) == 0 ? Text(&branch) : "";
    }
    case AVRO_RECORD:
      return Items(value, "=");
    case AVRO_ARRAY:
      return Items(value, " ");
    default:
      return "";
  }
}

JobEvent EventOf(avro_value_t* record) {
  JobEvent event;
  avro_value_t field;
  if (avro_value_get_by_name(record, "timestamp", &field, nullptr) == 0) {
    avro_value_get_long(&field, &event.time_ms);
  }
  std::string type;
  int symbol = 0;
  if (avro_value_get_by_name(record, "type", &field, nullptr) == 0 &&
      avro_value_get_enum(&field, &symbol) == 0) {
    const char* name = avro_schema_enum_get(avro_value_get_schema(&field), symbol);
    type = name == nullptr ? "" : name;
  }
  avro_value_t body;
  if (avro_value_get_by_name(record, "event", &field, nullptr) != 0 ||
      avro_value_get_current_branch(&field, &body) != 0) {
    event.fields.emplace_back("job", type);
    return event;
  }
  std::vector<std::pair<std::string, std::string>> rest;
  std::string task_type, task_index, status;
  size_t size = 0;
  avro_value_get_size(&body, &size);
  for (size_t i = 0; i < size; ++i) {
    avro_value_t child;
    const char* name = nullptr;
    if (avro_value_get_by_index(&body, i, &child, &name) != 0 || name == nullptr) continue;
    std::string key = name;
    std::string text = Text(&child);
    if (key == "taskType")
      task_type = text;
    else if (key == "taskIndex")
      task_index = text;
    else if (key == "status")
      status = text;
    else if (!text.empty())
      rest.emplace_back(key, text);
  }
  if (task_type.empty()) {
    event.fields.emplace_back("job", type);
  } else {
    event.fields.emplace_back("task", task_type + ":" + task_index);
    event.fields.emplace_back("state", status.empty() ? "STARTED" : status);
  }
  event.fields.insert(event.fields.end(), rest.begin(), rest.end());
  return event;
}

}  // namespace

Result<std::vector<JobEvent>> ReadJhistEvents(const std::string& path) {
  avro_file_reader_t reader = nullptr;
  if (avro_file_reader(path.c_str(), &reader) != 0) {
    return InvalidArgument("cannot read TonY's events file " + path + ": " + avro_strerror());
  }
  avro_schema_t schema = avro_file_reader_get_writer_schema(reader);
  avro_value_iface_t* iface = avro_generic_class_from_schema(schema);
  std::vector<JobEvent> events;
  avro_value_t value;
  if (iface != nullptr && avro_generic_value_new(iface, &value) == 0) {
    // Non-zero at the end of the file, or at a block still being written: what came before stays.
    while (avro_file_reader_read_value(reader, &value) == 0) {
      events.push_back(EventOf(&value));
      avro_value_reset(&value);
    }
    avro_value_decref(&value);
  }
  if (iface != nullptr) avro_value_iface_decref(iface);
  avro_schema_decref(schema);
  avro_file_reader_close(reader);
  return events;
}

}  // namespace tony::portal
