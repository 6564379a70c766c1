#include "hadoop/security/credentials.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "Security.pb.h"
#include "yarn_security_token.pb.h"

namespace tony::hadoop::security {
namespace {

constexpr std::string_view kMagic = "HDTS";   // §3
constexpr size_t kMaxFieldBytes = 16u << 20;  // refuse absurd lengths from a corrupt file

// Reads the Writable fields of format 0 (§3) from one buffer.
class WritableReader {
 public:
  explicit WritableReader(std::string_view data) : data_(data) {}

  Result<int64_t> VLong(std::string_view what) {
    int64_t v = 0;
    if (!ReadWritableVLong(data_, &pos_, &v)) return Truncated(what);
    return v;
  }
  // A vint length then that many bytes (Text, and the token's identifier/password).
  Result<std::string> Bytes(std::string_view what) {
    TONY_ASSIGN_OR_RETURN(int64_t len, VLong(what));
    if (len < 0 || static_cast<uint64_t>(len) > kMaxFieldBytes) {
      return InvalidArgument("credentials: bad length " + std::to_string(len) + " for " +
                             std::string(what));
    }
    if (static_cast<size_t>(len) > data_.size() - pos_) return Truncated(what);
    std::string out(data_.substr(pos_, static_cast<size_t>(len)));
    pos_ += static_cast<size_t>(len);
    return out;
  }
  bool at_end() const { return pos_ == data_.size(); }

