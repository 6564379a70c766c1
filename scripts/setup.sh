#!/usr/bin/env bash
# Installs everything tony needs to build, run its example and run its tests on Debian 12.
# Idempotent: packages already present are skipped by apt.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libasio-dev libpugixml-dev nlohmann-json3-dev libgtest-dev libgmock-dev
  libssl-dev libcurl4-openssl-dev zlib1g-dev unzip zip procps libavro-dev
  clang-format clang-tidy clang-14 libclang-rt-14-dev
  python3 python3-torch python3-numpy python3-pytest
  maven openjdk-17-jdk-headless
  krb5-kdc krb5-admin-server krb5-user libkrb5-dev
  tcpdump
  libcpp-httplib-dev chromium chromium-driver python3-selenium
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The real ML frameworks for examples/ and the `frameworks` test tier (TensorFlow, JAX, MXNet,
# Horovod; about 15 minutes on a fresh machine) are installed by setup-frameworks.sh, which
# scripts/test.sh runs; the main example needs only Debian's python3-torch above.
