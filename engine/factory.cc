#include "engine/factory.h"

#include <memory>
#include <utility>
#include <vector>

#include "engine/local/client/local_submit.h"
#include "engine/yarn/client/yarn_face.h"

namespace tony::engine {

client::EngineFaces ClientFaces() {
  std::vector<std::unique_ptr<client::EngineClientFace>> faces;
  faces.push_back(client::MakeLocalClientFace());
  faces.push_back(client::MakeYarnClientFace());
  return client::EngineFaces(std::move(faces));
}

}  // namespace tony::engine
