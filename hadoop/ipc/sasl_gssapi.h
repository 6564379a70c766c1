// The client side of SASL GSSAPI (RFC 4752) over MIT krb5's GSS-API, as Hadoop's KERBEROS
// authentication uses it (docs/hadoop-ipc.md, SASL and Kerberos).
//
// The exchange: gss_init_sec_context tokens until the Kerberos context is complete (INITIATE,
// then RESPONSE to each CHALLENGE), then the security-layer step: the server's wrapped 4-byte
// offer (layer bits, its largest message), our wrapped 4-byte choice (no authorization id: the
// server then authorizes as the authenticated principal). For integrity and privacy the context
// becomes the connection's SecurityLayer (gss_wrap/gss_unwrap of every frame).
// Why MIT's GSS-API and not Cyrus SASL: GSSAPI's SASL framing is two 4-byte messages, while
// Cyrus would need its GSSAPI plugin found at run time on every node; the Kerberos work itself
// (tickets, keys, encryption) stays in libgssapi_krb5.
// Thread-safety: a GssapiSaslClient belongs to one handshake; the SecurityLayer it yields
// serializes wrap and unwrap internally.
#pragma once

#include <gssapi/gssapi.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "hadoop/ipc/sasl_layer.h"
#include "hadoop/security/kerberos.h"

namespace tony::hadoop::ipc {

// The server's security-layer offer, once unwrapped: 4 bytes, the layer bits then the largest
// message it accepts (24 bits, big-endian).
struct GssapiOffer {
  uint8_t layers = 0;
  uint32_t max_message = 0;
};
Result<GssapiOffer> ParseGssapiOffer(std::string_view unwrapped);
// Our answer before wrapping: the chosen layer bit and the largest message we accept.
std::string GssapiChoice(Qop qop, uint32_t max_receive);

// "service/host@REALM" -> "service/host" (what the server's NEGOTIATE entry names as
// protocol/serverId).
std::string_view PrincipalWithoutRealm(std::string_view principal);

class GssapiSaslClient {
 public:
  // `server_principal` is the full principal the client expects (e.g.
  // yarn.resourcemanager.principal with _HOST replaced); `acceptable` comes from
  // hadoop.rpc.protection.
  GssapiSaslClient(std::shared_ptr<security::KerberosCredentials> creds,
                   std::string server_principal, std::vector<Qop> acceptable);
  ~GssapiSaslClient();
  GssapiSaslClient(const GssapiSaslClient&) = delete;
  GssapiSaslClient& operator=(const GssapiSaslClient&) = delete;

  // The first token (for INITIATE).
  Result<std::string> Start();
  // The answer to a CHALLENGE: the next context token, or the wrapped layer choice once the
  // context is complete.
  Result<std::string> EvaluateChallenge(std::string_view challenge);
  // True once the layer choice went out (the server's SUCCESS may follow).
  bool complete() const { return layer_chosen_; }
  Qop qop() const { return qop_; }
  // For integrity and privacy: the layer that wraps every later frame (the context moves into
  // it); nullptr for authentication. Call once, after complete().
  std::unique_ptr<SecurityLayer> TakeSecurityLayer();

 private:
  Result<std::string> Step(std::string_view input);
  Result<std::string> ChooseLayer(std::string_view wrapped_offer);

  std::shared_ptr<security::KerberosCredentials> creds_;
  std::string server_principal_;
  std::vector<Qop> acceptable_;
  gss_name_t target_ = GSS_C_NO_NAME;
  gss_ctx_id_t context_ = GSS_C_NO_CONTEXT;
  bool context_complete_ = false;
  bool layer_chosen_ = false;
  Qop qop_ = Qop::kAuthentication;
  uint32_t server_max_message_ = 0;
};

}  // namespace tony::hadoop::ipc
