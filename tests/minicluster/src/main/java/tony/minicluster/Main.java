// Test harness only: starts a MiniDFSCluster and a MiniYARNCluster in one JVM, writes the site
// files clients need, prints one ready line and runs until its stdin closes (docs/hadoop-ipc.md §7).
//
// Usage: java ... tony.minicluster.Main <confdir> [num_nodemanagers] [--ha] [key=value ...]
// --ha: two ResourceManagers (Ha.java) and an HDFS HA nameservice: a dead NameNode, a standby
// one and the active one, in that order.
// --second-dfs: a second MiniDFSCluster (another NameNode and DataNode, same settings) for data
// "on another cluster"; <confdir>/second-dfs.txt says where: "rpc=host:port" and "http=host:port".
// --https: HDFS and the YARN web servers speak only TLS (Https.java), with a self-signed
// certificate whose PEM is <confdir>/ca.pem and the client's ssl-client.xml beside the site files.
// Each key=value is set in the clusters' configuration after the defaults below, and key= unsets
// one (a test that needs different settings, e.g. a short AMRMToken rolling interval or no GPUs,
// starts a minicluster of its own).
// Prints "MINICLUSTER READY <confdir>" on stdout once every NodeManager has registered.
// Secure mode is the overrides' business (tests/lib/secure_cluster.py writes them): with
// hadoop.security.authentication=kerberos the JVM logs in from dfs.namenode.keytab.file as
// dfs.namenode.kerberos.principal before any daemon starts; every daemon must use that one
// principal, since in one JVM each daemon's keytab login replaces the process-wide login user.
package tony.minicluster;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.MiniDFSNNTopology;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNodeEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNodeEventType;
import org.apache.hadoop.yarn.server.resourcemanager.ClusterMetrics;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;

public final class Main {
  private static final long STOP_GRACE_MS = 20_000;
  // GPUs each NodeManager advertises: a countable resource only (no GPU plugin, no isolation).
  private static final int GPUS_PER_NODE = 2;

  private Main() {}

  public static void main(String[] args) {
    try {
      run(args);
    } catch (Throwable t) {
      // The clusters' non-daemon threads would keep a failed JVM alive: end it here.
      System.err.println("minicluster: failed to start");
      t.printStackTrace();
      Runtime.getRuntime().halt(1);
    }
  }

  private static void run(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: Main <confdir> [num_nodemanagers] [key=value ...]");
      System.exit(2);
    }
    File confDir = new File(args[0]).getAbsoluteFile();
    int numNodeManagers = 2;
    boolean ha = false;
    boolean secondDfs = false;
    boolean https = false;
    Map<String, String> overrides = new LinkedHashMap<>();
    for (int i = 1; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (eq > 0) {
        overrides.put(args[i].substring(0, eq), args[i].substring(eq + 1));
      } else if (args[i].equals("--ha")) {
        ha = true;
      } else if (args[i].equals("--second-dfs")) {
        secondDfs = true;
      } else if (args[i].equals("--https")) {
        https = true;
      } else if (args[i].matches("\\d+")) {
        numNodeManagers = Integer.parseInt(args[i]);
      } else {
        throw new IllegalArgumentException("unknown argument " + args[i]
            + "; expected a number of NodeManagers or key=value");
      }
    }
    File dataDir = new File(confDir, "data");
    if (!dataDir.mkdirs() && !dataDir.isDirectory()) {
      throw new IOException("cannot create " + dataDir);
    }
    // Both clusters derive their directories from test.build.data (§7.2).
    System.setProperty("test.build.data", dataDir.getPath());
    System.setProperty("hdfs.minidfs.basedir", new File(dataDir, "dfs").getPath());

