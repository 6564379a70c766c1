#include "hadoop/security/kerberos.h"

#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>
#include <krb5/krb5.h>
#include <openssl/rand.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace tony::hadoop::security {
namespace {

gss_OID_set_desc KrbMechSet() { return {1, const_cast<gss_OID>(gss_mech_krb5)}; }

std::string TicketCacheName() {
  const char* env = std::getenv("KRB5CCNAME");
  return env != nullptr && *env != '\0' ? env : "the default ticket cache";
}

// A MEMORY cache name of our own for a keytab login: the tickets never reach the user's cache.
std::string NewMemoryCacheName() {
  unsigned char bytes[8] = {};
  RAND_bytes(bytes, sizeof(bytes));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name = "MEMORY:tony-login-";
  for (unsigned char b : bytes) {
    name += kHex[b >> 4];
    name += kHex[b & 15];
  }
  return name;
}

// Resolves the credential (a keytab login gets its first ticket here) and reads its name and
// remaining lifetime.
Status InquireCred(gss_cred_id_t cred, std::string* principal, OM_uint32* lifetime) {
  OM_uint32 minor = 0;
  gss_name_t name = GSS_C_NO_NAME;
  OM_uint32 major = gss_inquire_cred(&minor, cred, &name, lifetime, nullptr, nullptr);
  if (GSS_ROUTINE_ERROR(major) == GSS_S_CREDENTIALS_EXPIRED) {
    return Unauthenticated("the Kerberos ticket has expired");
  }
  if (GSS_ERROR(major)) return Unauthenticated(GssStatusText(major, minor));
  gss_buffer_desc text = GSS_C_EMPTY_BUFFER;
  major = gss_display_name(&minor, name, &text, nullptr);
  OM_uint32 ignored = 0;
  gss_release_name(&ignored, &name);
  if (GSS_ERROR(major)) return Internal("gss_display_name: " + GssStatusText(major, minor));
  principal->assign(static_cast<const char*>(text.value), text.length);
  gss_release_buffer(&ignored, &text);
  return Status::Ok();
}

}  // namespace

std::string GssStatusText(OM_uint32 major, OM_uint32 minor) {
  std::string out;
  auto append = [&out](OM_uint32 code, int type) {
    OM_uint32 context = 0;
    do {
      OM_uint32 ignored = 0;
      gss_buffer_desc text = GSS_C_EMPTY_BUFFER;
      if (GSS_ERROR(gss_display_status(&ignored, code, type, GSS_C_NO_OID, &context, &text))) {
        return;
      }
      if (!out.empty()) out += ": ";
      out.append(static_cast<const char*>(text.value), text.length);
      gss_release_buffer(&ignored, &text);
    } while (context != 0);
  };
  append(major, GSS_C_GSS_CODE);
  if (minor != 0) append(minor, GSS_C_MECH_CODE);
  return out;
}

Result<std::shared_ptr<KerberosCredentials>> KerberosCredentials::FromTicketCache() {
  const std::string cache = TicketCacheName();
  const std::string hint =
      "run kinit (or submit with --principal and --keytab) to get a Kerberos ticket in " + cache;
  gss_OID_set_desc mechs = KrbMechSet();
  gss_cred_id_t cred = GSS_C_NO_CREDENTIAL;
  OM_uint32 minor = 0;
  OM_uint32 major = gss_acquire_cred(&minor, GSS_C_NO_NAME, GSS_C_INDEFINITE, &mechs,
                                     GSS_C_INITIATE, &cred, nullptr, nullptr);
  if (GSS_ROUTINE_ERROR(major) == GSS_S_CREDENTIALS_EXPIRED) {
    return Unauthenticated("the Kerberos ticket in " + cache + " has expired: " + hint);
  }
  if (GSS_ERROR(major)) {
    return Unauthenticated("no usable Kerberos ticket (" + GssStatusText(major, minor) +
                           "): " + hint);
  }
  std::string principal;
  OM_uint32 lifetime = 0;
  Status s = InquireCred(cred, &principal, &lifetime);
  if (s.ok() && lifetime == 0) {
    s = Unauthenticated("the Kerberos ticket of " + principal + " in " + cache + " has expired");
  }
  if (!s.ok()) {
    gss_release_cred(&minor, &cred);
    return Unauthenticated(s.message() + ": " + hint);
  }
  return std::shared_ptr<KerberosCredentials>(
      new KerberosCredentials(cred, principal, "ticket cache " + cache));
}

