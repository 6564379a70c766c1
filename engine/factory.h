// The one place that knows every engine's client face: `tony submit`, `tony status`, `tony kill`
// and `tony logs` get theirs from here (cli/main.cc), by name (engine/engine_name.h) or by the
// job's id (client/engine_face.h). client/ itself names no engine (docs/architecture.md §2).
#pragma once

#include "client/engine_face.h"

namespace tony::engine {

// The local engine's and the YARN engine's client faces.
client::EngineFaces ClientFaces();

}  // namespace tony::engine
