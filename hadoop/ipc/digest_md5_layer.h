// The DIGEST-MD5 security layer (RFC 2831 §2.3, §2.4) for Hadoop's TOKEN connections with
// hadoop.rpc.protection integrity or privacy (docs/hadoop-ipc.md, SASL).
//
// integrity (auth-int): msg, HMAC-MD5(Ki, seq, msg)[0..9], 0x0001, seq.
// privacy (auth-conf, cipher 3des, the one Hadoop's Java server offers that OpenSSL's default
// provider still has): 3DES-EDE-CBC over {msg, padding, HMAC[0..9]}, then 0x0001 and seq; the
// CBC chain runs on across messages, as Java's implementation does. Keys derive from H(A1) with
// RFC 2831's magic constants. The primitives (MD5, HMAC-MD5, 3DES) are OpenSSL's.
// Thread-safety: Wrap and Unwrap may run at once on two threads (separate state each way).
#pragma once

#include <openssl/evp.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "common/status.h"
#include "hadoop/ipc/sasl_layer.h"

namespace tony::hadoop::ipc {

// The keys of one direction: integrity key and (privacy) cipher key, 16 bytes each.
struct DigestDirectionKeys {
  std::string integrity;
  std::string cipher;
};
// RFC 2831 §2.3/§2.4: keys from H(A1) (16 raw bytes) for client->server and server->client.
DigestDirectionKeys DigestClientToServerKeys(std::string_view ha1);
DigestDirectionKeys DigestServerToClientKeys(std::string_view ha1);
// A 7-byte DES key stretched to 8 bytes, 7 bits each, with odd parity (as Java's SASL does).
std::string DesKeyWithParity(std::string_view seven_bytes);

class DigestSecurityLayer final : public SecurityLayer {
 public:
  // `ha1` = MD5(A1), raw; `server_maxbuf` from the challenge (65536 when absent).
  static Result<std::unique_ptr<DigestSecurityLayer>> Create(Qop qop, std::string_view ha1,
                                                             uint32_t server_maxbuf);
  // The server's side of the same keys: wraps as the server would, unwraps what a client sent.
  // For tests only.
  static Result<std::unique_ptr<DigestSecurityLayer>> CreateServerSideForTesting(
      Qop qop, std::string_view ha1);
  ~DigestSecurityLayer() override;

  Result<std::string> Wrap(std::string_view plain) override;
  Result<std::string> Unwrap(std::string_view token) override;
  size_t max_wrap_input() const override { return max_input_; }
  Qop qop() const override { return qop_; }

 private:
  DigestSecurityLayer(Qop qop, DigestDirectionKeys send, DigestDirectionKeys receive,
                      size_t max_input)
      : qop_(qop), send_(std::move(send)), receive_(std::move(receive)), max_input_(max_input) {}
  Status InitCiphers();

  Qop qop_;
  DigestDirectionKeys send_;
  DigestDirectionKeys receive_;
  size_t max_input_;
  std::mutex send_mu_;
  uint32_t send_seq_ = 0;  // guarded by send_mu_
  EVP_CIPHER_CTX* encrypt_ = nullptr;
  std::mutex receive_mu_;
  uint32_t receive_seq_ = 0;  // guarded by receive_mu_
  EVP_CIPHER_CTX* decrypt_ = nullptr;
};

}  // namespace tony::hadoop::ipc
