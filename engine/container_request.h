// ContainerRequest: what the coordinator's policy asks an engine for (coordinator/core emits it,
// every engine takes it). A header of its own so that the pure core needs no engine library.
#pragma once

#include <cstdint>
#include <string>

namespace tony::engine {

// `count` containers for `role`, each of this size (TonY's tony.<role>.memory/vcores/gpus).
struct ContainerRequest {
  std::string role;
  int count = 0;
  int64_t memory_mb = 0;
  int vcores = 0;
  int gpus = 0;
};

}  // namespace tony::engine
