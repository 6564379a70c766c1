#include "engine/fake_engine.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace tony::engine {

FakeEngine::FakeEngine(asio::io_context& io, FakeEngineOptions options)
    : io_(io), options_(std::move(options)) {}

void FakeEngine::Changed(const std::function<void(FakeEngineRecord&)>& change) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    change(record_);
  }
  changed_.notify_all();
}

Status FakeEngine::Start(EngineListener* listener, const CoordinatorAddress& coordinator) {
  listener_ = listener;
  Changed([&](FakeEngineRecord& r) {
    r.started = true;
    r.coordinator = coordinator;
  });
  return options_.start_status;
}

void FakeEngine::RequestContainers(const ContainerRequest& request) {
  std::vector<std::string> ids;
  ids.reserve(static_cast<size_t>(std::max(0, request.count)));
  for (int i = 0; i < request.count; ++i) {
    ids.push_back("container_fake_" + std::to_string(next_container_++));
  }
  Changed([&](FakeEngineRecord& r) {
    r.requests.push_back(request);
    for (const std::string& id : ids) r.container_roles[id] = request.role;
  });
  if (!options_.allocate_on_request) return;
  // Posted: the coordinator is still handling the event that asked.
  for (const std::string& id : ids) {
    asio::post(io_, [this, id, role = request.role] {
      listener_->OnContainerAllocated(id, role, "127.0.0.1");
    });
  }
}

Status FakeEngine::Launch(const LaunchSpec& spec) {
  Changed([&](FakeEngineRecord& r) { r.launches.push_back(spec); });
  if (!options_.fail_launch_role.empty() && spec.role == options_.fail_launch_role) {
    return Unavailable("fake engine: launches of role " + spec.role + " fail");
  }
  return Status::Ok();
}

void FakeEngine::Stop(const std::string& container_id, int64_t /*grace_ms*/) {
  Changed([&](FakeEngineRecord& r) { r.stopped.push_back(container_id); });
  if (options_.complete_on_stop) Complete(container_id, 143, "executor killed by signal 15");
}

void FakeEngine::Release(const std::string& container_id) {
  Changed([&](FakeEngineRecord& r) { r.released.push_back(container_id); });
}

void FakeEngine::Shutdown(rpc::FinalStatus status, const std::string& message) {
  Changed([&](FakeEngineRecord& r) {
    ++r.shutdowns;
    r.final_status = status;
    r.final_message = message;
  });
}

FakeEngineRecord FakeEngine::Record() const {
  std::lock_guard<std::mutex> lock(mu_);
  return record_;
}

bool FakeEngine::WaitFor(const std::function<bool(const FakeEngineRecord&)>& done,
                         int timeout_ms) const {
  std::unique_lock<std::mutex> lock(mu_);
  return changed_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                           [&] { return done(record_); });
}

void FakeEngine::Complete(const std::string& container_id, int exit_code,
                          const std::string& diagnostics) {
  asio::post(io_, [this, container_id, exit_code, diagnostics] {
    ContainerEnd end;
    end.exit_code = exit_code;
    end.diagnostics = diagnostics;
    listener_->OnContainerCompleted(container_id, end);
  });
}

}  // namespace tony::engine
