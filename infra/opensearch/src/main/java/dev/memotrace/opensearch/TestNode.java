package dev.memotrace.opensearch;

import static org.codelibs.opensearch.runner.OpenSearchRunner.newConfigs;

import java.io.IOException;

import org.codelibs.opensearch.runner.OpenSearchRunner;

/**
 * One in-JVM OpenSearch node for the integration tests.
 * Args: httpPort basePath [ownerPid]. Prints "OPENSEARCH_READY http://127.0.0.1:PORT"
 * once the cluster is yellow. Stops (and deletes its data) on SIGTERM, or when the
 * owner process exits, so the node never outlives the script that started it.
 */
public final class TestNode {
  public static void main(final String[] args) throws Exception {
    final int httpPort = Integer.parseInt(args[0]);
    final String basePath = args[1];
    final OpenSearchRunner runner = new OpenSearchRunner();
    runner.setMaxHttpPort(-1); // the starter chose a free port; do not probe others
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(runner)));

    runner.onBuild((number, settings) -> {
      settings.put("http.port", httpPort);
      settings.put("network.host", "127.0.0.1");
      settings.put("discovery.type", "single-node");
      settings.putList("node.roles", "cluster_manager", "data", "ingest");
      settings.put("cluster.routing.allocation.disk.threshold_enabled", false);
      settings.put("action.auto_create_index", false);
    }).build(newConfigs()
        .basePath(basePath)
        .numOfNode(1)
        .clusterName("memotrace-test")
        .pluginTypes("org.opensearch.knn.plugin.KNNPlugin")
        .disableESLogger());
    runner.ensureYellow();
    System.out.println("OPENSEARCH_READY http://127.0.0.1:" + httpPort);
    System.out.flush();

    if (args.length > 2) {
      final long ownerPid = Long.parseLong(args[2]);
      ProcessHandle.of(ownerPid).ifPresentOrElse(
          owner -> owner.onExit().join(),
          () -> System.err.println("owner process " + ownerPid + " is gone"));
      System.exit(0);
    }
    Thread.currentThread().join(); // foreground: runs until Ctrl-C
  }

  private static void stop(final OpenSearchRunner runner) {
    try {
      runner.close();
    } catch (final IOException e) {
      System.err.println("closing the node failed: " + e.getMessage());
    }
    try {
      runner.clean();
    } catch (final RuntimeException e) {
      System.err.println("deleting the node's data failed: " + e.getMessage());
    }
  }
}