    writeClassPathSite(confDir, overrides);
    long startMs = System.currentTimeMillis();
    Configuration conf = new YarnConfiguration(new HdfsConfiguration());
    configure(conf);
    if (https) {
      Https.configure(conf, confDir);
    }
    overrides.forEach((key, value) -> {
      if (value.isEmpty()) {
        conf.unset(key);
      } else {
        conf.set(key, value);
      }
    });
    // The RM and the NMs share the JVM-wide resource type table, which reads yarn.resource-types
    // from a fresh configuration unless given this one.
    ResourceUtils.resetResourceTypes(conf);
    if ("kerberos".equals(conf.get("hadoop.security.authentication"))) {
      UserGroupInformation.setConfiguration(conf);
      UserGroupInformation.loginUserFromKeytab(
          conf.get("dfs.namenode.kerberos.principal"), conf.get("dfs.namenode.keytab.file"));
    }

    if (ha) {
      Ha.configureResourceManagers(conf, dataDir);
    }

    MiniDFSCluster.Builder dfsBuilder = new MiniDFSCluster.Builder(conf).numDataNodes(1);
    if (ha) {
      // Two real NameNodes sharing their edits: NameNode 0 is made active, 1 stays the standby.
      dfsBuilder.nnTopology(MiniDFSNNTopology.simpleHATopology());
    }
    MiniDFSCluster dfs = dfsBuilder.build();
    if (ha) {
      dfs.transitionToActive(0);
      // The HA topology leaves fs.defaultFS naming MiniDFSCluster's own nameservice, which the
      // YARN daemons' configuration cannot resolve: give them the active NameNode.
      conf.set("fs.defaultFS",
          "hdfs://localhost:" + dfs.getNameNode(0).getNameNodeAddress().getPort());
    }
    dfs.waitActive();
    if (ha) {
      Ha.addNameservice(conf, dfs, dataDir);
    }

