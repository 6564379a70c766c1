// The control plane's TLS on YARN (rpc/tls.h): the job's identity as a client and a server use
// it, who is let in and who is refused, and what a peer on the network sees (a relay between the
// client and the server records every byte both ways).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rpc/client.h"
#include "rpc/server_auth.h"
#include "rpc/tls.h"
#include "tests/unit/counting_service.h"

namespace tony::rpc {
namespace {

std::unique_ptr<X509, decltype(&X509_free)> ParseCert(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return {cert, &X509_free};
}

std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> ParseKey(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return {key, &EVP_PKEY_free};
}

TEST(MakeJobTls, AFreshKeyAndASelfSignedCertificateForTheControlPlaneName) {
  auto tls = MakeJobTls();
  ASSERT_TRUE(tls.ok()) << tls.status().ToString();
  auto cert = ParseCert(tls->cert_pem);
  auto key = ParseKey(tls->key_pem);
  ASSERT_NE(cert, nullptr);
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(X509_check_private_key(cert.get(), key.get()), 1);
  EXPECT_EQ(X509_check_host(cert.get(), kJobTlsServerName, 0, 0, nullptr), 1);
  EXPECT_NE(X509_check_host(cert.get(), "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ca(cert.get()), 1);  // it is its own root
  EXPECT_EQ(X509_verify(cert.get(), key.get()), 1);
  std::tm not_after{};
  ASSERT_EQ(ASN1_TIME_to_tm(X509_get0_notAfter(cert.get()), &not_after), 1);
  EXPECT_EQ(not_after.tm_year + 1900, 9999);
  EXPECT_LE(X509_cmp_current_time(X509_get0_notBefore(cert.get())), 0);  // valid now

  auto other = MakeJobTls();
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->key_pem, tls->key_pem);
  EXPECT_NE(other->cert_pem, tls->cert_pem);
}

// A TCP relay on loopback in front of `target_port` that keeps a copy of every byte it carries:
// what anyone on the network path between an executor and the AM could read.
class RecordingRelay {
 public:
  explicit RecordingRelay(int target_port) : target_port_(target_port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(listener_, 16) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ADD_FAILURE() << "relay: cannot listen on loopback";
      return;
    }
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { Accept(); });
  }
  ~RecordingRelay() {
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    acceptor_.join();
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& t : pumps_) t.join();
    for (int fd : fds_) ::close(fd);
  }

  int port() const { return port_; }
  std::string Seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  void Accept() {
    for (;;) {
      int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) return;
      int server = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = htons(static_cast<uint16_t>(target_port_));
      if (::connect(server, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
        ::close(client);
        ::close(server);
        continue;
      }
      std::lock_guard<std::mutex> lock(mu_);
      fds_.push_back(client);
      fds_.push_back(server);
      pumps_.emplace_back([this, client, server] { Pump(client, server); });
      pumps_.emplace_back([this, client, server] { Pump(server, client); });
    }
  }

  void Pump(int from, int to) {
    char buf[16384];
    for (;;) {
      ssize_t n = ::read(from, buf, sizeof(buf));
      if (n <= 0) break;
      {
        std::lock_guard<std::mutex> lock(mu_);
        seen_.append(buf, static_cast<size_t>(n));
      }
      if (::write(to, buf, static_cast<size_t>(n)) != n) break;
    }
    ::shutdown(to, SHUT_WR);
  }

  int target_port_;
  int listener_ = -1;
  int port_ = 0;
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<int> fds_;
  std::vector<std::thread> pumps_;
  std::string seen_;
};

constexpr char kJobSecret[] = "0123456789abcdef-the-job-secret-fedcba9876543210";

class TlsControlPlane : public ::testing::Test {
 protected:
  void SetUp() override {
    auto tls = MakeJobTls();
    ASSERT_TRUE(tls.ok()) << tls.status().ToString();
    tls_ = *tls;
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", SecretCheckingServerCredentials(kJobSecret, tls_),
                             &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_NE(port_, 0);
  }
  void TearDown() override { server_->Shutdown(); }

  std::string Address() const { return "127.0.0.1:" + std::to_string(port_); }

  // A GetJobStatus over `credentials`, which name the server kJobTlsServerName.
  grpc::StatusCode CallWith(const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
    grpc::ChannelArguments args;
    args.SetSslTargetNameOverride(kJobTlsServerName);
    auto stub = Coordinator::NewStub(grpc::CreateCustomChannel(Address(), credentials, args));
    grpc::ClientContext ctx;
    ctx.AddMetadata(kSecretMetadataKey, kJobSecret);
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    GetJobStatusRequest req;
    JobStatus resp;
    return stub->GetJobStatus(&ctx, req, &resp).error_code();
  }

