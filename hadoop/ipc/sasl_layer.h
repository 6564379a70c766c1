// The SASL security layer of a Hadoop IPC connection (docs/hadoop-ipc.md, SASL): the
// protection levels of hadoop.rpc.protection, the choice among those a server offers, and the
// WRAP framing that carries every frame after the handshake when the level is integrity or
// privacy.
//
// Pure functions and small value types, except SecurityLayer, which the mechanisms implement
// (GSSAPI: sasl_gssapi.h).
// Thread-safety: the free functions are stateless; an UnwrappedFrames belongs to one reader.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace tony::hadoop::ipc {

// hadoop.rpc.protection's values; SASL's QOPs auth, auth-int, auth-conf.
enum class Qop { kAuthentication, kIntegrity, kPrivacy };

// The security-layer bits of SASL GSSAPI's offer and choice (RFC 4752 §3.1).
inline constexpr uint8_t kLayerNone = 1;
inline constexpr uint8_t kLayerIntegrity = 2;
inline constexpr uint8_t kLayerPrivacy = 4;

uint8_t QopLayerBit(Qop qop);
// Hadoop's word: "authentication", "integrity", "privacy".
std::string_view QopName(Qop qop);

// A hadoop.rpc.protection value: a comma list of authentication / integrity / privacy, in the
// client's order of preference. Errors name the key, the value and the words accepted.
Result<std::vector<Qop>> ParseRpcProtection(std::string_view value);

// The first of `acceptable` that `offered_layers` (bits above) contains; kUnauthenticated
// ("No common protection layer", naming both sides) when there is none.
Result<Qop> ChooseQop(uint8_t offered_layers, const std::vector<Qop>& acceptable);

// What a negotiated mechanism does to every frame after the handshake.
class SecurityLayer {
 public:
  virtual ~SecurityLayer() = default;
  // Implementations may be called from two threads at once (the writer wraps while the reader
  // unwraps) and must serialize what their mechanism needs serialized.
  virtual Result<std::string> Wrap(std::string_view plain) = 0;
  virtual Result<std::string> Unwrap(std::string_view token) = 0;
  // The most plain bytes one Wrap may take (the server's buffer, less the layer's overhead).
  virtual size_t max_wrap_input() const = 0;
  virtual Qop qop() const = 0;
};

// A complete outbound WRAP frame: request header (call id -33) and RpcSaslProto{WRAP, token}.
std::string BuildWrapFrame(std::string_view token);
// The token of an inbound WRAP frame (body without its length); an error for any other frame
// (a FATAL reply keeps its remote Status).
Result<std::string> ParseWrapReply(std::string_view body);

// Reassembles ordinary frames from the unwrapped bytes of WRAP messages: one message may carry
// several frames, and one frame may span messages.
class UnwrappedFrames {
 public:
  void Append(std::string_view bytes);
  // The next complete frame's body (its 4-byte length removed), nullopt while incomplete; an
  // error when a length is past kMaxFrameBytes.
  Result<std::optional<std::string>> Next();

 private:
  std::string buffer_;
};

}  // namespace tony::hadoop::ipc
