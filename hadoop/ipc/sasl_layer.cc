#include "hadoop/ipc/sasl_layer.h"

#include "RpcHeader.pb.h"
#include "common/strings.h"
#include "hadoop/ipc/wire.h"

namespace tony::hadoop::ipc {

using ::hadoop::common::RpcSaslProto;

uint8_t QopLayerBit(Qop qop) {
  switch (qop) {
    case Qop::kAuthentication:
      return kLayerNone;
    case Qop::kIntegrity:
      return kLayerIntegrity;
    case Qop::kPrivacy:
      return kLayerPrivacy;
  }
  return kLayerNone;
}

std::string_view QopName(Qop qop) {
  switch (qop) {
    case Qop::kAuthentication:
      return "authentication";
    case Qop::kIntegrity:
      return "integrity";
    case Qop::kPrivacy:
      return "privacy";
  }
  return "authentication";
}

Result<std::vector<Qop>> ParseRpcProtection(std::string_view value) {
  std::vector<Qop> out;
  std::string_view rest = value;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view word = Trim(rest.substr(0, comma));
    bool known = false;
    for (Qop q : {Qop::kAuthentication, Qop::kIntegrity, Qop::kPrivacy}) {
      if (word == QopName(q)) {
        out.push_back(q);
        known = true;
      }
    }
    if (!known) {
      return InvalidArgument("hadoop.rpc.protection = '" + std::string(value) +
                             "': expected a comma list of authentication, integrity, privacy");
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

Result<Qop> ChooseQop(uint8_t offered_layers, const std::vector<Qop>& acceptable) {
  std::string offered;
  for (Qop q : {Qop::kAuthentication, Qop::kIntegrity, Qop::kPrivacy}) {
    if ((offered_layers & QopLayerBit(q)) != 0) {
      offered += (offered.empty() ? "" : ",") + std::string(QopName(q));
    }
  }
  for (Qop q : acceptable) {
    if ((offered_layers & QopLayerBit(q)) != 0) return q;
  }
  std::string ours;
  for (Qop q : acceptable) ours += (ours.empty() ? "" : ",") + std::string(QopName(q));
  return Unauthenticated(
      "No common protection layer between client and server: the server "
      "offers [" +
      offered + "], hadoop.rpc.protection here allows [" + ours + "]");
}

std::string BuildWrapFrame(std::string_view token) {
  auto header = MakeRequestHeader(kSaslCallId, -1, "");
  RpcSaslProto wrap;
  wrap.set_state(RpcSaslProto::WRAP);
  wrap.set_token(std::string(token));
  return BuildFrame({&header, &wrap});
}

Result<std::string> ParseWrapReply(std::string_view body) {
  TONY_ASSIGN_OR_RETURN(RpcSaslProto msg, ParseSaslReply(body));
  if (msg.state() != RpcSaslProto::WRAP) {
    return Internal("SASL: expected a WRAP message after the handshake, got " +
                    RpcSaslProto::SaslState_Name(msg.state()));
  }
  return std::move(*msg.mutable_token());
}

void UnwrappedFrames::Append(std::string_view bytes) { buffer_.append(bytes); }

Result<std::optional<std::string>> UnwrappedFrames::Next() {
  if (buffer_.size() < 4) return std::optional<std::string>();
  TONY_ASSIGN_OR_RETURN(uint32_t len, FrameBodyLength(std::string_view(buffer_).substr(0, 4)));
  if (buffer_.size() - 4 < len) return std::optional<std::string>();
  std::string body = buffer_.substr(4, len);
  buffer_.erase(0, 4 + static_cast<size_t>(len));
  return std::optional<std::string>(std::move(body));
}

}  // namespace tony::hadoop::ipc
