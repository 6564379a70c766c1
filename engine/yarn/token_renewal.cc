#include "engine/yarn/token_renewal.h"

#include <algorithm>
#include <chrono>

#include "common/clock.h"
#include "common/log.h"
#include "common/utc_time.h"
#include "hadoop/hdfs/namenode_client.h"
#include "hadoop/security/kerberos.h"

namespace tony::engine {
namespace {

namespace security = hadoop::security;

constexpr int64_t kFirstBackoffMs = 5'000;
constexpr int64_t kMaxBackoffMs = 300'000;

// Spark's HadoopDelegationTokenManager ratio: renew once 75% of the remaining life has passed.
int64_t RenewalTime(int64_t now_ms, int64_t expires_ms) {
  return now_ms + std::max<int64_t>(0, (expires_ms - now_ms) * 3 / 4);
}

std::string ShortName(const std::string& principal) {
  return principal.substr(0, principal.find_first_of("/@"));
}

}  // namespace

TokenRenewal::TokenRenewal(asio::io_context& io, TokenRenewalOptions options, OnRenewed on_renewed)
    : io_(io),
      options_(std::move(options)),
      on_renewed_(std::move(on_renewed)),
      work_(asio::make_work_guard(renew_io_)),
      timer_(renew_io_) {}

TokenRenewal::~TokenRenewal() {
  *alive_ = false;
  renew_io_.stop();
  if (thread_.joinable()) thread_.join();
}

void TokenRenewal::Start() {
  auto id = security::DecodeDelegationTokenIdentifier(options_.token);
  const int64_t now = SystemClock().WallMs();
  if (!id.ok() || id->max_date_ms <= 0) {
    TONY_LOG(kError) << "HDFS delegation token renewal: cannot read the end of the "
                     << options_.token.kind << " for " << options_.token.service << " ("
                     << (id.ok() ? std::string("no maximum date") : id.status().message())
                     << "); getting a new one now";
    expires_ms_ = now;
  } else {
    expires_ms_ = id->max_date_ms;
  }
  TONY_LOG(kInfo) << "HDFS delegation tokens: the " << options_.token.kind << " for "
                  << options_.token.service << " reaches its maximum lifetime at "
                  << UtcTime(expires_ms_) << "; a new one from the keytab of " << options_.principal
                  << " at " << UtcTime(RenewalTime(now, expires_ms_));
  asio::post(renew_io_, [this, now] { ScheduleAt(RenewalTime(now, expires_ms_)); });
  thread_ = std::thread([this] { renew_io_.run(); });
}

void TokenRenewal::ScheduleAt(int64_t wall_ms) {
  const int64_t delay = std::max<int64_t>(0, wall_ms - SystemClock().WallMs());
  timer_.expires_after(std::chrono::milliseconds(delay));
  timer_.async_wait([this](const std::error_code& ec) {
    if (!ec) RenewNow();
  });
}

void TokenRenewal::RenewNow() {
  auto fresh = GetNewToken();
  const int64_t now = SystemClock().WallMs();
  if (!fresh.ok()) {
    backoff_ms_ = backoff_ms_ == 0 ? kFirstBackoffMs : std::min(backoff_ms_ * 2, kMaxBackoffMs);
    TONY_LOG(kError) << "HDFS delegation token renewal FAILED: " << fresh.status().ToString()
                     << "; the tasks' " << options_.token.kind << " for " << options_.token.service
                     << (expires_ms_ > now ? " dies at " : " died at ") << UtcTime(expires_ms_)
                     << "; trying again in " << backoff_ms_ / 1000 << " s";
    ScheduleAt(now + backoff_ms_);
    return;
  }
  backoff_ms_ = 0;
  expires_ms_ = fresh->expires_ms;
  const int64_t next = RenewalTime(now, expires_ms_);
  TONY_LOG(kInfo) << "HDFS delegation token renewed: a new " << fresh->token.kind << " for "
                  << fresh->token.service << " from the keytab of " << options_.principal
                  << ", valid until " << UtcTime(expires_ms_) << "; the next at " << UtcTime(next);
  asio::post(io_, [this, alive = std::weak_ptr<bool>(alive_), token = fresh->token] {
    auto held = alive.lock();
    if (held && *held) on_renewed_(options_.alias, token);
  });
  ScheduleAt(next);
}

Result<TokenRenewal::NewToken> TokenRenewal::GetNewToken() {
  TONY_ASSIGN_OR_RETURN(
      auto login, security::MemoryTicketCache::FromKeytab(options_.principal, options_.keytab));
  // libcurl's SPNEGO takes this thread's default cache: the login's own.
  TONY_RETURN_IF_ERROR(login->UseOnThisThread());
  const std::string user = ShortName(options_.principal);
  hadoop::hdfs::WebHdfs fs(options_.namenode_http, user, options_.web);
  fs.UseSpnego();
  TONY_ASSIGN_OR_RETURN(security::Token token, hadoop::hdfs::GetDefaultFsDelegationToken(
                                                   fs, user, options_.token.service));
  TONY_ASSIGN_OR_RETURN(int64_t renewed_until,
                        fs.RenewDelegationToken(security::EncodeTokenUrlString(token)));
  int64_t expires = renewed_until;
  if (auto id = security::DecodeDelegationTokenIdentifier(token); id.ok() && id->max_date_ms > 0) {
    expires = std::min(expires, id->max_date_ms);
  }
  return NewToken{std::move(token), expires};
}

}  // namespace tony::engine
