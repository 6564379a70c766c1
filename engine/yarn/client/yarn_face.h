// The YARN engine's client face (client/engine_face.h): `tony submit` to a YARN cluster
// (yarn_submit.h) and what the cluster says of an application id (yarn_view.h, yarn_cluster.h).
#pragma once

#include <memory>

#include "client/engine_face.h"

namespace tony::client {

std::unique_ptr<EngineClientFace> MakeYarnClientFace();

}  // namespace tony::client
