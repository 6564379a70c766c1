#include "hadoop/hdfs/tls.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/x509.h>

#include <memory>

#include "common/files.h"
#include "common/strings.h"

namespace tony::hadoop::hdfs {
namespace {

// A trust store of many CAs is still small; this bounds what a wrong path makes us read.
constexpr size_t kMaxTrustFileBytes = 16 << 20;

std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;

Bio MemBio(const std::string& bytes) {
  return Bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())), BIO_free);
}

// The PEM text of `certs`, one after the other.
Result<std::string> ToPem(const std::vector<X509*>& certs, const std::string& what) {
  Bio out(BIO_new(BIO_s_mem()), BIO_free);
  for (X509* c : certs) {
    if (PEM_write_bio_X509(out.get(), c) != 1) return Internal(what + ": " + OpenSslError());
  }
  char* data = nullptr;
  long len = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<size_t>(len));
}

// Java keytool's PKCS12 stores before JDK 11.0.12 encrypt certificates with RC2-40, which
// OpenSSL 3 keeps in its legacy provider; loaded once, beside the default one, when needed.
// The providers stay loaded for the process's life; kept in statics so that they are reachable
// (LeakSanitizer reported the discarded handles as leaks). A provider that cannot load leaves
// the parse to fail as it did, naming OpenSSL's reason.
void LoadLegacyProviders() {
  [[maybe_unused]] static OSSL_PROVIDER* const legacy = OSSL_PROVIDER_load(nullptr, "legacy");
  [[maybe_unused]] static OSSL_PROVIDER* const fallback = OSSL_PROVIDER_load(nullptr, "default");
}

// JKS files begin with the magic number 0xFEEDFEED; JCEKS with 0xCECECECE.
bool IsJavaKeyStore(const std::string& bytes) {
  if (bytes.size() < 4) return false;
  auto b = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
  return (b(0) == 0xFE && b(1) == 0xED && b(2) == 0xFE && b(3) == 0xED) ||
         (b(0) == 0xCE && b(1) == 0xCE && b(2) == 0xCE && b(3) == 0xCE);
}

}  // namespace

Result<TlsTrust> TrustFromPemFile(const std::string& path, const std::string& key) {
  const std::string what = key + " " + path;
  auto text = ReadFileBounded(path, kMaxTrustFileBytes);
  if (!text.ok()) return text.status().WithContext(what);
  Bio in = MemBio(*text);
  int count = 0;
  while (true) {
    X509* cert = PEM_read_bio_X509(in.get(), nullptr, nullptr, nullptr);
    if (cert == nullptr) break;
    X509_free(cert);
    ++count;
  }
  ERR_clear_error();  // the end of the bundle reads as an error
  if (count == 0) {
    return InvalidArgument(what + ": no PEM certificate (-----BEGIN CERTIFICATE-----) in it; " +
                           key + " takes the cluster's CA certificates as a PEM bundle");
  }
  return TlsTrust{*std::move(text), what};
}

Result<std::string> PemFromPkcs12(const std::string& der, const std::string& password,
                                  const std::string& what) {
  auto parse = [&](std::vector<X509*>& out) -> Status {
    Bio in = MemBio(der);
    PKCS12* p12 = d2i_PKCS12_bio(in.get(), nullptr);
    if (p12 == nullptr)
      return InvalidArgument(what + ": not a PKCS12 file (" + OpenSslError() + ")");
    EVP_PKEY* key = nullptr;
    X509* cert = nullptr;
    STACK_OF(X509)* ca = nullptr;
    int ok = PKCS12_parse(p12, password.empty() ? nullptr : password.c_str(), &key, &cert, &ca);
    PKCS12_free(p12);
    if (ok != 1) {
      return InvalidArgument(what +
                             ": cannot read it with the password of "
                             "ssl.client.truststore.password (" +
                             OpenSslError() + ")");
    }
    EVP_PKEY_free(key);  // a trust store has no private key; one that has is not ours to use
    if (cert != nullptr) out.push_back(cert);
    for (int i = 0; ca != nullptr && i < sk_X509_num(ca); ++i) out.push_back(sk_X509_value(ca, i));
    sk_X509_free(ca);  // the certificates are now out's
    return Status::Ok();
  };
  std::vector<X509*> certs;
  Status s = parse(certs);
  if (!s.ok()) {
    LoadLegacyProviders();
    s = parse(certs);
  }
  if (!s.ok()) return s;
  auto pem = ToPem(certs, what);
  for (X509* c : certs) X509_free(c);
  if (pem.ok() && pem->empty())
    return InvalidArgument(what + ": the trust store holds no certificate");
  return pem;
}

Result<TlsTrust> TrustFromTrustStore(const TrustStoreFile& store, const std::string& ca_file_key) {
  const std::string what =
      store.location + " (ssl.client.truststore.location in " + store.conf_file + ")";
  auto bytes = ReadFileBounded(store.location, kMaxTrustFileBytes);
  if (!bytes.ok()) return bytes.status().WithContext(what);
  if (IsJavaKeyStore(*bytes)) {
    return FailedPrecondition(
        what + " is a Java JKS trust store, which tony cannot read: set " + ca_file_key +
        " to a PEM file with the cluster's CA certificates (keytool -exportcert -rfc), or convert "
        "the trust store to PKCS12 (keytool -importkeystore -deststoretype pkcs12) and set "
        "ssl.client.truststore.type to pkcs12");
  }
  std::string type = ToLower(Trim(store.type));
  if (!type.empty() && type != "jks" && type != "pkcs12") {
    return InvalidArgument(what + ": ssl.client.truststore.type is " + store.type +
                           "; tony reads pkcs12 trust stores (or set " + ca_file_key + ")");
  }
  TONY_ASSIGN_OR_RETURN(std::string pem, PemFromPkcs12(*bytes, store.password, what));
  return TlsTrust{std::move(pem), what};
}

Result<TlsTrust> LoadTrust(const std::string& ca_file, const std::string& ca_file_key,
                           const TrustStoreFile& store) {
  if (!ca_file.empty()) return TrustFromPemFile(ca_file, ca_file_key);
  if (!store.location.empty()) return TrustFromTrustStore(store, ca_file_key);
  return TlsTrust{"", "the system's CA certificates"};
}

}  // namespace tony::hadoop::hdfs
