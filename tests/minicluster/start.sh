#!/usr/bin/env bash
# Builds (if needed) and runs the test-only minicluster launcher (docs/hadoop-ipc.md §7).
#
# Usage: tests/minicluster/start.sh <confdir> [num_nodemanagers] [--ha] [--second-dfs] [key=value ...]
# (--ha: two ResourceManagers, rm0 active, and a line "failover" on stdin swaps them; Ha.java).
# (--second-dfs: a second MiniDFSCluster, its addresses in <confdir>/second-dfs.txt; Main.java).
# (--https: HDFS and the YARN web servers over TLS only, a self-signed certificate; Https.java).
# (each key=value overrides a setting of the clusters' configuration).
# `start.sh --fetch-tokens <confdir> <principal> <keytab> <out-file> [--no-rm] [--protobuf]` writes a
# credentials file with Hadoop's client code instead, as a workflow scheduler would
# (FetchTokens.java), and exits.
# Prints "MINICLUSTER READY <confdir>" once the clusters are up and <confdir>/{core,hdfs,yarn}-site.xml
# are written; exits when its stdin closes. The first build needs Maven Central (jars go to
# ~/.m2); later builds work offline. `start.sh --build-only` just builds.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

build() {
  local goals=(-B -q compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt)
  mkdir -p target
  nice -n 10 mvn -o "${goals[@]}" >target/mvn-offline.log 2>&1 || nice -n 10 mvn "${goals[@]}" >&2
}
if [[ ! -f target/classpath.txt || ! -f target/classes/tony/minicluster/Main.class ||
      pom.xml -nt target/classpath.txt ||
      src/main/resources/log4j.properties -nt target/classes/log4j.properties ||
      src/main/java/tony/minicluster/Main.java -nt target/classes/tony/minicluster/Main.class ||
      src/main/java/tony/minicluster/Ha.java -nt target/classes/tony/minicluster/Ha.class ||
      src/main/java/tony/minicluster/FetchTokens.java -nt target/classes/tony/minicluster/FetchTokens.class ||
      src/main/java/tony/minicluster/Https.java -nt target/classes/tony/minicluster/Https.class ]]; then
  build
fi
[[ "${1:-}" == "--build-only" ]] && exit 0
if [[ $# -lt 1 ]]; then
  echo "usage: $0 <confdir> [num_nodemanagers] [key=value ...]" >&2
  exit 2
fi
main=tony.minicluster.Main
if [[ "$1" == "--fetch-tokens" ]]; then
  main=tony.minicluster.FetchTokens
  shift
else
  mkdir -p "$1/jvm-classpath"
fi
# Main.java's class-path site file (writeClassPathSite), ahead of everything else.
cp_first=""
if [[ "$main" == tony.minicluster.Main ]]; then
  cp_first="$(cd "$1" && pwd)/jvm-classpath:"
fi
# --https: Hadoop reads ssl-server.xml and ssl-client.xml by name from the classpath; Https.java
# writes them to <confdir>/sslconf, a directory that holds nothing else.
sslconf=""
if [[ "$main" == tony.minicluster.Main ]]; then
  mkdir -p "$1/sslconf"
  sslconf="$(cd "$1/sslconf" && pwd):"
fi

# Hadoop's own scripts open these packages on JDK 17 (docs/hadoop-ipc.md §7.2).
opens=()
for p in java.io java.lang java.lang.reflect java.math java.net java.nio java.text java.util \
         java.util.concurrent java.util.zip sun.nio.ch sun.security.util sun.security.x509; do
  opens+=("--add-opens=java.base/$p=ALL-UNNAMED")
done
# A secure cluster's realm (tests/lib/kdc.py) reaches the JVM through krb5.conf.
krb5=()
[[ -n "${KRB5_CONFIG:-}" ]] && krb5=("-Djava.security.krb5.conf=$KRB5_CONFIG")
exec nice -n 5 java "${krb5[@]}" -Xmx1g -XX:+UseSerialGC -XX:+IgnoreUnrecognizedVMOptions "${opens[@]}" \
  --add-exports=java.base/sun.net.dns=ALL-UNNAMED --add-exports=java.base/sun.net.util=ALL-UNNAMED \
  -Djava.net.preferIPv4Stack=true -Dminicluster.log.level="${MINICLUSTER_LOG_LEVEL:-WARN}" \
  -cp "${cp_first}target/classes:$sslconf$(cat target/classpath.txt)" "$main" "$@"
