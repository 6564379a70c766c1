// Test harness only (Main --ha): a ResourceManager HA pair and an HDFS HA nameservice.
//
// ResourceManagers rm0 and rm1 on fixed loopback ports (the client must know a standby's
// addresses before it is active, and an RM binds its client ports only while active), automatic
// failover off, rm0 active, application state in a FileSystemRMStateStore under the data dir so
// that the RM made active recovers the running applications (work-preserving: containers keep
// running; the AM re-registers). failover() swaps the roles, as `yarn rmadmin
// -transitionToStandby/-transitionToActive` would.
//
// Nameservice "tonyns" lists a NameNode nobody runs (nn0), then the MiniDFSCluster's standby
// NameNode (nn1, a real one answering StandbyException), then its active one (nn2), for every
// client: the NodeManagers localize hdfs://tonyns/... through it, and hdfs-site.xml carries it.
package tony.minicluster;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.URL;
import java.net.URLClassLoader;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ha.HAServiceProtocol;
import org.apache.hadoop.ha.HAServiceProtocol.RequestSource;
import org.apache.hadoop.ha.HAServiceProtocol.StateChangeRequestInfo;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.yarn.event.AsyncDispatcher;
import org.apache.hadoop.yarn.event.Dispatcher;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;

final class Ha {
  static final String NAMESERVICE = "tonyns";
  private static final String DEFAULT_RESOURCE = "tony-minicluster-ha.xml";
  private static final String[] RM_IDS = {"rm0", "rm1"};
  // YarnConfiguration.getServiceAddressConfKeys: each needs a value per RM id with fixed ports.
  private static final String[] RM_ADDRESS_KEYS = {
    "yarn.resourcemanager.address",
    "yarn.resourcemanager.scheduler.address",
    "yarn.resourcemanager.resource-tracker.address",
    "yarn.resourcemanager.admin.address",
    "yarn.resourcemanager.webapp.address",
    "yarn.resourcemanager.webapp.https.address",
  };

  private Ha() {}

  // MiniYARNCluster with two ResourceManagers whose event dispatchers log an event nobody handles
  // instead of ending the JVM. An RM turning standby starts a fresh dispatcher before the handlers
  // are registered on it; an RMNodeEvent that lands in between is "Error in dispatcher thread",
  // and an AsyncDispatcher then calls System.exit, so the whole minicluster exited mid-failover
  // (seen in CI). The event is for the RM leaving active: dropping it is
  // what a standby RM does with it anyway.
  static final class YarnCluster extends MiniYARNCluster {
    YarnCluster(String name, int numNodeManagers) {
      super(name, RM_IDS.length, numNodeManagers, 1, 1);
    }

    @Override
    protected ResourceManager createResourceManager() {
      return new ResourceManager() {
        @Override
        protected void doSecureLogin() {
          // As MiniYARNCluster's own: the JVM's login user is the cluster's.
        }

        @Override
        protected Dispatcher createDispatcher() {
          Dispatcher d = super.createDispatcher();
          if (d instanceof AsyncDispatcher) {
            ((AsyncDispatcher) d).disableExitOnDispatchException();
          }
          return d;
        }
      };
    }
  }

  static void configureResourceManagers(Configuration conf, File dataDir) throws IOException {
    conf.setBoolean("yarn.resourcemanager.ha.enabled", true);
    conf.set("yarn.resourcemanager.ha.rm-ids", String.join(",", RM_IDS));
    conf.setBoolean("yarn.resourcemanager.ha.automatic-failover.enabled", false);
    conf.setBoolean("yarn.resourcemanager.ha.automatic-failover.embedded", false);
    conf.setBoolean("yarn.minicluster.fixed.ports", true);
    conf.setBoolean("yarn.resourcemanager.recovery.enabled", true);
    conf.set("yarn.resourcemanager.store.class",
        "org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore");
    conf.set("yarn.resourcemanager.fs.state-store.uri",
        new File(dataDir, "rmstore").toURI().toString());
    for (String id : RM_IDS) {
      for (String key : RM_ADDRESS_KEYS) {
        conf.set(key + "." + id, "localhost:" + freePort());
      }
    }
    // An RM turning active re-reads the scheduler's queues from capacity-scheduler.xml of its
    // configuration provider (AdminService.refreshAll), not from this object, and refuses a
    // smaller maximum allocation: give it a file with the same yarn.* settings (scheduler limits,
    // resource types, queues).
    File rmConf = new File(dataDir, "rmconf");
    if (!rmConf.mkdirs() && !rmConf.isDirectory()) {
      throw new IOException("cannot create " + rmConf);
    }
    Configuration scheduler = new Configuration(false);
    for (java.util.Map.Entry<String, String> e : conf) {
      String[] sources = conf.getPropertySources(e.getKey());
      boolean fromDefaults = sources != null && sources.length > 0
          && sources[sources.length - 1].endsWith("-default.xml");
      if (e.getKey().startsWith("yarn.") && !fromDefaults) {
        scheduler.set(e.getKey(), conf.get(e.getKey()));
      }
    }
    try (OutputStream out = new FileOutputStream(new File(rmConf, "capacity-scheduler.xml"))) {
      scheduler.writeXml(out);
    }
    conf.set("yarn.resourcemanager.configuration.provider-class",
        "org.apache.hadoop.yarn.FileSystemBasedConfigurationProvider");
    conf.set("yarn.resourcemanager.configuration.file-system-based-store",
        rmConf.toURI().toString());
  }

