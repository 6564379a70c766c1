#include "hadoop/ipc/digest_md5.h"

#include <openssl/evp.h>
#include <openssl/md5.h>
#include <openssl/rand.h>

#include <algorithm>

#include "common/strings.h"
#include "hadoop/ipc/digest_md5_layer.h"

namespace tony::hadoop::ipc {
namespace {

std::string Md5Raw(std::string_view data) {
  unsigned char digest[MD5_DIGEST_LENGTH];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_md5(), nullptr);
  return std::string(reinterpret_cast<const char*>(digest), len);
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    auto b = static_cast<uint8_t>(c);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xF]);
  }
  return out;
}

// RFC 2831 §7.2: quoted-string values escape '"' and '\' with a backslash.
std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

bool ListContains(std::string_view list, std::string_view item) {
  for (const std::string& piece : SplitTrimmed(list, ',')) {
    if (piece == item) return true;
  }
  return false;
}

// The QOP words of a challenge as security-layer bits (sasl_layer.h).
uint8_t OfferedLayers(std::string_view qop_list) {
  uint8_t bits = 0;
  if (ListContains(qop_list, "auth")) bits |= kLayerNone;
  if (ListContains(qop_list, "auth-int")) bits |= kLayerIntegrity;
  if (ListContains(qop_list, "auth-conf")) bits |= kLayerPrivacy;
  return bits;
}

std::string_view DigestQopWord(Qop qop) {
  switch (qop) {
    case Qop::kAuthentication:
      return "auth";
    case Qop::kIntegrity:
      return "auth-int";
    case Qop::kPrivacy:
      return "auth-conf";
  }
  return "auth";
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()),
                          static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string Md5Hex(std::string_view data) { return Hex(Md5Raw(data)); }

Result<std::map<std::string, std::string>> ParseDigestDirectives(std::string_view text) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  auto skip_separators = [&] {
    while (i < text.size() && (text[i] == ',' || text[i] == ' ' || text[i] == '\t')) ++i;
  };
  skip_separators();
  while (i < text.size()) {
    size_t eq = text.find('=', i);
    if (eq == std::string_view::npos) {
      return InvalidArgument("DIGEST-MD5 challenge: no '=' after '" + std::string(text.substr(i)) +
                             "'");
    }
    std::string key = ToLower(Trim(text.substr(i, eq - i)));
    i = eq + 1;
    std::string value;
    if (i < text.size() && text[i] == '"') {
      ++i;
      bool closed = false;
      while (i < text.size()) {
        char c = text[i++];
        if (c == '\\' && i < text.size()) {
          value.push_back(text[i++]);
        } else if (c == '"') {
          closed = true;
          break;
        } else {
          value.push_back(c);
        }
      }
      if (!closed) return InvalidArgument("DIGEST-MD5 challenge: unterminated quote for " + key);
    } else {
      size_t comma = text.find(',', i);
      size_t end = comma == std::string_view::npos ? text.size() : comma;
      value = std::string(Trim(text.substr(i, end - i)));
      i = end;
    }
    out[key] = std::move(value);
    skip_separators();
  }
  return out;
}

std::string DigestResponseValue(const DigestInputs& in, std::string_view a2_prefix) {
  // RFC 2831 §2.1.2.1: A1 = { H(user ":" realm ":" passwd), ":" nonce ":" cnonce [":" authzid] }.
  std::string a1 = Md5Raw(in.username + ":" + in.realm + ":" + in.password);
  a1 += ":" + in.nonce + ":" + in.cnonce;
  if (!in.authzid.empty()) a1 += ":" + in.authzid;
  std::string a2 = std::string(a2_prefix) + ":" + in.digest_uri;
  if (in.qop == "auth-int" || in.qop == "auth-conf") a2 += ":00000000000000000000000000000000";
  return Md5Hex(Md5Hex(a1) + ":" + in.nonce + ":" + in.nonce_count + ":" + in.cnonce + ":" +
                in.qop + ":" + Md5Hex(a2));
}

DigestMd5Client::DigestMd5Client(std::string username, std::string password,
                                 std::string_view protocol, std::string_view server_id,
                                 std::vector<Qop> acceptable)
    : acceptable_(std::move(acceptable)) {
  inputs_.username = std::move(username);
  inputs_.password = std::move(password);
  // §2.2: digest-uri = protocol "/" serverId; "/default" for TOKEN.
  inputs_.digest_uri = std::string(protocol) + "/" + std::string(server_id);
}

