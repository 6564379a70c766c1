// The client side of SASL DIGEST-MD5 (RFC 2831) as Hadoop's TOKEN authentication uses it
// (docs/hadoop-ipc.md §2.2).
//
// Hand-written over OpenSSL's MD5 on purpose: Cyrus SASL's DIGEST-MD5 is a plugin loaded at run
// time from the system's sasl2 directory, which cluster nodes need not have (docs/hadoop-ipc.md §0,
// §2.2), and the mechanism is small. QOP auth-int and auth-conf (cipher 3des) come from
// digest_md5_layer.h, on OpenSSL's primitives; which QOPs the client accepts comes from
// hadoop.rpc.protection.
// Thread-safety: a DigestMd5Client belongs to one connection handshake.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "hadoop/ipc/sasl_layer.h"

namespace tony::hadoop::ipc {

// Standard base64 alphabet with padding and no line breaks (§2.2: SASL user name and password).
std::string Base64Encode(std::string_view bytes);
// Lowercase hex of MD5(data).
std::string Md5Hex(std::string_view data);

// Parses a DIGEST-MD5 challenge: comma-separated key=value, values optionally quoted with
// backslash escapes; commas inside quotes belong to the value (§2.2). Keys are lowercased.
Result<std::map<std::string, std::string>> ParseDigestDirectives(std::string_view text);

// The inputs of RFC 2831 §2.1.2.1's response-value.
struct DigestInputs {
  std::string username;
  std::string realm;
  std::string password;
  std::string nonce;
  std::string cnonce;
  std::string nonce_count = "00000001";
  std::string qop = "auth";
  std::string digest_uri;
  std::string authzid;  // empty: none (§2.2: do not send one that differs from the user)
};
// The 32 lowercase hex digits of "response=" (a2_prefix "AUTHENTICATE") or of the server's
// "rspauth=" (a2_prefix "").
std::string DigestResponseValue(const DigestInputs& in, std::string_view a2_prefix);

class DigestMd5Client {
 public:
  // For Hadoop TOKEN auth: username/password are the base64 of the token's identifier/password,
  // protocol/server_id come from the server's SaslAuth entry ("" and "default", §1.9).
  // `acceptable`: hadoop.rpc.protection, preferred first.
  DigestMd5Client(std::string username, std::string password, std::string_view protocol,
                  std::string_view server_id, std::vector<Qop> acceptable = {Qop::kAuthentication});

  // Answers the server's challenge with the client response string (§2.2).
  Result<std::string> EvaluateChallenge(std::string_view challenge);
  // Checks the server's final "rspauth=…" (sent with SASL SUCCESS).
  Status VerifyServerFinal(std::string_view final_message) const;

  Qop qop() const { return qop_; }
  // For integrity and privacy, after VerifyServerFinal: the layer for every later frame;
  // nullptr for authentication.
  Result<std::unique_ptr<SecurityLayer>> TakeSecurityLayer() const;
  // MD5(A1), raw: the root of the layer's keys (for tests).
  std::string Ha1() const;

  // For tests: fixes the client nonce instead of drawing a random one.
  void set_cnonce_for_testing(std::string cnonce) { cnonce_override_ = std::move(cnonce); }

 private:
  DigestInputs inputs_;
  std::vector<Qop> acceptable_;
  Qop qop_ = Qop::kAuthentication;
  uint32_t server_maxbuf_ = 65536;
  std::string cnonce_override_;
  bool answered_ = false;
};

}  // namespace tony::hadoop::ipc
