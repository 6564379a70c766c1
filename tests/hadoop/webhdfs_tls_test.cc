// WebHDFS over TLS ("swebhdfs") without a cluster: which addresses and scheme the site files
// select (dfs.http.policy, dfs.namenode.https-address and its HA variants), which DataNode
// redirects are followed (no downgrade to http, only the listed hosts), and where the trusted CAs
// come from (a PEM bundle, a PKCS12 trust store converted in memory, a JKS one refused).
// The TLS handshake itself is exercised on the HTTPS-only minicluster (tests/yarn).
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

#include "common/files.h"
#include "hadoop/hdfs/tls.h"
#include "hadoop/hdfs/webhdfs.h"
#include "hadoop/yarn/cluster_conf.h"
#include "tests/hadoop/http_stub.h"

namespace tony::hadoop {
namespace {

Configuration TlsSite(const std::vector<std::pair<std::string, std::string>>& props) {
  std::string xml = "<configuration>";
  for (const auto& [k, v] : props) {
    xml += "<property><name>" + k + "</name><value>" + v + "</value></property>";
  }
  xml += "</configuration>";
  Configuration c;
  EXPECT_TRUE(c.AddXml(xml, "/conf/hdfs-site.xml").ok());
  return c;
}

bool Contains(const Status& s, const std::string& part) {
  return s.message().find(part) != std::string::npos;
}

TEST(WebHdfsPolicyTest, HttpsOnlySelectsTheHttpsAddressWithTheRpcHostForAWildcard) {
  auto c = ParseClusterConf(
      TlsSite({{"fs.defaultFS", "hdfs://nn.example.com:8020"}, {"dfs.http.policy", "HTTPS_ONLY"}}),
      "/conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->webhdfs_https);
  EXPECT_EQ(c->WebHdfsScheme(), "https");
  // hdfs-default.xml's 0.0.0.0:9871, its wildcard host replaced as for the http address.
  EXPECT_EQ(c->NameNodeWebAddresses(), (std::vector<std::string>{"nn.example.com:9871"}));
  EXPECT_EQ(c->NameNodeHttpAddresses(), (std::vector<std::string>{"nn.example.com:9870"}));
}

TEST(WebHdfsPolicyTest, HttpsOnlyIgnoresAnHttpAddressNothingListensOn) {
  // What an HTTPS_ONLY MiniDFSCluster writes: the http server was never bound.
  auto c = ParseClusterConf(TlsSite({{"fs.defaultFS", "hdfs://localhost:8020"},
                                     {"dfs.http.policy", "HTTPS_ONLY"},
                                     {"dfs.namenode.http-address", "127.0.0.1:0"},
                                     {"dfs.namenode.https-address", "localhost:40123"}}),
                            "/conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->NameNodeWebAddresses(), (std::vector<std::string>{"localhost:40123"}));
  // Without HTTPS_ONLY the same http address is the error it always was.
  auto http = ParseClusterConf(TlsSite({{"fs.defaultFS", "hdfs://localhost:8020"},
                                        {"dfs.namenode.http-address", "127.0.0.1:0"}}),
                               "/conf");
  EXPECT_FALSE(http.ok());
}

TEST(WebHdfsPolicyTest, HttpOnlyAndHttpAndHttpsKeepHttpAsHadoopsClientsDo) {
  for (const char* policy : {"HTTP_ONLY", "http_and_https"}) {
    auto c = ParseClusterConf(TlsSite({{"fs.defaultFS", "hdfs://nn:8020"},
                                       {"dfs.http.policy", policy},
                                       {"dfs.namenode.https-address", "nn:50470"}}),
                              "/conf");
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_FALSE(c->webhdfs_https) << policy;
    EXPECT_EQ(c->NameNodeWebAddresses(), (std::vector<std::string>{"nn:9870"})) << policy;
  }
}

TEST(WebHdfsPolicyTest, AnUnknownPolicyNamesTheKeyAndTheAcceptedValues) {
  auto c = ParseClusterConf(
      TlsSite({{"fs.defaultFS", "hdfs://nn:8020"}, {"dfs.http.policy", "HTTPS"}}), "/conf");
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(Contains(c.status(), "dfs.http.policy is \"HTTPS\" in /conf/hdfs-site.xml"))
      << c.status().message();
  EXPECT_TRUE(Contains(c.status(), "HTTP_ONLY, HTTPS_ONLY or HTTP_AND_HTTPS"));
}

TEST(WebHdfsPolicyTest, HaNameserviceUsesEachNameNodesHttpsAddress) {
  auto c = ParseClusterConf(TlsSite({{"fs.defaultFS", "hdfs://ns"},
                                     {"dfs.nameservices", "ns"},
                                     {"dfs.http.policy", "HTTPS_ONLY"},
                                     {"dfs.ha.namenodes.ns", "nn1,nn2"},
                                     {"dfs.namenode.rpc-address.ns.nn1", "m1:8020"},
                                     {"dfs.namenode.rpc-address.ns.nn2", "m2:8020"},
                                     {"dfs.namenode.https-address.ns.nn1", "m1:9871"},
                                     {"dfs.namenode.https-address.ns.nn2", "0.0.0.0:9871"}}),
                            "/conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->NameNodeWebAddresses(), (std::vector<std::string>{"m1:9871", "m2:9871"}));
}

TEST(WebHdfsPolicyTest, HaNameserviceWithoutAnHttpsAddressNamesTheKey) {
  auto c = ParseClusterConf(TlsSite({{"fs.defaultFS", "hdfs://ns"},
                                     {"dfs.nameservices", "ns"},
                                     {"dfs.http.policy", "HTTPS_ONLY"},
                                     {"dfs.ha.namenodes.ns", "nn1"},
                                     {"dfs.namenode.http-address.ns.nn1", "m1:9870"}}),
                            "/conf");
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(Contains(c.status(),
                       "dfs.namenode.https-address.ns.nn1 is not set in "
                       "/conf/hdfs-site.xml"))
      << c.status().message();
}

TEST(WebHdfsPolicyTest, YarnHttpsOnlyIsRead) {
  auto c = ParseClusterConf(
      TlsSite({{"fs.defaultFS", "hdfs://nn:8020"}, {"yarn.http.policy", "HTTPS_ONLY"}}), "/conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->yarn_https);
  EXPECT_FALSE(c->webhdfs_https);
}

TEST(DataNodeRedirectTest, AnHttpsNameNodesRedirectToHttpIsRefusedWithoutTheToken) {
  Status s = hdfs::CheckDataNodeRedirect(
      "http://dn1:9864/webhdfs/v1/x?op=OPEN&delegation=SECRETTOKEN&offset=0", true, {}, "nn:9871");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(Contains(s, "the NameNode nn:9871 redirected to http://dn1:9864")) << s.message();
  EXPECT_TRUE(Contains(s, "reached over https")) << s.message();
  EXPECT_FALSE(Contains(s, "SECRETTOKEN")) << s.message();
  EXPECT_TRUE(hdfs::CheckDataNodeRedirect("https://dn1:9865/webhdfs/v1/x", true, {}, "nn").ok());
  // An http NameNode may send its clients to an https DataNode.
  EXPECT_TRUE(hdfs::CheckDataNodeRedirect("HTTPS://dn1:9865/x", false, {}, "nn").ok());
}

TEST(DataNodeRedirectTest, OnlyHttpAndHttpsAreFollowed) {
  for (const char* location : {"file:///home/me/.bashrc", "ftp://dn1/x", "dn1:9864/x", ""}) {
    Status s = hdfs::CheckDataNodeRedirect(location, false, {}, "nn:9870");
    EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << location;
    EXPECT_TRUE(Contains(s, "only http:// and https://")) << s.message();
  }
}

TEST(DataNodeRedirectTest, WithAHostListOnlyThoseHostsAreFollowed) {
  std::vector<std::string> hosts = {"dn1.example.com", "DN2.example.com"};
  EXPECT_TRUE(
      hdfs::CheckDataNodeRedirect("https://DN1.example.com:9865/x", true, hosts, "nn").ok());
  EXPECT_TRUE(
      hdfs::CheckDataNodeRedirect("http://dn2.example.com:9864/x", false, hosts, "nn").ok());
  // A host that only starts like an allowed one, or hides behind user info, is not it.
  for (const char* location : {"https://dn1.example.com.evil.org:9865/x",
                               "https://dn1.example.com@evil.org:9865/x", "https://10.0.0.9/x"}) {
    Status s = hdfs::CheckDataNodeRedirect(location, true, hosts, "nn:9871");
    ASSERT_FALSE(s.ok()) << location;
    EXPECT_TRUE(Contains(s, "is not in tony.application.webhdfs.datanode-hosts")) << s.message();
  }
}

TEST(DataNodeRedirectTest, CreateToAnUnlistedDataNodeSendsItNothing) {
  HttpStub datanode("HTTP/1.1 201 Created", "", 1);
  HttpStub namenode("HTTP/1.1 307 Temporary Redirect", "", 1,
                    "Location: http://" + datanode.address() + "/webhdfs/v1/y?op=CREATE\r\n");
  hdfs::WebHdfsOptions options;
  options.datanode_hosts = {"dn1.example.com"};
  hdfs::WebHdfs fs(namenode.address(), "me", options);
  Status s = fs.Create("/user/me/y", "the job's bytes");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(Contains(s, "CREATE /user/me/y")) << s.message();
  EXPECT_EQ(datanode.served.load(), 0);
}

// A self-signed CA certificate, as PEM, and a PKCS12 trust store holding it (no key), as a
// Java client's trust store holds its CAs.
struct TestCa {
  std::string pem;
  std::string pkcs12;
};

TestCa MakeCa(const char* password) {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_RSA_gen(2048), EVP_PKEY_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), X509_free);
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("tony test CA"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  X509_sign(cert.get(), key.get(), EVP_sha256());
  TestCa ca;
  std::unique_ptr<BIO, decltype(&BIO_free)> pem(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_X509(pem.get(), cert.get());
  char* data = nullptr;
  long len = BIO_get_mem_data(pem.get(), &data);
  ca.pem.assign(data, static_cast<size_t>(len));
  STACK_OF(X509)* cas = sk_X509_new_null();
  sk_X509_push(cas, cert.get());
  PKCS12* p12 = PKCS12_create(password, nullptr, nullptr, nullptr, cas, 0, 0, 0, 0, 0);
  sk_X509_free(cas);
  unsigned char* der = nullptr;
  int der_len = i2d_PKCS12(p12, &der);
  ca.pkcs12.assign(reinterpret_cast<char*>(der), static_cast<size_t>(der_len));
  OPENSSL_free(der);
  PKCS12_free(p12);
  return ca;
}

class TrustTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = MakeTempDir(::testing::TempDir(), "webhdfs_tls_test.");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_ = *dir;
  }
  void TearDown() override { (void)RemoveAll(dir_); }
  std::string Write(const std::string& name, const std::string& bytes) {
    std::string path = dir_ + "/" + name;
    EXPECT_TRUE(WriteFileAtomic(path, bytes).ok());
    return path;
  }
  std::string dir_;
};

constexpr char kKey[] = "tony.application.ssl.ca-file";

TEST_F(TrustTest, APkcs12TrustStoreBecomesItsCertificatesAsPem) {
  TestCa ca = MakeCa("changeit");
  hdfs::TrustStoreFile store{Write("truststore.p12", ca.pkcs12), "pkcs12", "changeit",
                             "/conf/ssl-client.xml"};
  auto trust = hdfs::LoadTrust("", kKey, store);
  ASSERT_TRUE(trust.ok()) << trust.status().ToString();
  EXPECT_EQ(trust->ca_pem, ca.pem);
  EXPECT_NE(trust->source.find("ssl-client.xml"), std::string::npos) << trust->source;
}

TEST_F(TrustTest, AJdk9JksTypedStoreThatIsPkcs12IsReadToo) {
  TestCa ca = MakeCa("changeit");
  hdfs::TrustStoreFile store{Write("truststore.jks", ca.pkcs12), "jks", "changeit", "ssl-client"};
  auto trust = hdfs::LoadTrust("", kKey, store);
  ASSERT_TRUE(trust.ok()) << trust.status().ToString();
  EXPECT_EQ(trust->ca_pem, ca.pem);
}

TEST_F(TrustTest, AWrongTrustStorePasswordNamesTheFileAndTheKey) {
  TestCa ca = MakeCa("changeit");
  std::string path = Write("truststore.p12", ca.pkcs12);
  auto trust = hdfs::LoadTrust("", kKey, {path, "pkcs12", "wrong", "/conf/ssl-client.xml"});
  ASSERT_FALSE(trust.ok());
  EXPECT_TRUE(Contains(trust.status(), path)) << trust.status().message();
  EXPECT_TRUE(Contains(trust.status(), "ssl.client.truststore.password"));
  EXPECT_FALSE(Contains(trust.status(), "wrong"));  // never the password itself
}

TEST_F(TrustTest, AJksTrustStoreIsRefusedNamingTheFileAndBothWaysOut) {
  std::string path = Write("truststore.jks", std::string("\xFE\xED\xFE\xED\x00\x00\x00\x02", 8));
  auto trust = hdfs::LoadTrust("", kKey, {path, "jks", "changeit", "/conf/ssl-client.xml"});
  ASSERT_FALSE(trust.ok());
  EXPECT_EQ(trust.status().code(), StatusCode::kFailedPrecondition);
  for (const std::string& part : {path, std::string("/conf/ssl-client.xml"), std::string("JKS"),
                                  std::string(kKey), std::string("PKCS12")}) {
    EXPECT_TRUE(Contains(trust.status(), part)) << part << " not in " << trust.status().message();
  }
}

TEST_F(TrustTest, TheCaFileKeyWinsOverTheTrustStore) {
  TestCa ca = MakeCa("changeit");
  std::string pem = Write("ca.pem", ca.pem);
  std::string jks = Write("truststore.jks", std::string("\xFE\xED\xFE\xED", 4));
  auto trust = hdfs::LoadTrust(pem, kKey, {jks, "jks", "", "/conf/ssl-client.xml"});
  ASSERT_TRUE(trust.ok()) << trust.status().ToString();
  EXPECT_EQ(trust->ca_pem, ca.pem);
  EXPECT_EQ(trust->source, std::string(kKey) + " " + pem);
}

TEST_F(TrustTest, ACaFileWithoutACertificateNamesTheKeyAndFile) {
  std::string path = Write("not-a-ca.pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n");
  auto trust = hdfs::LoadTrust(path, kKey, {});
  ASSERT_FALSE(trust.ok());
  EXPECT_TRUE(Contains(trust.status(), std::string(kKey) + " " + path)) << trust.status().message();
  EXPECT_TRUE(Contains(trust.status(), "no PEM certificate"));
  auto missing = hdfs::LoadTrust(dir_ + "/absent.pem", kKey, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(Contains(missing.status(), dir_ + "/absent.pem")) << missing.status().message();
}

TEST_F(TrustTest, NeitherMeansTheSystemsCas) {
  auto trust = hdfs::LoadTrust("", kKey, {});
  ASSERT_TRUE(trust.ok());
  EXPECT_TRUE(trust->ca_pem.empty());
}

}  // namespace
}  // namespace tony::hadoop
