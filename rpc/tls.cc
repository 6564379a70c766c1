#include "rpc/tls.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>

namespace tony::rpc {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using Bignum = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;

Status OpenSslError(const std::string& what) {
  std::string detail;
  char buf[256];
  while (unsigned long e = ERR_get_error()) {  // NOLINT(google-runtime-int): OpenSSL's type
    ERR_error_string_n(e, buf, sizeof(buf));
    if (!detail.empty()) detail += "; ";
    detail += buf;
  }
  return Internal("making the job's TLS certificate: " + what +
                  (detail.empty() ? "" : ": " + detail));
}

bool AddExtension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) return false;
  bool added = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return added;
}

std::string Contents(BIO* bio) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);  // NOLINT(google-runtime-int): OpenSSL's type
  if (size <= 0 || data == nullptr) return {};
  return {data, static_cast<size_t>(size)};
}

}  // namespace

Result<JobTls> MakeJobTls() {
  ERR_clear_error();
  Key key(EVP_EC_gen("P-256"));
  if (key == nullptr) return OpenSslError("generating an ECDSA P-256 key");

  Cert cert(X509_new());
  if (cert == nullptr || X509_set_version(cert.get(), 2) != 1) {
    return OpenSslError("a new certificate");
  }
  // A random 127-bit serial: two jobs' certificates are never mistaken for one another.
  Bignum serial(BN_new());
  if (serial == nullptr || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) == nullptr) {
    return OpenSslError("the serial number");
  }
  // Valid from an hour ago (clocks across a cluster differ) and, see tls.h, without an end.
  if (X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) == nullptr ||
      ASN1_TIME_set_string_X509(X509_getm_notAfter(cert.get()), "99991231235959Z") != 1) {
    return OpenSslError("the validity");
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>(kJobTlsServerName), -1, -1,
                                 0) != 1 ||
      X509_set_issuer_name(cert.get(), name) != 1 || X509_set_pubkey(cert.get(), key.get()) != 1) {
    return OpenSslError("the subject");
  }
  std::string san = std::string("DNS:") + kJobTlsServerName;
  if (!AddExtension(cert.get(), NID_basic_constraints, "critical,CA:TRUE") ||
      !AddExtension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign") ||
      !AddExtension(cert.get(), NID_ext_key_usage, "serverAuth,clientAuth") ||
      !AddExtension(cert.get(), NID_subject_key_identifier, "hash") ||
      !AddExtension(cert.get(), NID_subject_alt_name, san.c_str())) {
    return OpenSslError("the extensions");
  }
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) return OpenSslError("signing");

  Bio key_pem(BIO_new(BIO_s_mem()));
  Bio cert_pem(BIO_new(BIO_s_mem()));
  if (key_pem == nullptr || cert_pem == nullptr ||
      PEM_write_bio_PrivateKey(key_pem.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
          1 ||
      PEM_write_bio_X509(cert_pem.get(), cert.get()) != 1) {
    return OpenSslError("writing the key and certificate as PEM");
  }
  JobTls tls{Contents(key_pem.get()), Contents(cert_pem.get())};
  if (tls.key_pem.empty() || tls.cert_pem.empty()) return OpenSslError("reading the PEM back");
  return tls;
}

}  // namespace tony::rpc
