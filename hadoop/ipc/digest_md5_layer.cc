#include "hadoop/ipc/digest_md5_layer.h"

#include <openssl/hmac.h>
#include <openssl/md5.h>

#include <algorithm>

#include "hadoop/ipc/wire.h"

namespace tony::hadoop::ipc {
namespace {

constexpr size_t kMacBytes = 10;
constexpr size_t kTrailerBytes = 6;  // 2-byte message type, 4-byte sequence number
constexpr size_t kBlock = 8;         // 3DES
constexpr char kMessageType[] = {0x00, 0x01};

std::string Md5(std::string_view data) {
  unsigned char digest[MD5_DIGEST_LENGTH];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_md5(), nullptr);
  return std::string(reinterpret_cast<const char*>(digest), len);
}

std::string Seq(uint32_t seq) {
  std::string out;
  AppendBigEndian32(seq, &out);
  return out;
}

// HMAC-MD5(key, seq || msg), first 10 bytes.
std::string Mac(const std::string& key, uint32_t seq, std::string_view msg) {
  std::string input = Seq(seq);
  input.append(msg);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_md5(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), kMacBytes);
}

DigestDirectionKeys Keys(std::string_view ha1, const char* sign_magic, const char* seal_magic) {
  return {Md5(std::string(ha1) + sign_magic), Md5(std::string(ha1) + seal_magic)};
}

// 3DES with two keys from the first 14 bytes, the IV from the last 8 (RFC 2831 §2.4).
EVP_CIPHER_CTX* NewCipher(const std::string& key, bool encrypt) {
  std::string k1 = DesKeyWithParity(std::string_view(key).substr(0, 7));
  std::string k2 = DesKeyWithParity(std::string_view(key).substr(7, 7));
  std::string ede = k1 + k2 + k1;
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  if (ctx == nullptr) return nullptr;
  const auto* k = reinterpret_cast<const unsigned char*>(ede.data());
  const auto* iv = reinterpret_cast<const unsigned char*>(key.data() + 8);
  if (EVP_CipherInit_ex(ctx, EVP_des_ede3_cbc(), nullptr, k, iv, encrypt ? 1 : 0) != 1 ||
      EVP_CIPHER_CTX_set_padding(ctx, 0) != 1) {
    EVP_CIPHER_CTX_free(ctx);
    return nullptr;
  }
  return ctx;
}

Result<std::string> Update(EVP_CIPHER_CTX* ctx, std::string_view in) {
  std::string out(in.size() + kBlock, '\0');
  int len = 0;
  if (EVP_CipherUpdate(ctx, reinterpret_cast<unsigned char*>(out.data()), &len,
                       reinterpret_cast<const unsigned char*>(in.data()),
                       static_cast<int>(in.size())) != 1) {
    return Internal("DIGEST-MD5: 3DES failed");
  }
  out.resize(static_cast<size_t>(len));
  return out;
}

Status CheckTrailer(std::string_view trailer, uint32_t expected_seq) {
  if (trailer.substr(0, 2) != std::string_view(kMessageType, 2)) {
    return Unauthenticated("SASL DIGEST-MD5: a wrapped reply has a bad message type");
  }
  if (ReadBigEndian32(trailer.data() + 2) != expected_seq) {
    return Unauthenticated("SASL DIGEST-MD5: a wrapped reply is out of sequence");
  }
  return Status::Ok();
}

}  // namespace

DigestDirectionKeys DigestClientToServerKeys(std::string_view ha1) {
  return Keys(ha1, "Digest session key to client-to-server signing key magic constant",
              "Digest H(A1) to client-to-server sealing key magic constant");
}

DigestDirectionKeys DigestServerToClientKeys(std::string_view ha1) {
  return Keys(ha1, "Digest session key to server-to-client signing key magic constant",
              "Digest H(A1) to server-to-client sealing key magic constant");
}

std::string DesKeyWithParity(std::string_view seven_bytes) {
  uint64_t bits = 0;
  for (char c : seven_bytes.substr(0, 7)) bits = (bits << 8) | static_cast<uint8_t>(c);
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) {
    uint8_t b = static_cast<uint8_t>(((bits >> (49 - 7 * i)) & 0x7F) << 1);
    b |= (__builtin_popcount(b) & 1) ^ 1;  // odd parity
    out[static_cast<size_t>(i)] = static_cast<char>(b);
  }
  return out;
}

