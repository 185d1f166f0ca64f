package tableloader;

import java.net.Socket;
import java.net.SocketException;
import py4j.DefaultGatewayServerListener;
import py4j.GatewayServer;
import py4j.GatewayServerListener;
import py4j.Py4JPythonClient;
import py4j.Py4JPythonClientPerThread;
import py4j.Py4JServerConnection;

/**
 * Turns Nagle's algorithm off on the driver JVM's sockets to PySpark ({@code TCP_NODELAY}), so that an
 * answer of more than 8 KB reaches Python at once instead of about 40 ms later.
 *
 * <p>Py4J writes an answer through an 8 KB buffer: a longer one (a wide query's schema, a run's
 * manifest) leaves in two writes, and with Nagle's algorithm on, the second waits for Python to
 * acknowledge the first, which Python's side delays by up to 40 ms (delayed ACK): a fixed 40 ms a call
 * on loopback, where the call itself takes well under one (py4j issue 516; measured in the benchmarks'
 * README, "Py4J answers without Nagle's algorithm"). The Py4J that pyspark 4.0 brings (0.10.9.9) does
 * not set the option. Installed as a listener of the Py4J server, this sets it on every connection
 * Python opens from then on (PySpark opens one per Python thread), and on the calling thread's own.
 */
public final class NoDelayConnections extends DefaultGatewayServerListener {
  private NoDelayConnections() {}

  /**
   * Sets the option on the calling Python thread's connection and every later one; true if it was not
   * installed on {@code server} before.
   */
  public static boolean install(GatewayServer server) {
    Py4JPythonClient client = server.getCallbackClient();
    if (client instanceof Py4JPythonClientPerThread) {
      Py4JServerConnection current = ((Py4JPythonClientPerThread) client).getPerThreadConnection();
      if (current != null) {
        noDelay(current.getSocket());
      }
    }
    for (GatewayServerListener listener : server.getListeners()) {
      if (listener instanceof NoDelayConnections) {
        return false;
      }
    }
    server.addListener(new NoDelayConnections());
    return true;
  }

  @Override
  public void connectionStarted(Py4JServerConnection connection) {
    noDelay(connection.getSocket());
  }

  private static void noDelay(Socket socket) {
    try {
      socket.setTcpNoDelay(true);
    } catch (SocketException closed) {
      // A connection closed already has no answer left to send.
    }
  }
}
