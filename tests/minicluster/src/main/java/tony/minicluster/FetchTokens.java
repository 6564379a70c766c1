// Test harness only: writes a credentials file the way a workflow scheduler (Oozie, Azkaban)
// prepares one for the jobs it launches, with Hadoop's own client code: log in from a keytab, get
// an RM delegation token (YarnClient) and the default file system's HDFS delegation token
// (FileSystem.addDelegationTokens), both renewable by the RM, and write them with
// Credentials.writeTokenStorageFile. tony then submits with only HADOOP_TOKEN_FILE_LOCATION.
//
// Usage: java ... tony.minicluster.FetchTokens <confdir> <principal> <keytab> <out-file>
//            [--no-rm] [--protobuf] [--cancel-rm]
// --no-rm: only the HDFS token (a file tony must refuse when there is no ticket either).
// --cancel-rm: cancel the RM token once written (a file whose RM token the RM refuses).
// --protobuf: the file in the protobuf format (Credentials.SerializedFormat.PROTOBUF).
package tony.minicluster;

import java.io.File;
import java.net.InetSocketAddress;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.util.ConverterUtils;

public final class FetchTokens {
  private FetchTokens() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: FetchTokens <confdir> <principal> <keytab> <out-file> "
          + "[--no-rm] [--protobuf] [--cancel-rm]");
      System.exit(2);
    }
    boolean withRm = true;
    boolean protobuf = false;
    boolean cancelRm = false;
    for (int i = 4; i < args.length; i++) {
      if (args[i].equals("--no-rm")) {
        withRm = false;
      } else if (args[i].equals("--protobuf")) {
        protobuf = true;
      } else if (args[i].equals("--cancel-rm")) {
        cancelRm = true;
      } else {
        throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    Configuration conf = new YarnConfiguration();
    for (String site : new String[] {"core-site.xml", "hdfs-site.xml", "yarn-site.xml"}) {
      conf.addResource(new Path(new File(args[0], site).getAbsolutePath()));
    }
    UserGroupInformation.setConfiguration(conf);
    UserGroupInformation.loginUserFromKeytab(args[1], args[2]);

    InetSocketAddress rm = conf.getSocketAddr(YarnConfiguration.RM_ADDRESS,
        YarnConfiguration.DEFAULT_RM_ADDRESS, YarnConfiguration.DEFAULT_RM_PORT);
    String renewer = SecurityUtil.getServerPrincipal(
        conf.get(YarnConfiguration.RM_PRINCIPAL), rm.getHostName());
    Credentials creds = new Credentials();
    if (withRm) {
      YarnClient yarn = YarnClient.createYarnClient();
      yarn.init(conf);
      yarn.start();
      Token<?> token = ConverterUtils.convertFromYarn(
          yarn.getRMDelegationToken(new Text(renewer)), rm);
      creds.addToken(token.getService(), token);
      yarn.stop();
    }
    FileSystem.get(conf).addDelegationTokens(renewer, creds);
    creds.writeTokenStorageFile(new Path(new File(args[3]).getAbsoluteFile().toURI()), conf,
        protobuf ? Credentials.SerializedFormat.PROTOBUF : Credentials.SerializedFormat.WRITABLE);
    for (Token<?> t : creds.getAllTokens()) {
      System.out.println("token " + t.getKind() + " " + t.getService());
      if (cancelRm && t.getKind().toString().equals("RM_DELEGATION_TOKEN")) {
        t.cancel(conf);
        System.out.println("cancelled " + t.getKind());
      }
    }
    // The HDFS client's threads would keep the JVM alive.
    System.exit(0);
  }
}