Result<std::unique_ptr<DigestSecurityLayer>> DigestSecurityLayer::Create(Qop qop,
                                                                         std::string_view ha1,
                                                                         uint32_t server_maxbuf) {
  if (qop == Qop::kAuthentication) return Internal("DIGEST-MD5: no layer for authentication");
  uint32_t maxbuf = server_maxbuf == 0 ? 65536 : server_maxbuf;
  size_t overhead = kMacBytes + kTrailerBytes + kBlock;
  if (maxbuf <= overhead + kBlock) return Internal("DIGEST-MD5: the server's maxbuf is too small");
  std::unique_ptr<DigestSecurityLayer> layer(new DigestSecurityLayer(
      qop, DigestClientToServerKeys(ha1), DigestServerToClientKeys(ha1), maxbuf - overhead));
  TONY_RETURN_IF_ERROR(layer->InitCiphers());
  return layer;
}

Result<std::unique_ptr<DigestSecurityLayer>> DigestSecurityLayer::CreateServerSideForTesting(
    Qop qop, std::string_view ha1) {
  std::unique_ptr<DigestSecurityLayer> layer(new DigestSecurityLayer(
      qop, DigestServerToClientKeys(ha1), DigestClientToServerKeys(ha1), 65536));
  TONY_RETURN_IF_ERROR(layer->InitCiphers());
  return layer;
}

Status DigestSecurityLayer::InitCiphers() {
  if (qop_ != Qop::kPrivacy) return Status::Ok();
  encrypt_ = NewCipher(send_.cipher, true);
  decrypt_ = NewCipher(receive_.cipher, false);
  if (encrypt_ == nullptr || decrypt_ == nullptr) {
    return Internal("DIGEST-MD5: OpenSSL has no 3DES (DES-EDE3-CBC)");
  }
  return Status::Ok();
}

DigestSecurityLayer::~DigestSecurityLayer() {
  EVP_CIPHER_CTX_free(encrypt_);
  EVP_CIPHER_CTX_free(decrypt_);
}

Result<std::string> DigestSecurityLayer::Wrap(std::string_view plain) {
  std::lock_guard<std::mutex> lock(send_mu_);
  std::string mac = Mac(send_.integrity, send_seq_, plain);
  std::string out;
  if (qop_ == Qop::kIntegrity) {
    out.assign(plain);
    out += mac;
  } else {
    size_t pad = kBlock - ((plain.size() + kMacBytes) % kBlock);
    std::string sealed(plain);
    sealed.append(pad, static_cast<char>(pad));
    sealed += mac;
    TONY_ASSIGN_OR_RETURN(out, Update(encrypt_, sealed));
  }
  out.append(kMessageType, 2);
  out += Seq(send_seq_++);
  return out;
}

Result<std::string> DigestSecurityLayer::Unwrap(std::string_view token) {
  std::lock_guard<std::mutex> lock(receive_mu_);
  const Status bad = Unauthenticated("SASL DIGEST-MD5: a wrapped reply failed its check");
  if (token.size() < kMacBytes + kTrailerBytes) return bad;
  std::string_view body = token.substr(0, token.size() - kTrailerBytes);
  TONY_RETURN_IF_ERROR(CheckTrailer(token.substr(body.size()), receive_seq_));
  std::string msg;
  std::string mac;
  if (qop_ == Qop::kIntegrity) {
    msg.assign(body.substr(0, body.size() - kMacBytes));
    mac.assign(body.substr(msg.size()));
  } else {
    if (body.size() % kBlock != 0) return bad;
    TONY_ASSIGN_OR_RETURN(std::string plain, Update(decrypt_, body));
    if (plain.size() < kMacBytes + 1) return bad;
    mac = plain.substr(plain.size() - kMacBytes);
    plain.resize(plain.size() - kMacBytes);
    size_t pad = static_cast<uint8_t>(plain.back());
    if (pad < 1 || pad > kBlock || pad > plain.size()) return bad;
    if (std::any_of(plain.end() - static_cast<std::ptrdiff_t>(pad), plain.end(),
                    [pad](char c) { return static_cast<uint8_t>(c) != pad; })) {
      return bad;
    }
    plain.resize(plain.size() - pad);
    msg = std::move(plain);
  }
  if (CRYPTO_memcmp(mac.data(), Mac(receive_.integrity, receive_seq_, msg).data(), kMacBytes) !=
      0) {
    return bad;
  }
  ++receive_seq_;
  return msg;
}

}  // namespace tony::hadoop::ipc
