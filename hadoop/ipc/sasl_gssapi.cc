#include "hadoop/ipc/sasl_gssapi.h"

#include <gssapi/gssapi_krb5.h>

#include <algorithm>
#include <mutex>

namespace tony::hadoop::ipc {
namespace {

// Our receive limit in the choice: Hadoop's server wraps a whole response in one token.
constexpr uint32_t kMaxReceive = 0xFFFFFF;
// Our own cap on one wrapped chunk, whatever the server allows.
constexpr uint32_t kMaxChunk = 1u << 20;

class Buffer {
 public:
  Buffer() = default;
  ~Buffer() {
    OM_uint32 minor = 0;
    gss_release_buffer(&minor, &buf_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  gss_buffer_t get() { return &buf_; }
  std::string str() const { return {static_cast<const char*>(buf_.value), buf_.length}; }

 private:
  gss_buffer_desc buf_ = GSS_C_EMPTY_BUFFER;
};

gss_buffer_desc View(std::string_view s) { return {s.size(), const_cast<char*>(s.data())}; }

// gss_wrap/gss_unwrap on the completed context, for every frame after the handshake.
class GssSecurityLayer final : public SecurityLayer {
 public:
  GssSecurityLayer(gss_ctx_id_t context, Qop qop, uint32_t server_max)
      : context_(context), qop_(qop) {
    OM_uint32 minor = 0;
    OM_uint32 limit = 0;
    uint32_t out_max = server_max == 0 ? kMaxChunk : std::min(server_max, kMaxChunk);
    if (GSS_ERROR(gss_wrap_size_limit(&minor, context_, qop == Qop::kPrivacy, GSS_C_QOP_DEFAULT,
                                      out_max, &limit)) ||
        limit == 0) {
      limit = out_max / 2;  // generous room for the token's own header and checksum
    }
    max_input_ = limit;
  }
  ~GssSecurityLayer() override {
    OM_uint32 minor = 0;
    gss_delete_sec_context(&minor, &context_, GSS_C_NO_BUFFER);
  }

  Result<std::string> Wrap(std::string_view plain) override {
    std::lock_guard<std::mutex> lock(mu_);
    gss_buffer_desc in = View(plain);
    Buffer out;
    int conf_state = 0;
    OM_uint32 minor = 0;
    OM_uint32 major = gss_wrap(&minor, context_, qop_ == Qop::kPrivacy, GSS_C_QOP_DEFAULT, &in,
                               &conf_state, out.get());
    if (GSS_ERROR(major)) return Internal("gss_wrap: " + security::GssStatusText(major, minor));
    if (qop_ == Qop::kPrivacy && conf_state == 0) {
      return Internal("gss_wrap: the Kerberos context cannot encrypt");
    }
    return out.str();
  }

  Result<std::string> Unwrap(std::string_view token) override {
    std::lock_guard<std::mutex> lock(mu_);
    gss_buffer_desc in = View(token);
    Buffer out;
    int conf_state = 0;
    OM_uint32 minor = 0;
    OM_uint32 major = gss_unwrap(&minor, context_, &in, out.get(), &conf_state, nullptr);
    if (GSS_ERROR(major)) {
      return Unauthenticated("SASL: a wrapped reply failed its check (gss_unwrap: " +
                             security::GssStatusText(major, minor) + ")");
    }
    if (qop_ == Qop::kPrivacy && conf_state == 0) {
      return Unauthenticated("SASL: the server sent an unencrypted reply on a privacy connection");
    }
    return out.str();
  }

  size_t max_wrap_input() const override { return max_input_; }
  Qop qop() const override { return qop_; }

 private:
  std::mutex mu_;  // MIT's contexts are not safe for concurrent use
  gss_ctx_id_t context_;
  Qop qop_;
  size_t max_input_ = 0;
};

}  // namespace

Result<GssapiOffer> ParseGssapiOffer(std::string_view unwrapped) {
  if (unwrapped.size() != 4) {
    return Internal("SASL GSSAPI: the security-layer offer has " +
                    std::to_string(unwrapped.size()) + " bytes, expected 4");
  }
  GssapiOffer offer;
  offer.layers = static_cast<uint8_t>(unwrapped[0]);
  offer.max_message = (static_cast<uint32_t>(static_cast<uint8_t>(unwrapped[1])) << 16) |
                      (static_cast<uint32_t>(static_cast<uint8_t>(unwrapped[2])) << 8) |
                      static_cast<uint32_t>(static_cast<uint8_t>(unwrapped[3]));
  if ((offer.layers & (kLayerNone | kLayerIntegrity | kLayerPrivacy)) == 0) {
    return Internal("SASL GSSAPI: the server offers no known security layer");
  }
  return offer;
}

std::string GssapiChoice(Qop qop, uint32_t max_receive) {
  uint32_t size = qop == Qop::kAuthentication ? 0 : std::min(max_receive, kMaxReceive);
  std::string out(4, '\0');
  out[0] = static_cast<char>(QopLayerBit(qop));
  out[1] = static_cast<char>((size >> 16) & 0xFF);
  out[2] = static_cast<char>((size >> 8) & 0xFF);
  out[3] = static_cast<char>(size & 0xFF);
  return out;
}

std::string_view PrincipalWithoutRealm(std::string_view principal) {
  return principal.substr(0, principal.find('@'));
}

GssapiSaslClient::GssapiSaslClient(std::shared_ptr<security::KerberosCredentials> creds,
                                   std::string server_principal, std::vector<Qop> acceptable)
    : creds_(std::move(creds)),
      server_principal_(std::move(server_principal)),
      acceptable_(std::move(acceptable)) {}

GssapiSaslClient::~GssapiSaslClient() {
  OM_uint32 minor = 0;
  if (context_ != GSS_C_NO_CONTEXT) gss_delete_sec_context(&minor, &context_, GSS_C_NO_BUFFER);
  if (target_ != GSS_C_NO_NAME) gss_release_name(&minor, &target_);
}

Result<std::string> GssapiSaslClient::Start() {
  gss_buffer_desc name = View(server_principal_);
  OM_uint32 minor = 0;
  OM_uint32 major = gss_import_name(&minor, &name, GSS_KRB5_NT_PRINCIPAL_NAME, &target_);
  if (GSS_ERROR(major)) {
    return InvalidArgument("server principal '" + server_principal_ +
                           "': " + security::GssStatusText(major, minor));
  }
  return Step({});
}

Result<std::string> GssapiSaslClient::Step(std::string_view input) {
  gss_buffer_desc in = View(input);
  Buffer out;
  OM_uint32 minor = 0;
  OM_uint32 flags = GSS_C_MUTUAL_FLAG | GSS_C_SEQUENCE_FLAG | GSS_C_REPLAY_FLAG | GSS_C_INTEG_FLAG |
                    GSS_C_CONF_FLAG;
  OM_uint32 major = gss_init_sec_context(
      &minor, creds_->handle(), &context_, target_, const_cast<gss_OID>(gss_mech_krb5), flags, 0,
      GSS_C_NO_CHANNEL_BINDINGS, input.empty() ? GSS_C_NO_BUFFER : &in, nullptr, out.get(), nullptr,
      nullptr);
  if (GSS_ERROR(major)) {
    return Unauthenticated("Kerberos authentication of " + creds_->principal() + " (" +
                           creds_->source() + ") to " + server_principal_ +
                           " failed: " + security::GssStatusText(major, minor));
  }
  context_complete_ = (major & GSS_S_CONTINUE_NEEDED) == 0;
  return out.str();
}

Result<std::string> GssapiSaslClient::EvaluateChallenge(std::string_view challenge) {
  if (!context_complete_) return Step(challenge);
  if (layer_chosen_) return Internal("SASL GSSAPI: a challenge after the layer was chosen");
  return ChooseLayer(challenge);
}

Result<std::string> GssapiSaslClient::ChooseLayer(std::string_view wrapped_offer) {
  gss_buffer_desc in = View(wrapped_offer);
  Buffer plain;
  OM_uint32 minor = 0;
  OM_uint32 major = gss_unwrap(&minor, context_, &in, plain.get(), nullptr, nullptr);
  if (GSS_ERROR(major)) {
    return Unauthenticated("SASL GSSAPI: cannot unwrap the server's security-layer offer: " +
                           security::GssStatusText(major, minor));
  }
  TONY_ASSIGN_OR_RETURN(GssapiOffer offer, ParseGssapiOffer(plain.str()));
  TONY_ASSIGN_OR_RETURN(qop_, ChooseQop(offer.layers, acceptable_));
  server_max_message_ = offer.max_message;
  std::string choice = GssapiChoice(qop_, kMaxReceive);
  gss_buffer_desc choice_in = View(choice);
  Buffer wrapped;
  // RFC 4752 §3.1: the choice is integrity-protected, not encrypted.
  major = gss_wrap(&minor, context_, 0, GSS_C_QOP_DEFAULT, &choice_in, nullptr, wrapped.get());
  if (GSS_ERROR(major)) return Internal("gss_wrap: " + security::GssStatusText(major, minor));
  layer_chosen_ = true;
  return wrapped.str();
}

std::unique_ptr<SecurityLayer> GssapiSaslClient::TakeSecurityLayer() {
  if (!layer_chosen_ || qop_ == Qop::kAuthentication) return nullptr;
  auto layer = std::make_unique<GssSecurityLayer>(context_, qop_, server_max_message_);
  context_ = GSS_C_NO_CONTEXT;
  return layer;
}

}  // namespace tony::hadoop::ipc
