// Test harness only: --https, an HDFS (and YARN web) that speaks only TLS (dfs.http.policy and
// yarn.http.policy HTTPS_ONLY) with a self-signed certificate made by the JDK's keytool.
//
// Files, all under <confdir>:
//   ssl/server.p12      the daemons' key and self-signed certificate (CN=localhost; SANs
//                       localhost, 127.0.0.1 and this host's name and address)
//   ssl/truststore.p12  that certificate as a PKCS12 trust store, as keytool makes one
//   ca.pem              the same certificate as PEM (for tony.application.ssl.ca-file)
//   ssl-client.xml      the client's trust store settings (ssl.client.truststore.*), beside the
//                       site files
//   sslconf/ssl-server.xml, sslconf/ssl-client.xml
//                       what the daemons read: Hadoop finds these by name on the classpath, and
//                       start.sh puts <confdir>/sslconf there.
// Every HTTPS port is ephemeral (HTTPS_ONLY would otherwise bind the fixed defaults 9871/9865).
package tony.minicluster;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

final class Https {
  private static final String STORE_PASSWORD = "minicluster-store";
  private static final String TRUST_PASSWORD = "minicluster-trust";

  private Https() {}

  static void configure(Configuration conf, File confDir) throws Exception {
    File ssl = new File(confDir, "ssl");
    File sslConf = new File(confDir, "sslconf");
    if (!ssl.mkdirs() && !ssl.isDirectory()) {
      throw new IOException("cannot create " + ssl);
    }
    if (!sslConf.mkdirs() && !sslConf.isDirectory()) {
      throw new IOException("cannot create " + sslConf);
    }
    File keystore = new File(ssl, "server.p12");
    File truststore = new File(ssl, "truststore.p12");
    File pem = new File(confDir, "ca.pem");
    InetAddress local = InetAddress.getLocalHost();
    String san = "dns:localhost,ip:127.0.0.1,dns:" + local.getHostName() + ",ip:"
        + local.getHostAddress();
    keytool("-genkeypair", "-alias", "minicluster", "-keyalg", "RSA", "-keysize", "2048",
        "-validity", "7", "-dname", "CN=localhost", "-ext", "SAN=" + san,
        "-storetype", "PKCS12", "-keystore", keystore.getPath(),
        "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD);
    keytool("-exportcert", "-rfc", "-alias", "minicluster", "-keystore", keystore.getPath(),
        "-storepass", STORE_PASSWORD, "-file", pem.getPath());
    keytool("-importcert", "-noprompt", "-alias", "minicluster-ca", "-file", pem.getPath(),
        "-storetype", "PKCS12", "-keystore", truststore.getPath(),
        "-storepass", TRUST_PASSWORD);

    Configuration server = new Configuration(false);
    server.set("ssl.server.keystore.location", keystore.getPath());
    server.set("ssl.server.keystore.type", "pkcs12");
    server.set("ssl.server.keystore.password", STORE_PASSWORD);
    server.set("ssl.server.keystore.keypassword", STORE_PASSWORD);
    server.set("ssl.server.truststore.location", truststore.getPath());
    server.set("ssl.server.truststore.type", "pkcs12");
    server.set("ssl.server.truststore.password", TRUST_PASSWORD);
    write(server, new File(sslConf, "ssl-server.xml"));
    Configuration client = new Configuration(false);
    client.set("ssl.client.truststore.location", truststore.getPath());
    client.set("ssl.client.truststore.type", "pkcs12");
    client.set("ssl.client.truststore.password", TRUST_PASSWORD);
    write(client, new File(sslConf, "ssl-client.xml"));
    Files.copy(new File(sslConf, "ssl-client.xml").toPath(),
        new File(confDir, "ssl-client.xml").toPath(), StandardCopyOption.REPLACE_EXISTING);

    conf.set("dfs.http.policy", "HTTPS_ONLY");
    conf.set("dfs.namenode.https-address", "localhost:0");
    conf.set("dfs.datanode.https.address", "localhost:0");
    conf.set("yarn.http.policy", "HTTPS_ONLY");
    conf.set("yarn.resourcemanager.webapp.https.address", "localhost:0");
    conf.set("yarn.nodemanager.webapp.https.address", "localhost:0");
  }

  private static void keytool(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(System.getProperty("java.home") + "/bin/keytool");
    command.addAll(Arrays.asList(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IOException("keytool " + args[0] + " failed: " + out);
    }
  }

  private static void write(Configuration conf, File file) throws IOException {
    try (OutputStream out = new FileOutputStream(file)) {
      conf.writeXml(out);
    }
  }
}