  static void addNameservice(Configuration conf, MiniDFSCluster dfs, File dataDir)
      throws IOException {
    String ns = NAMESERVICE;
    conf.set("dfs.nameservices", ns);
    conf.set("dfs.ha.namenodes." + ns, "nn0,nn1,nn2");
    conf.set("dfs.namenode.rpc-address." + ns + ".nn0", "localhost:" + freePort());
    conf.set("dfs.namenode.http-address." + ns + ".nn0", "localhost:" + freePort());
    int[] order = {1, 0};  // the standby, then the active NameNode of the MiniDFSCluster
    for (int i = 0; i < order.length; i++) {
      String id = ".nn" + (i + 1);
      conf.set("dfs.namenode.rpc-address." + ns + id,
          "localhost:" + dfs.getNameNode(order[i]).getNameNodeAddress().getPort());
      conf.set("dfs.namenode.http-address." + ns + id,
          "localhost:" + dfs.getNameNode(order[i]).getHttpAddress().getPort());
    }
    conf.set("dfs.client.failover.proxy.provider." + ns,
        "org.apache.hadoop.hdfs.server.namenode.ha.ConfiguredFailoverProxyProvider");
    // The NodeManagers' localizers read HDFS with a `new Configuration()` of their own, which
    // sees only default resources: make the nameservice one, found through the class loader that
    // every thread started from here on inherits.
    File classpath = new File(dataDir, "classpath");
    if (!classpath.mkdirs() && !classpath.isDirectory()) {
      throw new IOException("cannot create " + classpath);
    }
    Configuration resource = new Configuration(false);
    for (java.util.Map.Entry<String, String> e : conf) {
      if (isNameserviceKey(e.getKey())) {
        resource.set(e.getKey(), e.getValue());
      }
    }
    try (OutputStream out = new FileOutputStream(new File(classpath, DEFAULT_RESOURCE))) {
      resource.writeXml(out);
    }
    Thread.currentThread().setContextClassLoader(new URLClassLoader(
        new URL[] {classpath.toURI().toURL()}, Thread.currentThread().getContextClassLoader()));
    Configuration.addDefaultResource(DEFAULT_RESOURCE);
  }

  private static boolean isNameserviceKey(String key) {
    return key.equals("dfs.nameservices") || key.endsWith("." + NAMESERVICE)
        || key.contains("." + NAMESERVICE + ".");
  }

  // The NameNode's own configuration plus the nameservice, for hdfs-site.xml.
  static Configuration withNameservice(Configuration dfsConf, Configuration conf) {
    Configuration out = new Configuration(dfsConf);
    for (java.util.Map.Entry<String, String> e : conf) {
      if (isNameserviceKey(e.getKey())) {
        out.set(e.getKey(), conf.get(e.getKey()));
      }
    }
    return out;
  }

  // MiniYARNCluster makes rm0 active while starting; make sure, then wait for it.
  static void ensureActive(MiniYARNCluster yarn) throws Exception {
    if (state(yarn.getResourceManager(0)) != HAServiceProtocol.HAServiceState.ACTIVE) {
      yarn.getResourceManager(0).getRMContext().getRMAdminService()
          .transitionToActive(new StateChangeRequestInfo(RequestSource.REQUEST_BY_USER));
    }
    if (yarn.getActiveRMIndex() != 0) {
      throw new IOException("rm0 did not become the active ResourceManager");
    }
  }

  // Makes the active RM the standby and the other one active; returns the new active id.
  static String failover(MiniYARNCluster yarn) throws Exception {
    int active = yarn.getActiveRMIndex();
    int next = active == 0 ? 1 : 0;
    StateChangeRequestInfo req = new StateChangeRequestInfo(RequestSource.REQUEST_BY_USER);
    System.err.println("minicluster: failing over from "
        + (active >= 0 ? RM_IDS[active] : "no active RM") + " to " + RM_IDS[next]);
    if (active >= 0) {
      yarn.getResourceManager(active).getRMContext().getRMAdminService().transitionToStandby(req);
    }
    yarn.getResourceManager(next).getRMContext().getRMAdminService().transitionToActive(req);
    return RM_IDS[next];
  }

  // Makes the active RM the standby: no RM is active until the next failover().
  static void standby(MiniYARNCluster yarn) throws Exception {
    int active = yarn.getActiveRMIndex();
    System.err.println("minicluster: " + (active >= 0 ? RM_IDS[active] : "no RM") + " to standby");
    if (active >= 0) {
      yarn.getResourceManager(active).getRMContext().getRMAdminService()
          .transitionToStandby(new StateChangeRequestInfo(RequestSource.REQUEST_BY_USER));
    }
  }

  private static HAServiceProtocol.HAServiceState state(ResourceManager rm) throws IOException {
    return rm.getRMContext().getRMAdminService().getServiceStatus().getState();
  }

  // A port that is free now and stays free until the RM binds it, perhaps only at failover:
  // chosen below Linux's ephemeral range (32768-60999 by default), which outgoing connections
  // take their local ports from. A port from ServerSocket(0) is in that range, and once an
  // outgoing socket took the standby's port its transition to active failed with "Address
  // already in use" (seen in CI). Each port is handed out once.
  private static final java.util.Set<Integer> handedOut = new java.util.HashSet<>();
  private static final java.util.Random random = new java.util.Random();

  private static int freePort() throws IOException {
    final int low = 20000;
    final int high = 32768;  // exclusive
    for (int tries = 0; tries < 1000; tries++) {
      int port = low + random.nextInt(high - low);
      if (handedOut.contains(port)) continue;
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(true);
        s.bind(new java.net.InetSocketAddress("localhost", port));
      } catch (IOException busy) {
        continue;
      }
      handedOut.add(port);
      return port;
    }
    throw new IOException("no free port in [" + low + ", " + high + ")");
  }
}