Result<std::shared_ptr<KerberosCredentials>> KerberosCredentials::FromKeytab(
    const std::string& principal, const std::string& keytab) {
  const std::string what = "Kerberos login of " + principal + " from keytab " + keytab;
  // MIT reports a keytab without the principal's keys as no (or an empty) credentials cache.
  const std::string hint =
      "check that the keytab holds current keys of " + principal + " (klist -kt " + keytab + ")";
  OM_uint32 minor = 0;
  gss_buffer_desc name_text{principal.size(), const_cast<char*>(principal.data())};
  gss_name_t name = GSS_C_NO_NAME;
  OM_uint32 major = gss_import_name(&minor, &name_text, GSS_KRB5_NT_PRINCIPAL_NAME, &name);
  if (GSS_ERROR(major)) {
    return InvalidArgument(what + ": bad principal name: " + GssStatusText(major, minor));
  }
  // MIT's credential store: initial tickets from the client keytab, kept in our MEMORY cache.
  const std::string ccache = NewMemoryCacheName();
  gss_key_value_element_desc elements[] = {{"client_keytab", keytab.c_str()},
                                           {"ccache", ccache.c_str()}};
  gss_key_value_set_desc store{2, elements};
  gss_OID_set_desc mechs = KrbMechSet();
  gss_cred_id_t cred = GSS_C_NO_CREDENTIAL;
  major = gss_acquire_cred_from(&minor, name, GSS_C_INDEFINITE, &mechs, GSS_C_INITIATE, &store,
                                &cred, nullptr, nullptr);
  OM_uint32 ignored = 0;
  gss_release_name(&ignored, &name);
  if (GSS_ERROR(major)) {
    return Unauthenticated(what + " failed (" + GssStatusText(major, minor) + "): " + hint);
  }
  std::string logged_in;
  OM_uint32 lifetime = 0;
  if (Status s = InquireCred(cred, &logged_in, &lifetime); !s.ok()) {
    gss_release_cred(&ignored, &cred);
    return Unauthenticated(what + " failed (" + s.message() + "): " + hint);
  }
  return std::shared_ptr<KerberosCredentials>(
      new KerberosCredentials(cred, logged_in, "keytab " + keytab, ccache));
}

KerberosCredentials::~KerberosCredentials() {
  OM_uint32 minor = 0;
  if (cred_ != GSS_C_NO_CREDENTIAL) gss_release_cred(&minor, &cred_);
}

Result<std::string> KeytabInMemory(const std::string& bytes) {
  int fd = ::memfd_create("tony-keytab", MFD_CLOEXEC);
  if (fd < 0) return Internal(std::string("memfd_create for the keytab: ") + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      return Internal(std::string("writing the keytab to memory: ") + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  return "FILE:/proc/self/fd/" + std::to_string(fd);
}

namespace {

// MIT's words for a krb5 error code of `ctx`.
std::string Krb5Error(krb5_context ctx, krb5_error_code code) {
  const char* text = krb5_get_error_message(ctx, code);
  std::string out = text != nullptr ? text : "error " + std::to_string(code);
  krb5_free_error_message(ctx, text);
  return out;
}

}  // namespace

Result<std::unique_ptr<MemoryTicketCache>> MemoryTicketCache::FromKeytab(
    const std::string& principal, const std::string& keytab) {
  const std::string what = "Kerberos login of " + principal + " from keytab " + keytab;
  krb5_context ctx = nullptr;
  if (krb5_error_code code = krb5_init_context(&ctx); code != 0) {
    return Internal(what + ": krb5_init_context failed (" + std::to_string(code) + ")");
  }
  std::unique_ptr<MemoryTicketCache> out(new MemoryTicketCache(NewMemoryCacheName()));
  krb5_principal client = nullptr;
  krb5_keytab kt = nullptr;
  krb5_ccache cc = nullptr;
  krb5_creds creds{};
  bool have_creds = false;
  std::string step;
  krb5_error_code code = krb5_parse_name(ctx, principal.c_str(), &client);
  if (code == 0) code = krb5_kt_resolve(ctx, keytab.c_str(), &kt);
  if (code == 0) {
    step = "the KDC refused the keytab's keys: ";
    code = krb5_get_init_creds_keytab(ctx, &creds, client, kt, 0, nullptr, nullptr);
    have_creds = code == 0;
  }
  if (code == 0) {
    step = "storing the ticket: ";
    code = krb5_cc_resolve(ctx, out->name_.c_str(), &cc);
  }
  if (code == 0) code = krb5_cc_initialize(ctx, cc, client);
  if (code == 0) code = krb5_cc_store_cred(ctx, cc, &creds);
  std::string error = code != 0 ? Krb5Error(ctx, code) : "";
  if (have_creds) krb5_free_cred_contents(ctx, &creds);
  if (cc != nullptr) krb5_cc_close(ctx, cc);
  if (kt != nullptr) krb5_kt_close(ctx, kt);
  if (client != nullptr) krb5_free_principal(ctx, client);
  krb5_free_context(ctx);
  if (code != 0) return Unauthenticated(what + " failed: " + step + error);
  return out;
}

MemoryTicketCache::~MemoryTicketCache() {
  krb5_context ctx = nullptr;
  if (krb5_init_context(&ctx) != 0) return;
  krb5_ccache cc = nullptr;
  if (krb5_cc_resolve(ctx, name_.c_str(), &cc) == 0) krb5_cc_destroy(ctx, cc);
  krb5_free_context(ctx);
}

Status MemoryTicketCache::UseOnThisThread() const {
  OM_uint32 minor = 0;
  OM_uint32 major = gss_krb5_ccache_name(&minor, name_.c_str(), nullptr);
  if (GSS_ERROR(major)) {
    return Internal("using the credentials cache " + name_ + ": " + GssStatusText(major, minor));
  }
  return Status::Ok();
}

}  // namespace tony::hadoop::security
