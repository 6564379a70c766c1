// The control plane's TLS on YARN (README, "The job secret"): a key pair and a self-signed
// certificate made by the submitting client for one job, shipped to the AM and to every executor
// as secret keys of their containers' credentials, never in a file, argument or environment
// variable of the job's own code. Both ends present the job's certificate and trust nothing
// else (mutual TLS pinned to it, as Skein does for its control plane), so a peer without the
// job's credentials cannot complete the handshake, and nothing on the wire, the job secret
// included, is in clear.
//
// On the local engine the control plane stays on loopback with the secret alone (the secret
// never leaves the machine).
//
// Thread-safety: MakeJobTls is pure apart from OpenSSL's thread-safe RNG.
#pragma once

#include <string>

#include "common/status.h"
#include "config/key_names.h"

namespace tony::rpc {

// The secret keys of the containers' credentials that carry the job's TLS identity.
using keys::kJobTlsCertAlias;
using keys::kJobTlsKeyAlias;
// The one name the certificate is for; clients check the server against it whatever host and
// port they dial (the AM's host is only known once YARN has placed it).
inline constexpr char kJobTlsServerName[] = "tony-control-plane";

struct JobTls {
  std::string key_pem;   // PKCS#8 private key, PEM
  std::string cert_pem;  // X.509 certificate, PEM
};

// A fresh ECDSA P-256 key and a certificate for it: subject and SAN kJobTlsServerName, its own
// issuer (CA:TRUE, so that it can be the only trusted root), SHA-256 signed. It does not expire
// (RFC 5280's 99991231235959Z): it lives exactly as long as the job that holds it, and an
// expiring certificate would end a long training. kInternal when OpenSSL fails, with its reason.
Result<JobTls> MakeJobTls();

}  // namespace tony::rpc
