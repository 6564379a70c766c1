#include "client/bundle.h"

#include <gtest/gtest.h>

#include "common/files.h"

namespace tony::client {
namespace {

TEST(BundleTest, ParsesTheLoaderListing) {
  // As glibc's ldd prints it, with a library the loader cannot find.
  const char* listing =
      "\tlinux-vdso.so.1 (0x00007ffd6b5f2000)\n"
      "\tlibcurl.so.4 => /lib/x86_64-linux-gnu/libcurl.so.4 (0x00007efea54ab000)\n"
      "\tlibgrpc++.so.1.51 => /lib/x86_64-linux-gnu/libgrpc++.so.1.51 (0x00007efea5118000)\n"
      "\tlibmissing.so.3 => not found\n"
      "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007efea441e000)\n"
      "\t/lib64/ld-linux-x86-64.so.2 (0x00007efea5572000)\n";
  auto libs = ParseLoaderListing(listing);
  ASSERT_EQ(libs.size(), 5u);
  EXPECT_EQ(libs[0].soname, "libcurl.so.4");
  EXPECT_EQ(libs[0].path, "/lib/x86_64-linux-gnu/libcurl.so.4");
  EXPECT_EQ(libs[1].soname, "libgrpc++.so.1.51");
  EXPECT_EQ(libs[2].soname, "libmissing.so.3");
  EXPECT_EQ(libs[2].path, "");
  EXPECT_EQ(libs[4].soname, "ld-linux-x86-64.so.2");
  EXPECT_EQ(libs[4].path, "/lib64/ld-linux-x86-64.so.2");
  EXPECT_TRUE(ParseLoaderListing("\tstatically linked\n").empty());
}

TEST(BundleTest, GlibcAndTheLoaderStayWithTheNodeEverythingElseTravels) {
  for (const char* base :
       {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libresolv.so.2",
        "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "libnss_files.so.2"}) {
    EXPECT_TRUE(IsBaseSystemLibrary(base)) << base;
  }
  for (const char* travels : {"libstdc++.so.6", "libgcc_s.so.1", "libcurl.so.4",
                              "libprotobuf.so.32", "libcrypto.so.3", "libz.so.1"}) {
    EXPECT_FALSE(IsBaseSystemLibrary(travels)) << travels;
  }
}

TEST(BundleTest, TheLoaderListsThisTestBinarysLibraries) {
  auto self = SelfExecutable();
  ASSERT_TRUE(self.ok());
  auto libs = LoadedLibraries(*self);
  ASSERT_TRUE(libs.ok()) << libs.status().ToString();
  bool has_libc = false, has_libstdcxx = false;
  for (const auto& lib : *libs) {
    if (lib.soname == "libc.so.6") has_libc = true;
    if (lib.soname == "libstdc++.so.6") has_libstdcxx = !lib.path.empty();
  }
  EXPECT_TRUE(has_libc);
  EXPECT_TRUE(has_libstdcxx);
}

// This test binary is not linked with the bundle's $ORIGIN/../lib rpath: a bundle of it would
// load the system's libraries on the node, so building one must fail and say why.
TEST(BundleTest, RefusesABinaryThatWouldNotLoadTheBundledLibraries) {
  auto self = SelfExecutable();
  ASSERT_TRUE(self.ok());
  auto tmp = MakeTempDir("/tmp", "tony-bundle-test-");
  ASSERT_TRUE(tmp.ok());
  auto bundle = BuildBundle(*self, *tmp + "/cache");
  ASSERT_FALSE(bundle.ok());
  EXPECT_NE(bundle.status().message().find("$ORIGIN/../lib"), std::string::npos)
      << bundle.status().ToString();
  EXPECT_NE(bundle.status().message().find("does not load lib"), std::string::npos)
      << bundle.status().ToString();
  (void)RemoveAll(*tmp);
}

}  // namespace
}  // namespace tony::client