 private:
  Status Truncated(std::string_view what) const {
    return InvalidArgument("credentials: truncated at byte " + std::to_string(pos_) + " reading " +
                           std::string(what));
  }
  std::string_view data_;
  size_t pos_ = 0;
};

Result<Credentials> ParseWritable(std::string_view body) {
  Credentials creds;
  WritableReader in(body);
  TONY_ASSIGN_OR_RETURN(int64_t n_tokens, in.VLong("token count"));
  if (n_tokens < 0) return InvalidArgument("credentials: negative token count");
  for (int64_t i = 0; i < n_tokens; ++i) {
    TONY_ASSIGN_OR_RETURN(std::string alias, in.Bytes("token alias"));
    Token t;
    TONY_ASSIGN_OR_RETURN(t.identifier, in.Bytes("token identifier"));
    TONY_ASSIGN_OR_RETURN(t.password, in.Bytes("token password"));
    TONY_ASSIGN_OR_RETURN(t.kind, in.Bytes("token kind"));
    TONY_ASSIGN_OR_RETURN(t.service, in.Bytes("token service"));
    creds.AddToken(std::move(alias), std::move(t));
  }
  TONY_ASSIGN_OR_RETURN(int64_t n_secrets, in.VLong("secret count"));
  if (n_secrets < 0) return InvalidArgument("credentials: negative secret count");
  for (int64_t i = 0; i < n_secrets; ++i) {
    TONY_ASSIGN_OR_RETURN(std::string alias, in.Bytes("secret alias"));
    TONY_ASSIGN_OR_RETURN(std::string secret, in.Bytes("secret value"));
    creds.AddSecret(std::move(alias), std::move(secret));
  }
  return creds;
}

bool ReadVarint(std::string_view data, size_t* pos, uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= data.size()) return false;
    auto b = static_cast<uint8_t>(data[(*pos)++]);
    result |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

// Format 1: one varint-delimited CredentialsProto (§3, Security.proto).
Result<Credentials> ParseProtobuf(std::string_view body) {
  size_t pos = 0;
  uint64_t len = 0;
  if (!ReadVarint(body, &pos, &len) || len > body.size() - pos) {
    return InvalidArgument("credentials: truncated CredentialsProto");
  }
  ::hadoop::common::CredentialsProto proto;
  if (!proto.ParseFromArray(body.data() + pos, static_cast<int>(len))) {
    return InvalidArgument("credentials: cannot parse CredentialsProto");
  }
  Credentials creds;
  for (const auto& kv : proto.tokens()) {
    const auto& tp = kv.token();
    creds.AddToken(kv.alias(), Token{tp.identifier(), tp.password(), tp.kind(), tp.service()});
  }
  for (const auto& kv : proto.secrets()) creds.AddSecret(kv.alias(), kv.secret());
  return creds;
}

void AppendWritableBytes(std::string_view bytes, std::string* out) {
  AppendWritableVLong(static_cast<int64_t>(bytes.size()), out);
  out->append(bytes);
}

}  // namespace

std::string EncodeTokenUrlString(const Token& token) {
  std::string raw;
  AppendWritableBytes(token.identifier, &raw);
  AppendWritableBytes(token.password, &raw);
  AppendWritableBytes(token.kind, &raw);
  AppendWritableBytes(token.service, &raw);
  std::string b64(4 * ((raw.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()),
                          reinterpret_cast<const unsigned char*>(raw.data()),
                          static_cast<int>(raw.size()));
  b64.resize(static_cast<size_t>(n));
  while (!b64.empty() && b64.back() == '=') b64.pop_back();
  for (char& c : b64) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return b64;
}

Result<Token> DecodeTokenUrlString(std::string_view url_string) {
  auto bad = [] {
    return InvalidArgument("delegation token: not a URL-safe base64 Writable token");
  };
  if (url_string.size() > 4 * kMaxFieldBytes / 3 || url_string.size() % 4 == 1) return bad();
  std::string b64(url_string);
  for (char& c : b64) {
    if (c == '-')
      c = '+';
    else if (c == '_')
      c = '/';
    else if (c == '+' || c == '/' || c == '=')
      return bad();
  }
  size_t pad = (4 - b64.size() % 4) % 4;
  b64.append(pad, '=');
  std::string raw(b64.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(raw.data()),
                          reinterpret_cast<const unsigned char*>(b64.data()),
                          static_cast<int>(b64.size()));
  if (n < 0 || static_cast<size_t>(n) < pad) return bad();
  raw.resize(static_cast<size_t>(n) - pad);
  WritableReader in(raw);
  Token t;
  auto field = [&](std::string* out) -> Status {
    auto r = in.Bytes("token");
    if (!r.ok()) return bad();
    *out = std::move(r).value();
    return Status::Ok();
  };
  TONY_RETURN_IF_ERROR(field(&t.identifier));
  TONY_RETURN_IF_ERROR(field(&t.password));
  TONY_RETURN_IF_ERROR(field(&t.kind));
  TONY_RETURN_IF_ERROR(field(&t.service));
  if (!in.at_end()) return bad();
  return t;
}

void AppendWritableVLong(int64_t value, std::string* out) {
  // WritableUtils.writeVLong: small values in one byte; otherwise a marker byte saying sign and
  // length, then the magnitude (one's complement if negative) big-endian (§3).
  if (value >= -112 && value <= 127) {
    out->push_back(static_cast<char>(value));
    return;
  }
  int marker = -112;
  auto magnitude = static_cast<uint64_t>(value);
  if (value < 0) {
    magnitude = ~magnitude;
    marker = -120;
  }
  int n_bytes = 0;
  for (uint64_t tmp = magnitude; tmp != 0; tmp >>= 8) ++n_bytes;
  out->push_back(static_cast<char>(marker - n_bytes));
  for (int i = n_bytes - 1; i >= 0; --i) out->push_back(static_cast<char>(magnitude >> (8 * i)));
}

bool ReadWritableVLong(std::string_view data, size_t* pos, int64_t* value) {
  if (*pos >= data.size()) return false;
  // The first byte is a Java byte, signed: sign-extended from its unsigned value, so no char's
  // signedness decides it.
  const int byte = static_cast<uint8_t>(data[(*pos)++]);
  const int first = byte < 128 ? byte : byte - 256;
  if (first >= -112) {
    *value = first;
    return true;
  }
  bool negative = first < -120;
  int n_bytes = negative ? -(first + 120) : -(first + 112);
  if (static_cast<size_t>(n_bytes) > data.size() - *pos) return false;
  uint64_t magnitude = 0;
  for (int i = 0; i < n_bytes; ++i) {
    magnitude = (magnitude << 8) | static_cast<uint8_t>(data[(*pos)++]);
  }
  *value = static_cast<int64_t>(negative ? ~magnitude : magnitude);
  return true;
}

void Credentials::AddToken(std::string alias, Token token) {
  for (auto& [a, t] : tokens_) {
    if (a == alias && !alias.empty()) {
      t = std::move(token);
      return;
    }
  }
  tokens_.emplace_back(std::move(alias), std::move(token));
}

void Credentials::AddSecret(std::string alias, std::string secret) {
  for (auto& [a, s] : secrets_) {
    if (a == alias) {
      s = std::move(secret);
      return;
    }
  }
  secrets_.emplace_back(std::move(alias), std::move(secret));
}

const Token* Credentials::FindToken(std::string_view kind) const {
  for (const auto& [alias, t] : tokens_) {
    if (t.kind == kind) return &t;
  }
  return nullptr;
}

const Token* Credentials::FindToken(std::string_view kind, std::string_view service) const {
  for (const auto& [alias, t] : tokens_) {
    if (t.kind == kind && t.service == service) return &t;
  }
  return nullptr;
}

const std::string* Credentials::FindSecret(std::string_view alias) const {
  for (const auto& [a, s] : secrets_) {
    if (a == alias) return &s;
  }
  return nullptr;
}

bool Credentials::RemoveSecret(std::string_view alias) {
  for (auto it = secrets_.begin(); it != secrets_.end(); ++it) {
    if (it->first == alias) {
      secrets_.erase(it);
      return true;
    }
  }
  return false;
}

Result<std::vector<std::string>> TakeSecretsFromTokenFile(
    const std::vector<std::string_view>& aliases) {
  const char* path = std::getenv("HADOOP_TOKEN_FILE_LOCATION");
  if (path == nullptr || *path == '\0') return NotFound("HADOOP_TOKEN_FILE_LOCATION is not set");
  TONY_ASSIGN_OR_RETURN(Credentials creds, Credentials::ReadFile(path));
  std::vector<std::string> secrets;
  for (std::string_view alias : aliases) {
    const std::string* found = creds.FindSecret(alias);
    if (found == nullptr) {
      return NotFound("no secret " + std::string(alias) + " in " + std::string(path));
    }
    secrets.push_back(*found);
  }
  for (std::string_view alias : aliases) creds.RemoveSecret(alias);
  TONY_RETURN_IF_ERROR(creds.WriteFile(path, Credentials::Format::kWritable));
  return secrets;
}

namespace {

// §3.1: version byte 0, Text owner, renewer, realUser, vlong issueDate, maxDate, vint
// sequenceNumber, masterKeyId.
Result<DelegationTokenIdentifier> DecodeWritableIdentifier(std::string_view data) {
  auto bad = [](std::string_view why) {
    return InvalidArgument("delegation token identifier: " + std::string(why));
  };
  if (data.empty()) return bad("empty");
  if (data[0] != 0) return bad("unknown version " + std::to_string(static_cast<uint8_t>(data[0])));
  size_t pos = 1;
  auto text = [&](std::string* out) {
    int64_t len = 0;
    if (!ReadWritableVLong(data, &pos, &len) || len < 0 ||
        static_cast<uint64_t>(len) > data.size() - pos) {
      return false;
    }
    out->assign(data.substr(pos, static_cast<size_t>(len)));
    pos += static_cast<size_t>(len);
    return true;
  };
  DelegationTokenIdentifier id;
  int64_t sequence = 0;
  int64_t key = 0;
  if (!text(&id.owner) || !text(&id.renewer) || !text(&id.real_user) ||
      !ReadWritableVLong(data, &pos, &id.issue_date_ms) ||
      !ReadWritableVLong(data, &pos, &id.max_date_ms) ||
      !ReadWritableVLong(data, &pos, &sequence) || !ReadWritableVLong(data, &pos, &key)) {
    return bad("truncated");
  }
  if (pos != data.size()) return bad("trailing bytes");
  id.sequence_number = static_cast<int32_t>(sequence);
  id.master_key_id = static_cast<int32_t>(key);
  return id;
}

}  // namespace

Result<DelegationTokenIdentifier> DecodeDelegationTokenIdentifier(const Token& token) {
  if (token.kind == kHdfsDelegationTokenKind || token.kind == kWebHdfsDelegationTokenKind ||
      token.kind == kSWebHdfsDelegationTokenKind) {
    return DecodeWritableIdentifier(token.identifier);
  }
  if (token.kind != kRmDelegationTokenKind) {
    return InvalidArgument("not a delegation token: kind " + token.kind);
  }
  ::hadoop::yarn::YARNDelegationTokenIdentifierProto proto;
  if (!proto.ParseFromString(token.identifier) || !proto.has_owner() || !proto.has_maxdate()) {
    return InvalidArgument(
        "RM delegation token identifier: not a YARNDelegationTokenIdentifierProto");
  }
  return DelegationTokenIdentifier{proto.owner(),      proto.renewer(), proto.realuser(),
                                   proto.issuedate(),  proto.maxdate(), proto.sequencenumber(),
                                   proto.masterkeyid()};
}

Result<Credentials> Credentials::Parse(std::string_view bytes) {
  if (bytes.size() < kMagic.size() + 1 || bytes.substr(0, kMagic.size()) != kMagic) {
    return InvalidArgument("credentials: not a Hadoop token storage stream (no HDTS magic)");
  }
  auto format = static_cast<uint8_t>(bytes[kMagic.size()]);
  std::string_view body = bytes.substr(kMagic.size() + 1);
  switch (format) {
    case static_cast<uint8_t>(Format::kWritable):
      return ParseWritable(body);
    case static_cast<uint8_t>(Format::kProtobuf):
      return ParseProtobuf(body);
    default:
      return InvalidArgument("credentials: unknown format " + std::to_string(format) +
                             " (0 = writable and 1 = protobuf are known)");
  }
}

Result<Credentials> Credentials::ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("reading credentials " + path + ": cannot open");
  std::ostringstream buf;
  buf << in.rdbuf();
  auto creds = Parse(buf.str());
  if (!creds.ok()) return creds.status().WithContext("reading " + path);
  return creds;
}

Result<Credentials> Credentials::FromEnvironment() {
  const char* path = std::getenv("HADOOP_TOKEN_FILE_LOCATION");
  if (path == nullptr || *path == '\0') return NotFound("HADOOP_TOKEN_FILE_LOCATION is not set");
  return ReadFile(path);
}

std::string Credentials::Serialize(Format format) const {
  std::string out(kMagic);
  out.push_back(static_cast<char>(format));
  if (format == Format::kWritable) {
    AppendWritableVLong(static_cast<int64_t>(tokens_.size()), &out);
    for (const auto& [alias, t] : tokens_) {
      AppendWritableBytes(alias, &out);
      AppendWritableBytes(t.identifier, &out);
      AppendWritableBytes(t.password, &out);
      AppendWritableBytes(t.kind, &out);
      AppendWritableBytes(t.service, &out);
    }
    AppendWritableVLong(static_cast<int64_t>(secrets_.size()), &out);
    for (const auto& [alias, s] : secrets_) {
      AppendWritableBytes(alias, &out);
      AppendWritableBytes(s, &out);
    }
    return out;
  }
  ::hadoop::common::CredentialsProto proto;
  for (const auto& [alias, t] : tokens_) {
    auto* kv = proto.add_tokens();
    kv->set_alias(alias);
    auto* tp = kv->mutable_token();
    tp->set_identifier(t.identifier);
    tp->set_password(t.password);
    tp->set_kind(t.kind);
    tp->set_service(t.service);
  }
  for (const auto& [alias, s] : secrets_) {
    auto* kv = proto.add_secrets();
    kv->set_alias(alias);
    kv->set_secret(s);
  }
  std::string body = proto.SerializeAsString();
  for (uint64_t v = body.size();; v >>= 7) {  // varint length: writeDelimitedTo
    if (v < 0x80) {
      out.push_back(static_cast<char>(v));
      break;
    }
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
  }
  out += body;
  return out;
}

Status Credentials::WriteFile(const std::string& path, Format format) const {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus("writing credentials " + tmp, errno);
  std::string bytes = Serialize(format);
  std::string_view left = bytes;
  while (!left.empty()) {
    ssize_t n = ::write(fd, left.data(), left.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return ErrnoStatus("writing credentials " + tmp, err);
    }
    left.remove_prefix(static_cast<size_t>(n));
  }
  int sync_rc = ::fsync(fd);
  int sync_err = errno;
  if (::close(fd) < 0 || sync_rc < 0) {
    return ErrnoStatus("writing credentials " + tmp, sync_rc < 0 ? sync_err : errno);
  }
  if (::rename(tmp.c_str(), path.c_str()) < 0) {
    return ErrnoStatus("renaming " + tmp + " to " + path, errno);
  }
  return Status::Ok();
}

}  // namespace tony::hadoop::security