  JobTls tls_;
  CountingService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(TlsControlPlane, LetsInOnlyAClientWithTheJobsCertificateAndSecret) {
  GetJobStatusRequest req;
  CoordinatorClient job_client(Address(), kJobSecret, tls_);
  auto status = job_client.GetJobStatus(req, 10000);
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_EQ(status->phase(), RUNNING);
  EXPECT_EQ(service_.handled.load(), 1);

  // The job's certificate but not its secret: through TLS, then refused on the headers.
  CoordinatorClient wrong_secret(Address(), "not-the-secret", tls_);
  EXPECT_EQ(wrong_secret.GetJobStatus(req, 10000).status().code(), StatusCode::kUnauthenticated);

  // The secret without the job's TLS identity gets no further than the handshake.
  CoordinatorClient plain(Address(), kJobSecret);
  EXPECT_EQ(plain.GetJobStatus(req, 10000).status().code(), StatusCode::kUnavailable);
  auto other = MakeJobTls();
  ASSERT_TRUE(other.ok());
  CoordinatorClient other_job(Address(), kJobSecret, *other);
  EXPECT_EQ(other_job.GetJobStatus(req, 10000).status().code(), StatusCode::kUnavailable);

  // A client that trusts the job's certificate (so the server passes its check) is still refused
  // by the server when it presents another certificate, or none.
  grpc::SslCredentialsOptions foreign;
  foreign.pem_root_certs = tls_.cert_pem;
  foreign.pem_private_key = other->key_pem;
  foreign.pem_cert_chain = other->cert_pem;
  EXPECT_EQ(CallWith(grpc::SslCredentials(foreign)), grpc::StatusCode::UNAVAILABLE);
  grpc::SslCredentialsOptions anonymous;
  anonymous.pem_root_certs = tls_.cert_pem;
  EXPECT_EQ(CallWith(grpc::SslCredentials(anonymous)), grpc::StatusCode::UNAVAILABLE);

  EXPECT_EQ(service_.handled.load(), 1);  // none of the refused calls reached the handler
  // The positive control of CallWith: the job's own identity gets through it.
  grpc::SslCredentialsOptions own;
  own.pem_root_certs = tls_.cert_pem;
  own.pem_private_key = tls_.key_pem;
  own.pem_cert_chain = tls_.cert_pem;
  EXPECT_EQ(CallWith(grpc::SslCredentials(own)), grpc::StatusCode::OK);
  EXPECT_EQ(service_.handled.load(), 2);
}

TEST_F(TlsControlPlane, TheWireCarriesNeitherTheSecretNorTheMessagesInClear) {
  RecordingRelay relay(port_);
  CoordinatorClient client("127.0.0.1:" + std::to_string(relay.port()), kJobSecret, tls_);
  GetJobStatusRequest req;
  req.set_after_version(424242);
  auto status = client.GetJobStatus(req, 10000);
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  std::string seen = relay.Seen();
  ASSERT_GT(seen.size(), 100u);
  EXPECT_EQ(seen[0], '\x16');  // a TLS handshake record, not HTTP/2's preface
  EXPECT_EQ(seen.find(kJobSecret), std::string::npos);
  EXPECT_EQ(seen.find(kSecretMetadataKey), std::string::npos);
  EXPECT_EQ(seen.find("GetJobStatus"), std::string::npos);
  EXPECT_EQ(seen.find("PRI * HTTP/2.0"), std::string::npos);
}

// The positive control of the relay test: on the local engine's plain loopback port the same
// relay does see the secret and the method, so the test above would catch a cleartext channel.
TEST(PlainControlPlane, TheRelaySeesTheSecretInClear) {
  CountingService service;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", SecretCheckingServerCredentials(kJobSecret), &port);
  builder.RegisterService(&service);
  auto server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  {
    RecordingRelay relay(port);
    CoordinatorClient client("127.0.0.1:" + std::to_string(relay.port()), kJobSecret);
    GetJobStatusRequest req;
    ASSERT_TRUE(client.GetJobStatus(req, 10000).ok());
    std::string seen = relay.Seen();
    EXPECT_NE(seen.find(kJobSecret), std::string::npos);
    EXPECT_NE(seen.find("PRI * HTTP/2.0"), std::string::npos);
  }
  server->Shutdown();
}

}  // namespace
}  // namespace tony::rpc
