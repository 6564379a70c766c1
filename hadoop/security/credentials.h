// Hadoop delegation tokens and the credentials ("token storage") file (docs/hadoop-ipc.md §3).
//
// The NodeManager writes every container's tokens to $HADOOP_TOKEN_FILE_LOCATION, always in the
// Writable format (format 0); ContainerLaunchContextProto.tokens carries the same bytes. Both
// formats are read; either can be written.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace tony::hadoop::security {

// hadoop.common.TokenProto / org.apache.hadoop.security.token.Token (§3).
struct Token {
  std::string identifier;  // opaque bytes (a serialized *TokenIdentifierProto for YARN)
  std::string password;    // opaque bytes
  std::string kind;        // e.g. "YARN_AM_RM_TOKEN", "NMToken"
  std::string service;     // usually "host:port"; empty for the AMRMToken

  friend bool operator==(const Token&, const Token&) = default;
};

// Token kinds used by YARN and HDFS (§3).
inline constexpr std::string_view kAmRmTokenKind = "YARN_AM_RM_TOKEN";
inline constexpr std::string_view kNmTokenKind = "NMToken";
inline constexpr std::string_view kContainerTokenKind = "ContainerToken";
inline constexpr std::string_view kRmDelegationTokenKind = "RM_DELEGATION_TOKEN";
inline constexpr std::string_view kHdfsDelegationTokenKind = "HDFS_DELEGATION_TOKEN";
// The same identifier and password as GETDELEGATIONTOKEN hands them out over HTTP; the RM renews
// it over WebHDFS.
inline constexpr std::string_view kWebHdfsDelegationTokenKind = "WEBHDFS delegation";
// The same from a NameNode asked over https (swebhdfs; NamenodeWebHdfsMethods names the kind by
// the request's scheme).
inline constexpr std::string_view kSWebHdfsDelegationTokenKind = "SWEBHDFS delegation";

class Credentials {
 public:
  // §3: "HDTS" then one format byte.
  enum class Format : uint8_t { kWritable = 0, kProtobuf = 1 };

  // Adds or replaces (same alias) a token / a secret; insertion order is kept.
  void AddToken(std::string alias, Token token);
  void AddSecret(std::string alias, std::string secret);

  const std::vector<std::pair<std::string, Token>>& tokens() const { return tokens_; }
  const std::vector<std::pair<std::string, std::string>>& secrets() const { return secrets_; }

  // The first token of `kind`; with a service, the first of that kind and service.
  // The AMRMToken has an empty alias and service: find it by kind alone (§3).
  const Token* FindToken(std::string_view kind) const;
  const Token* FindToken(std::string_view kind, std::string_view service) const;
  const std::string* FindSecret(std::string_view alias) const;
  // Removes the secret `alias`; false when there was none.
  bool RemoveSecret(std::string_view alias);

  // Parses a whole token storage stream in either format.
  static Result<Credentials> Parse(std::string_view bytes);
  static Result<Credentials> ReadFile(const std::string& path);
  // Reads $HADOOP_TOKEN_FILE_LOCATION; kNotFound when the variable is unset.
  static Result<Credentials> FromEnvironment();

  std::string Serialize(Format format) const;
  // Writes atomically (temporary file + rename), mode 0600: tokens are secrets.
  Status WriteFile(const std::string& path, Format format) const;

 private:
  std::vector<std::pair<std::string, Token>> tokens_;
  std::vector<std::pair<std::string, std::string>> secrets_;
};

// Takes the secrets `aliases` out of $HADOOP_TOKEN_FILE_LOCATION: returns them in that order and
// rewrites the file without them (Writable format, as the NM writes it), so that processes
// started later with the same variable (the user's code) see every other token but not these
// secrets. All or nothing: kNotFound, naming the first missing alias, when the variable is unset
// or the file lacks any of them, and then the file is left as it was.
Result<std::vector<std::string>> TakeSecretsFromTokenFile(
    const std::vector<std::string_view>& aliases);

// Token.encodeToUrlString / decodeFromUrlString: the Writable token (vint-length identifier,
// password, kind, service) in URL-safe base64 without padding, as WebHDFS's GETDELEGATIONTOKEN
// returns it in "urlString" and takes it in "delegation=" (docs/hadoop-ipc.md §6.1).
std::string EncodeTokenUrlString(const Token& token);
// Errors never quote the input: it is a secret.
Result<Token> DecodeTokenUrlString(std::string_view url_string);

// What a delegation token's identifier says (AbstractDelegationTokenIdentifier,
// docs/hadoop-ipc.md §3.1): whom it acts for, who may renew it, and its maximum lifetime. The
// server keeps the current expiry (issue or last renewal + renew interval); only max_date_ms,
// after which no renewal helps, can be read from the token itself.
struct DelegationTokenIdentifier {
  std::string owner;      // the user the token acts for ("alice@EXAMPLE.COM")
  std::string renewer;    // short name of who may renew it
  std::string real_user;  // the proxy's login when the owner was impersonated; else empty
  int64_t issue_date_ms = 0;
  int64_t max_date_ms = 0;
  int32_t sequence_number = 0;
  int32_t master_key_id = 0;
};

// The identifier of an RM_DELEGATION_TOKEN (a YARNDelegationTokenIdentifierProto) or of an
// HDFS_DELEGATION_TOKEN / WEBHDFS delegation token (the Writable form, version 0);
// kInvalidArgument for another kind or bytes that do not parse. Errors never quote the bytes.
Result<DelegationTokenIdentifier> DecodeDelegationTokenIdentifier(const Token& token);

// Hadoop's WritableUtils variable-length integers (not protobuf varints, §3).
void AppendWritableVLong(int64_t value, std::string* out);
// Reads one at data[*pos]; advances *pos. False if truncated.
bool ReadWritableVLong(std::string_view data, size_t* pos, int64_t* value);

}  // namespace tony::hadoop::security