    // A copy of the configuration: the builder writes its fs.defaultFS and base dir into the one
    // it is given.
    MiniDFSCluster dfs2 = null;
    if (secondDfs) {
      Configuration conf2 = new Configuration(conf);
      conf2.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(dataDir, "dfs2").getPath());
      dfs2 = new MiniDFSCluster.Builder(conf2).numDataNodes(1).build();
      dfs2.waitActive();
    }

    MiniYARNCluster yarn = ha ? new Ha.YarnCluster("tony", numNodeManagers)
                              : new MiniYARNCluster("tony", 1, numNodeManagers, 1, 1);
    yarn.init(conf);
    yarn.start();
    if (ha) {
      Ha.ensureActive(yarn);
    } else {
      waitForRealAddress(yarn.getConfig(), YarnConfiguration.RM_ADDRESS);
      waitForRealAddress(yarn.getConfig(), YarnConfiguration.RM_SCHEDULER_ADDRESS);
    }
    if (!yarn.waitForNodeManagersToConnect(30_000)) {
      throw new IOException("NodeManagers did not register within 30 s");
    }
    waitForActiveNodeManagers(numNodeManagers);

    Configuration dfsConf = dfs.getConfiguration(0);
    if (ha) {
      dfsConf = Ha.withNameservice(dfsConf, conf);
      // Clients that do not name the nameservice reach the active NameNode directly.
      dfsConf.set("fs.defaultFS",
          "hdfs://localhost:" + dfs.getNameNode(0).getNameNodeAddress().getPort());
    }
    if (https) {
      // The bound port, not the :0 asked for.
      dfsConf.set("dfs.namenode.https-address",
          "localhost:" + dfs.getNameNode(0).getHttpsAddress().getPort());
    }
    Configuration yarnConf = yarn.getConfig();
    writeSite(new File(confDir, "core-site.xml"), dfsConf, "fs.", "hadoop.", "io.", "ipc.");
    writeSite(new File(confDir, "hdfs-site.xml"), dfsConf, "dfs.");
    writeSite(new File(confDir, "yarn-site.xml"), yarnConf, "yarn.");
    if (dfs2 != null) {
      String where = "rpc=localhost:" + dfs2.getNameNodePort() + "\nhttp=localhost:"
          + dfs2.getNameNode().getHttpAddress().getPort() + "\n";
      java.nio.file.Files.write(new File(confDir, "second-dfs.txt").toPath(),
          where.getBytes(StandardCharsets.UTF_8));
    }

    System.err.printf("minicluster: started in %d ms; fs.defaultFS=%s rm=%s scheduler=%s webapp=%s%n",
        System.currentTimeMillis() - startMs, dfsConf.get("fs.defaultFS"),
        yarnConf.get(YarnConfiguration.RM_ADDRESS),
        yarnConf.get(YarnConfiguration.RM_SCHEDULER_ADDRESS),
        yarnConf.get(YarnConfiguration.RM_WEBAPP_ADDRESS));
    System.out.println("MINICLUSTER READY " + confDir.getPath());
    System.out.flush();

    // Runs until the parent closes our stdin; with --ha a line "failover" makes the active RM the
    // standby and the other one active, then prints "MINICLUSTER FAILED OVER <new active id>";
    // a line "standby" makes the active RM the standby, leaving none active (as during a failover
    // that takes its time), then prints "MINICLUSTER NO ACTIVE RM". A line "nodes" prints
    // "MINICLUSTER NM <i> <node id> <web port>" per NodeManager, then "MINICLUSTER NODES END";
    // "lose-nm <i>" makes the RM take NodeManager i for lost (as its liveness monitor does when
    // a machine stops answering: its containers end with status -100 for their AMs) and stops
    // the NodeManager in the background (its containers die with it, which takes seconds), then
    // prints "MINICLUSTER NM LOST <node id>".
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      String command = line.trim();
      if (command.equals("nodes")) {
        for (int i = 0; i < numNodeManagers; i++) {
          NodeManager nm = yarn.getNodeManager(i);
          System.out.println("MINICLUSTER NM " + i + " " + nm.getNMContext().getNodeId() + " "
              + nm.getNMContext().getHttpPort());
        }
        System.out.println("MINICLUSTER NODES END");
        System.out.flush();
      } else if (command.startsWith("lose-nm ")) {
        NodeManager nm = yarn.getNodeManager(Integer.parseInt(command.substring(8).trim()));
        NodeId id = nm.getNMContext().getNodeId();
        yarn.getResourceManager().getRMContext().getDispatcher().getEventHandler()
            .handle(new RMNodeEvent(id, RMNodeEventType.EXPIRE));
        Thread stopper = new Thread(nm::stop, "stop-" + id);
        stopper.setDaemon(true);
        stopper.start();
        System.out.println("MINICLUSTER NM LOST " + id);
        System.out.flush();
      } else if (ha && command.equals("failover")) {
        String active = Ha.failover(yarn);
        System.out.println("MINICLUSTER FAILED OVER " + active);
        System.out.flush();
      } else if (ha && command.equals("standby")) {
        Ha.standby(yarn);
        System.out.println("MINICLUSTER NO ACTIVE RM");
        System.out.flush();
      }
    }
    stop(yarn, dfs, dfs2);
  }

  // A small, fast, deterministic cluster (docs/hadoop-ipc.md §7.4).
  private static void configure(Configuration conf) {
    conf.setInt("yarn.scheduler.minimum-allocation-mb", 64);
    conf.setInt("yarn.scheduler.maximum-allocation-mb", 4096);
    conf.setInt("yarn.minicluster.yarn.nodemanager.resource.memory-mb", 4096);
    conf.setInt("yarn.nodemanager.resource.cpu-vcores", 8);
    conf.setFloat("yarn.scheduler.capacity.maximum-am-resource-percent", 1.0f);
    conf.set("yarn.scheduler.capacity.root.queues", "default");
    conf.setInt("yarn.scheduler.capacity.root.default.capacity", 100);
    conf.setInt("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", 100);
    conf.setInt("yarn.resourcemanager.am.max-attempts", 1);
    conf.setBoolean("yarn.nodemanager.vmem-check-enabled", false);
    conf.setBoolean("yarn.nodemanager.pmem-check-enabled", false);
    conf.setFloat(
        "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", 99.0f);
    conf.setInt("yarn.nodemanager.disk-health-checker.min-free-space-per-disk-mb", 0);
    // GPUs count only with the DominantResourceCalculator (the default one looks at memory).
    conf.set("yarn.scheduler.capacity.resource-calculator",
        "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator");
    conf.set("yarn.resource-types", "yarn.io/gpu");
    conf.setInt("yarn.nodemanager.resource-type.yarn.io/gpu", GPUS_PER_NODE);
    // The RM reports the configured maximum allocation (unbounded for GPUs) until this wait has
    // passed since it started, and the largest node's resources after: at once, here.
    conf.setLong("yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms", 0);
    conf.setInt("dfs.replication", 1);
    conf.setBoolean("dfs.permissions.enabled", false);
  }

  // MiniYARNCluster.start() can return before the RM's address is bound (§7.3 step 5).
  private static void waitForRealAddress(Configuration conf, String key) throws Exception {
    long deadline = System.currentTimeMillis() + 10_000;
    while (conf.get(key, "").endsWith(":0")) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException(key + " still ends in :0 after 10 s");
      }
      Thread.sleep(100);
    }
  }

  // A registered node turns RUNNING (and counts in getClusterMetrics) a little later, through the
  // RM's event dispatcher; tests that count NodeManagers should not see the gap.
  private static void waitForActiveNodeManagers(int expected) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    while (ClusterMetrics.getMetrics().getNumActiveNMs() < expected) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("fewer than " + expected + " active NodeManagers after 30 s");
      }
      Thread.sleep(100);
    }
  }

  // Code that makes a fresh Configuration in this JVM (the NodeManager's in-process
  // ContainerLocalizer) reads core-site.xml from the class path, not the clusters' settings: the
  // RPC protection goes there too (start.sh puts <confdir>/jvm-classpath first on the class
  // path), or at integrity/privacy the localizer offers only authentication to its NodeManager
  // and every container fails to localize ("No common protection layer").
  private static void writeClassPathSite(File confDir, Map<String, String> overrides)
      throws IOException {
    String protection = overrides.get("hadoop.rpc.protection");
    if (protection == null || protection.isEmpty()) {
      return;
    }
    Configuration site = new Configuration(false);
    site.set("hadoop.rpc.protection", protection);
    File dir = new File(confDir, "jvm-classpath");
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new IOException("cannot create " + dir);
    }
    try (OutputStream out = new FileOutputStream(new File(dir, "core-site.xml"))) {
      site.writeXml(out);
    }
  }

  // Writes the keys with one of the prefixes whose value does not come from a *-default.xml,
  // with variables expanded, so that readers without Hadoop's ${var} expansion get real values.
  private static void writeSite(File file, Configuration from, String... prefixes)
      throws IOException {
    Configuration site = new Configuration(false);
    for (Map.Entry<String, String> entry : from) {
      String key = entry.getKey();
      boolean wanted = false;
      for (String prefix : prefixes) {
        wanted |= key.startsWith(prefix);
      }
      if (!wanted || fromDefaults(from, key)) {
        continue;
      }
      site.set(key, from.get(key));
    }
    File tmp = new File(file.getPath() + ".tmp");
    try (OutputStream out = new FileOutputStream(tmp)) {
      site.writeXml(out);
    }
    if (!tmp.renameTo(file)) {
      throw new IOException("cannot rename " + tmp + " to " + file);
    }
  }

  private static boolean fromDefaults(Configuration conf, String key) {
    String[] sources = conf.getPropertySources(key);
    if (sources == null || sources.length == 0) {
      return false;
    }
    return sources[sources.length - 1].endsWith("-default.xml");
  }

  // Stopping a MiniYARNCluster can take most of a minute (§7.5); give it a bounded grace period.
  private static void stop(MiniYARNCluster yarn, MiniDFSCluster dfs, MiniDFSCluster dfs2) {
    Thread watchdog = new Thread(() -> {
      try {
        Thread.sleep(STOP_GRACE_MS);
      } catch (InterruptedException e) {
        return;
      }
      System.err.println("minicluster: stop took too long; halting");
      Runtime.getRuntime().halt(0);
    });
    watchdog.setDaemon(true);
    watchdog.start();
    try {
      yarn.stop();
      dfs.shutdown();
      if (dfs2 != null) {
        dfs2.shutdown();
      }
    } catch (RuntimeException e) {
      System.err.println("minicluster: error while stopping: " + e);
    }
    System.err.println("minicluster: stopped");
    Runtime.getRuntime().halt(0);
  }
}
