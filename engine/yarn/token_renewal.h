// New HDFS delegation tokens for a job that outlives its tokens' maximum lifetime (issue 9), the
// way Spark's driver gets them with a keytab: the AM logs in from the keytab the client shipped
// (engine/yarn_contract.h kKeytabAlias), asks the staging file system for a new token at 75% of
// the current one's remaining life, and hands it to the loop, which gives it to the executors
// (their heartbeat replies) and to the containers launched from then on.
//
// A new token's renewer is the keytab's own user, and the AM renews it once at once, as Spark
// does, to learn when it expires without renewal: nobody else renews it, so its life is the
// smaller of that expiry (dfs.namenode.delegation.token.renew-interval after the renewal) and its
// maximum date (dfs.namenode.delegation.token.max-lifetime after its issue). The first token's
// life is its maximum date: the ResourceManager renews it until then.
// A failure is logged as an error naming the token's end and retried with a doubling backoff
// (5 s to 5 min), never past the current token's end without a word.
// Only the default file system's token is renewed; tokens of tony.other.namenodes are not.
//
// Ownership: owned by the YarnEngine. Threading: constructed, started and destroyed on the
// engine's loop; the login and the WebHDFS calls run on a thread of its own, and `on_renewed`
// runs on the loop.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/status.h"
#include "hadoop/hdfs/webhdfs.h"
#include "hadoop/security/credentials.h"

namespace tony::engine {

struct TokenRenewalOptions {
  std::string principal;  // the keytab's principal, "alice@EXAMPLE.COM"
  std::string keytab;     // a keytab name MIT's library reads (hadoop::security::KeytabInMemory)
  std::string namenode_http;  // the staging NameNode(s), host:port, comma-separated (WebHDFS)
  hadoop::hdfs::WebHdfsOptions web;
  std::string alias;              // the alias of the token in the tasks' credentials
  hadoop::security::Token token;  // the token the client got (its service names the new ones)
};

class TokenRenewal {
 public:
  using OnRenewed = std::function<void(const std::string& alias, const hadoop::security::Token&)>;

  TokenRenewal(asio::io_context& io, TokenRenewalOptions options, OnRenewed on_renewed);
  ~TokenRenewal();  // stops the thread (after a login or call under way, bounded by its timeouts)
  TokenRenewal(const TokenRenewal&) = delete;
  TokenRenewal& operator=(const TokenRenewal&) = delete;

  void Start();

 private:
  struct NewToken {
    hadoop::security::Token token;
    int64_t expires_ms;  // the wall time it dies at without renewal
  };
  // On the renewal thread.
  void ScheduleAt(int64_t wall_ms);
  void RenewNow();
  Result<NewToken> GetNewToken();

  asio::io_context& io_;
  TokenRenewalOptions options_;
  OnRenewed on_renewed_;
  int64_t expires_ms_ = 0;  // when the token the tasks hold now dies
  int64_t backoff_ms_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // for results posted to io_
  asio::io_context renew_io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  asio::steady_timer timer_;
  std::thread thread_;
};

}  // namespace tony::engine
