// The engines a job can run on, and the one place that maps a name (`tony submit --engine`,
// `tony am --engine`) to one. The client's faces (engine/factory.h) and the AM's start-up
// (coordinator/am_main.h) both pick their engine through it (docs/architecture.md §2).
// Thread-safety: plain functions.
#pragma once

#include <optional>
#include <string_view>

namespace tony::engine {

enum class EngineKind { kLocal, kYarn };

inline constexpr char kLocalEngineName[] = "local";
inline constexpr char kYarnEngineName[] = "yarn";

// The engine `name` names: "local" or "yarn"; nullopt for any other name.
inline std::optional<EngineKind> ParseEngineName(std::string_view name) {
  if (name == kLocalEngineName) return EngineKind::kLocal;
  if (name == kYarnEngineName) return EngineKind::kYarn;
  return std::nullopt;
}

inline const char* EngineName(EngineKind kind) {
  return kind == EngineKind::kYarn ? kYarnEngineName : kLocalEngineName;
}

}  // namespace tony::engine
