// Reading and writing Hadoop configuration XML, the format of tony.xml, tony-site.xml and
// tony-final.xml:
//
//   <?xml version="1.0" encoding="UTF-8"?>
//   <configuration>
//     <property>
//       <name>tony.worker.instances</name>   (trimmed)
//       <value>2</value>                     (kept exactly; a property without it is skipped,
//                                             as Hadoop does)
//       <final>true</final>                  (optional)
//       <source>/home/me/tony.xml</source>   (optional; Hadoop writes one per layer, the last
//                                             one is where the value was set)
//     </property>
//   </configuration>
//
// The attribute form <property name=".." value=".." final=".."/> is read too. Elements other
// than <property> are ignored, as Hadoop ignores them with a warning.
// Internal to config/; Configuration is the public interface.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace tony::config_internal {

struct XmlProperty {
  std::string name;
  std::string value;
  bool final = false;
  std::string source;  // empty when the file had no <source>
  int line = 0;
};

// Errors read "<source>:<line>: malformed XML: <what>" or "<source>:<line>: <property> ...".
// A <property> without a (non-empty) <name> comes back with an empty name, for the caller to skip
// with a warning, as Hadoop's Configuration does.
Result<std::vector<XmlProperty>> ParseHadoopXml(const std::string& xml, const std::string& source);

// Hadoop XML for `props`, in the given order. ParseHadoopXml reads it back unchanged.
std::string WriteHadoopXml(const std::vector<XmlProperty>& props);

}  // namespace tony::config_internal