Result<std::string> DigestMd5Client::EvaluateChallenge(std::string_view challenge) {
  if (answered_) return FailedPrecondition("DIGEST-MD5: unexpected second challenge");
  TONY_ASSIGN_OR_RETURN(auto directives, ParseDigestDirectives(challenge));
  auto nonce = directives.find("nonce");
  if (nonce == directives.end() || nonce->second.empty()) {
    return InvalidArgument("DIGEST-MD5 challenge has no nonce: " + std::string(challenge));
  }
  // RFC 2831: a missing qop means "auth".
  std::string qop_offer = directives.contains("qop") ? directives["qop"] : "auth";
  auto chosen = ChooseQop(OfferedLayers(qop_offer), acceptable_);
  if (!chosen.ok()) return chosen.status().WithContext("DIGEST-MD5 qop '" + qop_offer + "'");
  qop_ = *chosen;
  // RFC 2831 §2.4: of the ciphers offered for auth-conf we speak 3des (OpenSSL's default
  // provider has no RC4 or single DES any more).
  std::string cipher_offer = directives.contains("cipher") ? directives["cipher"] : "";
  if (qop_ == Qop::kPrivacy && !ListContains(cipher_offer, "3des")) {
    return Unauthenticated("DIGEST-MD5: privacy needs cipher 3des; the server offers '" +
                           cipher_offer + "'");
  }
  if (auto maxbuf = directives.find("maxbuf"); maxbuf != directives.end()) {
    auto v = ParseInt64(maxbuf->second);
    if (!v || *v <= 0 || *v > 0xFFFFFF) {
      return InvalidArgument("DIGEST-MD5: bad maxbuf '" + maxbuf->second + "'");
    }
    server_maxbuf_ = static_cast<uint32_t>(*v);
  }
  if (auto alg = directives.find("algorithm");
      alg != directives.end() && alg->second != "md5-sess") {
    return InvalidArgument("DIGEST-MD5: unsupported algorithm '" + alg->second + "'");
  }
  inputs_.realm = directives.contains("realm") ? directives["realm"] : "";
  inputs_.nonce = nonce->second;
  inputs_.qop = std::string(DigestQopWord(qop_));
  if (!cnonce_override_.empty()) {
    inputs_.cnonce = cnonce_override_;
  } else {
    unsigned char random[24];
    if (RAND_bytes(random, sizeof(random)) != 1) return Internal("RAND_bytes failed");
    inputs_.cnonce = Base64Encode(std::string_view(reinterpret_cast<char*>(random), 24));
  }
  answered_ = true;
  // §2.2: the fields Hadoop's server expects.
  std::string out;
  if (directives.contains("charset")) out += "charset=utf-8,";
  out += "username=" + Quote(inputs_.username);
  out += ",realm=" + Quote(inputs_.realm);
  out += ",nonce=" + Quote(inputs_.nonce);
  out += ",nc=" + inputs_.nonce_count;
  out += ",cnonce=" + Quote(inputs_.cnonce);
  out += ",digest-uri=" + Quote(inputs_.digest_uri);
  out += ",maxbuf=65536";
  out += ",response=" + DigestResponseValue(inputs_, "AUTHENTICATE");
  out += ",qop=" + inputs_.qop;
  if (qop_ == Qop::kPrivacy) out += ",cipher=3des";
  return out;
}

Status DigestMd5Client::VerifyServerFinal(std::string_view final_message) const {
  if (!answered_) return FailedPrecondition("DIGEST-MD5: server finished before any challenge");
  TONY_ASSIGN_OR_RETURN(auto directives, ParseDigestDirectives(final_message));
  auto rspauth = directives.find("rspauth");
  if (rspauth == directives.end()) {
    return Unauthenticated("DIGEST-MD5: the server's final message has no rspauth");
  }
  if (rspauth->second != DigestResponseValue(inputs_, "")) {
    return Unauthenticated("DIGEST-MD5: the server's rspauth does not match; wrong server?");
  }
  return Status::Ok();
}

}  // namespace tony::hadoop::ipc

namespace tony::hadoop::ipc {

std::string DigestMd5Client::Ha1() const {
  std::string a1 = Md5Raw(inputs_.username + ":" + inputs_.realm + ":" + inputs_.password);
  a1 += ":" + inputs_.nonce + ":" + inputs_.cnonce;
  if (!inputs_.authzid.empty()) a1 += ":" + inputs_.authzid;
  return Md5Raw(a1);
}

Result<std::unique_ptr<SecurityLayer>> DigestMd5Client::TakeSecurityLayer() const {
  if (qop_ == Qop::kAuthentication) return std::unique_ptr<SecurityLayer>();
  TONY_ASSIGN_OR_RETURN(auto layer, DigestSecurityLayer::Create(qop_, Ha1(), server_maxbuf_));
  return std::unique_ptr<SecurityLayer>(std::move(layer));
}

}  // namespace tony::hadoop::ipc
