// The local engine's half of `tony am` (am_main.h).
#include "common/files.h"
#include "coordinator/am_main.h"
#include "engine/local/local_engine.h"

namespace tony {

Result<EngineSetup> SetUpLocalEngine(const AmInputs& inputs, CoordinatorOptions defaults) {
  EngineSetup setup;
  setup.options = std::move(defaults);
  auto self = SelfExecutable();
  setup.options.tony_binary = self.ok() ? *self : "tony";
  engine::MachineCapacity capacity = engine::DetectCapacity(inputs.spec);
  setup.make_engine = [gpus = std::move(capacity.gpu_ids)](asio::io_context& io) {
    return std::make_unique<engine::LocalEngine>(io, gpus);
  };
  return setup;
}

}  // namespace tony
