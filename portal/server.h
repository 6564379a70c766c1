// `tony portal`: serves the pages of portal/pages.h over HTTP with cpp-httplib (Debian's
// libcpp-httplib-dev), reading the job records afresh at every request, so a running job's page
// shows what its coordinator last wrote. It binds 127.0.0.1 unless told otherwise: the pages show
// every job of this $TONY_HOME, logs included, to whoever can connect.
//
// Thread-safety: the handlers share nothing but the constant options; httplib runs them on its
// thread pool.
#pragma once

#include <functional>
#include <string>

#include "common/status.h"
#include "portal/job_records.h"

namespace tony::portal {

struct PortalOptions {
  std::string bind = "127.0.0.1";
  int port = 8080;  // 0: any free port
  PortalSources sources;
  int refresh_s = 5;               // how often a running job's page reloads itself
  size_t max_log_bytes = 1 << 20;  // a log page shows the end of the file, at most this much
};

// Binds, calls `on_listening` with the URL it serves on, and serves until SIGINT or SIGTERM.
// An error names the address and port it could not bind, or the history dir that is not one.
Status RunPortal(const PortalOptions& options,
                 const std::function<void(const std::string& url)>& on_listening);

}  // namespace tony::portal
