#include "config/xml.h"

#include <algorithm>
#include <cstring>
#include <pugixml.hpp>
#include <sstream>

#include "common/strings.h"

namespace tony::config_internal {
namespace {

int LineAt(const std::string& xml, ptrdiff_t offset) {
  if (offset < 0) return 0;
  size_t end = std::min(static_cast<size_t>(offset), xml.size());
  return 1 + static_cast<int>(std::count(xml.begin(), xml.begin() + end, '\n'));
}

std::string Where(const std::string& source, int line) {
  return line > 0 ? source + ":" + std::to_string(line) : source;
}

// Reads one <property>; `has_value` is false when it has no value at all (Hadoop skips those).
Status ReadProperty(const pugi::xml_node& node, const std::string& xml, XmlProperty& prop,
                    bool& has_value) {
  prop.line = LineAt(xml, node.offset_debug());
  has_value = false;
  bool has_name = false;
  if (pugi::xml_attribute a = node.attribute("name")) {
    prop.name = std::string(Trim(a.value()));
    has_name = true;
  }
  if (pugi::xml_attribute a = node.attribute("value")) {
    prop.value = a.value();
    has_value = true;
  }
  if (pugi::xml_attribute a = node.attribute("final")) {
    prop.final = ParseBool(a.value()).value_or(false);
  }
  for (pugi::xml_node child = node.first_child(); child; child = child.next_sibling()) {
    if (child.type() != pugi::node_element) continue;
    const char* tag = child.name();
    if (std::strcmp(tag, "name") == 0) {
      prop.name = std::string(Trim(child.child_value()));
      has_name = true;
    } else if (std::strcmp(tag, "value") == 0) {
      prop.value = child.child_value();
      has_value = true;
    } else if (std::strcmp(tag, "final") == 0) {
      prop.final = ParseBool(child.child_value()).value_or(false);
    } else if (std::strcmp(tag, "source") == 0) {
      prop.source = std::string(Trim(child.child_value()));
    }
  }
  if (!has_name) prop.name.clear();  // kept, nameless: Configuration skips it with a warning
  return Status::Ok();
}

struct StringWriter : pugi::xml_writer {
  std::string out;
  void write(const void* data, size_t size) override {
    out.append(static_cast<const char*>(data), size);
  }
};

}  // namespace

Result<std::vector<XmlProperty>> ParseHadoopXml(const std::string& xml, const std::string& source) {
  pugi::xml_document doc;
  // parse_ws_pcdata_single keeps a whitespace-only <value> as written.
  pugi::xml_parse_result parsed =
      doc.load_buffer(xml.data(), xml.size(), pugi::parse_default | pugi::parse_ws_pcdata_single,
                      pugi::encoding_utf8);
  if (!parsed) {
    return InvalidArgument(Where(source, LineAt(xml, parsed.offset)) +
                           ": malformed XML: " + parsed.description());
  }
  pugi::xml_node root = doc.document_element();
  if (std::strcmp(root.name(), "configuration") != 0) {
    return InvalidArgument(Where(source, LineAt(xml, root.offset_debug())) +
                           ": expected a <configuration> root element, found <" + root.name() +
                           ">");
  }
  std::vector<XmlProperty> props;
  for (pugi::xml_node node = root.child("property"); node; node = node.next_sibling("property")) {
    XmlProperty prop;
    bool has_value = false;
    TONY_RETURN_IF_ERROR(ReadProperty(node, xml, prop, has_value));
    if (has_value || prop.name.empty()) props.push_back(std::move(prop));
  }
  return props;
}

std::string WriteHadoopXml(const std::vector<XmlProperty>& props) {
  pugi::xml_document doc;
  pugi::xml_node decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  pugi::xml_node root = doc.append_child("configuration");
  for (const XmlProperty& p : props) {
    pugi::xml_node node = root.append_child("property");
    node.append_child("name").text().set(p.name.c_str());
    node.append_child("value").text().set(p.value.c_str());
    if (p.final) node.append_child("final").text().set("true");
    if (!p.source.empty()) node.append_child("source").text().set(p.source.c_str());
  }
  StringWriter writer;
  doc.save(writer, "  ", pugi::format_default, pugi::encoding_utf8);
  return writer.out;
}

}  // namespace tony::config_internal
