// The certificate authorities tony's https requests trust (WebHDFS over TLS, "swebhdfs", and a
// NodeManager's web service on a yarn.http.policy=HTTPS_ONLY cluster), as PEM in memory
// (docs/hadoop-ipc.md §6.3).
//
// Where they come from, first match wins (docs/keys.md, tony.application.ssl.ca-file):
//  1. tony.application.ssl.ca-file: a PEM bundle.
//  2. The cluster's ssl-client.xml (the file core-site's hadoop.ssl.client.conf names, beside
//     the site files): ssl.client.truststore.location when its type is PKCS12, converted to PEM
//     with OpenSSL's PKCS12 API. Java's JKS format has no reader outside the JVM: such a trust
//     store is refused with an error naming the file and both ways out.
//  3. Neither: the system's CAs (libcurl's default bundle).
// Peer and host verification are always on; when CAs are given, only they are trusted (the
// system's are not added), as a Hadoop client trusts only its trust store.
// Thread-safety: plain values; the functions keep no state.
#pragma once

#include <string>

#include "common/status.h"
#include "config/key_names.h"

namespace tony::hadoop::hdfs {

// The secret key under which tony carries the CAs' PEM in a container's credentials (the AM's,
// then every task's): a file's worth of certificates does not fit the environment, and it is no
// secret. The executor writes it to kTrustFile in the container and names it in
// TONY_WEBHDFS_CA_FILE (executor/hadoop_env.h).
inline constexpr const auto& kTrustAlias = keys::kWebHdfsTrustAlias;
inline constexpr char kTrustFile[] = "tony-webhdfs-ca.pem";

struct TlsTrust {
  std::string ca_pem;  // PEM certificates; empty: the system's CAs
  std::string source;  // where ca_pem came from, for errors ("tony.application.ssl.ca-file x")
};

// ssl-client.xml's trust store settings (Hadoop's FileBasedKeyStoresFactory keys).
struct TrustStoreFile {
  std::string location;   // ssl.client.truststore.location; empty: none
  std::string type;       // ssl.client.truststore.type; Hadoop's default is jks
  std::string password;   // ssl.client.truststore.password; may be empty
  std::string conf_file;  // the ssl-client.xml that named it, for errors
};

// The CAs of a PEM file: every certificate in it; an error names `key` and the file when it
// cannot be read or holds none.
Result<TlsTrust> TrustFromPemFile(const std::string& path, const std::string& key);

// The certificates of a PKCS12 store (DER bytes) as PEM. `what` names it in errors.
Result<std::string> PemFromPkcs12(const std::string& der, const std::string& password,
                                  const std::string& what);

// The trust of a Hadoop client trust store file: PKCS12 converted, JKS refused (by its magic
// number, whatever ssl.client.truststore.type says: a JDK 9+ "jks" store is often PKCS12).
Result<TlsTrust> TrustFromTrustStore(const TrustStoreFile& store, const std::string& ca_file_key);

// The rule above: `ca_file` (the key's value) if set, else `store` if it has a location, else
// the system's CAs.
Result<TlsTrust> LoadTrust(const std::string& ca_file, const std::string& ca_file_key,
                           const TrustStoreFile& store);

}  // namespace tony::hadoop::hdfs
