#include "rpc/server_auth.h"

#include <grpc/grpc.h>
#include <grpc/slice.h>

#include "rpc/client.h"

namespace tony::rpc {

bool SecretMatches(std::string_view given, std::string_view secret) {
  if (secret.empty() || given.size() != secret.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < secret.size(); ++i) {
    diff |= static_cast<unsigned char>(given[i] ^ secret[i]);
  }
  return diff == 0;
}

namespace {

std::string_view View(const grpc_slice& slice) {
  return {reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(slice)), GRPC_SLICE_LENGTH(slice)};
}

// The core's processor hook. It answers at once (the check is a comparison), so gRPC need not
// hand it to a thread of its own; consuming nothing leaves the secret in the metadata for the
// handler's own check (coordinator/service.cc).
void CheckSecret(void* state, grpc_auth_context* /*context*/, const grpc_metadata* metadata,
                 size_t count, grpc_process_auth_metadata_done_cb done, void* user_data) {
  const auto* secret = static_cast<const std::string*>(state);
  if (SecretInMetadata(metadata, count, *secret)) {
    done(user_data, nullptr, 0, nullptr, 0, GRPC_STATUS_OK, nullptr);
  } else {
    done(user_data, nullptr, 0, nullptr, 0, GRPC_STATUS_UNAUTHENTICATED,
         "missing or wrong job secret (x-tony-secret)");
  }
}

void DestroySecret(void* state) { delete static_cast<std::string*>(state); }

class SecretCheckingCredentials final : public grpc::ServerCredentials {
 public:
  SecretCheckingCredentials(std::string secret, std::optional<JobTls> tls)
      : secret_(std::move(secret)), tls_(std::move(tls)) {}

  // The secret is the only processor these credentials have.
  void SetAuthMetadataProcessor(
      const std::shared_ptr<grpc::AuthMetadataProcessor>& /*processor*/) override {}

 private:
  int AddPortToServer(const std::string& address, grpc_server* server) override {
    grpc_server_credentials* credentials = nullptr;
    if (tls_) {
      grpc_ssl_pem_key_cert_pair pair{tls_->key_pem.c_str(), tls_->cert_pem.c_str()};
      credentials = grpc_ssl_server_credentials_create_ex(
          tls_->cert_pem.c_str(), &pair, 1,
          GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY, nullptr);
    } else {
      credentials = grpc_insecure_server_credentials_create();
    }
    if (credentials == nullptr) return 0;
    grpc_server_credentials_set_auth_metadata_processor(
        credentials, {&CheckSecret, &DestroySecret, new std::string(secret_)});
    int port = grpc_server_add_http2_port(server, address.c_str(), credentials);
    grpc_server_credentials_release(credentials);
    return port;
  }

  std::string secret_;
  std::optional<JobTls> tls_;
};

}  // namespace

bool SecretInMetadata(const grpc_metadata* metadata, size_t count, std::string_view secret) {
  for (size_t i = 0; i < count; ++i) {
    if (View(metadata[i].key) == kSecretMetadataKey) {
      return SecretMatches(View(metadata[i].value), secret);
    }
  }
  return false;
}

std::shared_ptr<grpc::ServerCredentials> SecretCheckingServerCredentials(
    std::string secret, std::optional<JobTls> tls) {
  return std::make_shared<SecretCheckingCredentials>(std::move(secret), std::move(tls));
}

}  // namespace tony::rpc
