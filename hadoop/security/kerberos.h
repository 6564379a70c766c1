// Kerberos login for Hadoop clients: credentials from the user's ticket cache (kinit,
// KRB5CCNAME) or from a principal's keytab, through MIT krb5's GSS-API (docs/hadoop-ipc.md,
// Kerberos).
//
// A keytab login keeps its tickets in a MEMORY cache of this process, never in the user's cache,
// and MIT's GSS-API gets fresh tickets from the keytab when they near their end (so a long job
// outlives one ticket's lifetime). A ticket-cache login reads the cache as kinit left it.
// Errors say what to do (run kinit, or which keytab failed); they never carry key material.
// Ownership: shared by the connections that authenticate with it (std::shared_ptr).
// Thread-safety: immutable after login; MIT's GSS-API credential handles may be used by several
// contexts at once.
#pragma once

#include <gssapi/gssapi.h>

#include <chrono>
#include <memory>
#include <string>

#include "common/status.h"

namespace tony::hadoop::security {

class KerberosCredentials {
 public:
  // The default ticket cache ($KRB5CCNAME, else krb5.conf's default). kUnauthenticated, naming
  // kinit, when it holds no ticket or only an expired one.
  static Result<std::shared_ptr<KerberosCredentials>> FromTicketCache();
  // `principal` ("alice@REALM", or "alice" in the default realm) logged in from `keytab`.
  // kUnauthenticated, naming the keytab and principal, when the KDC refuses the keys.
  static Result<std::shared_ptr<KerberosCredentials>> FromKeytab(const std::string& principal,
                                                                 const std::string& keytab);

  ~KerberosCredentials();
  KerberosCredentials(const KerberosCredentials&) = delete;
  KerberosCredentials& operator=(const KerberosCredentials&) = delete;

  // The full principal name, e.g. "alice@EXAMPLE.COM" (Hadoop's effective user for KERBEROS).
  const std::string& principal() const { return principal_; }
  // Where the tickets came from, for messages: "ticket cache FILE:/tmp/krb5cc_1000" or
  // "keytab /path".
  const std::string& source() const { return source_; }
  gss_cred_id_t handle() const { return cred_; }
  // A keytab login's own MEMORY cache name ("MEMORY:tony-login-..."); empty for the ticket cache.
  const std::string& ccache() const { return ccache_; }

 private:
  KerberosCredentials(gss_cred_id_t cred, std::string principal, std::string source,
                      std::string ccache = "")
      : cred_(cred),
        principal_(std::move(principal)),
        source_(std::move(source)),
        ccache_(std::move(ccache)) {}

  gss_cred_id_t cred_;
  std::string principal_;
  std::string source_;
  std::string ccache_;
};

// A keytab's bytes as a keytab name MIT's library reads ("FILE:/proc/self/fd/<n>" of an
// anonymous memory file, memfd_create): the keys never reach a file on disk, and the memory file
// lives as long as this process. For MemoryTicketCache::FromKeytab.
Result<std::string> KeytabInMemory(const std::string& bytes);

// A MEMORY credentials cache of this process holding a fresh ticket-granting ticket of a
// principal from its keytab (kinit -k, MIT's krb5_get_init_creds_keytab), for libcurl's SPNEGO,
// which takes tickets from the default cache only. Destroyed with the object.
// Thread-safety: UseOnThisThread affects the calling thread only.
class MemoryTicketCache {
 public:
  // kUnauthenticated naming the principal and keytab when the KDC refuses the keys.
  static Result<std::unique_ptr<MemoryTicketCache>> FromKeytab(const std::string& principal,
                                                               const std::string& keytab);
  ~MemoryTicketCache();
  MemoryTicketCache(const MemoryTicketCache&) = delete;
  MemoryTicketCache& operator=(const MemoryTicketCache&) = delete;

  // Makes this cache the default of the calling thread's GSS-API calls (gss_krb5_ccache_name),
  // libcurl's SPNEGO among them; other threads keep theirs.
  Status UseOnThisThread() const;
  const std::string& name() const { return name_; }

 private:
  explicit MemoryTicketCache(std::string name) : name_(std::move(name)) {}
  std::string name_;  // "MEMORY:tony-login-..."
};

// The GSS-API's own words for a (major, minor) status, e.g. "Server not found in Kerberos
// database"; for errors.
std::string GssStatusText(OM_uint32 major, OM_uint32 minor);

}  // namespace tony::hadoop::security
