package tableloader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.io.OutputStreamWriter;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import py4j.ClientServer;
import py4j.DefaultGatewayServerListener;
import py4j.GatewayServer;
import py4j.Py4JServerConnection;

/**
 * The listener on a Py4J server as PySpark starts one (a ClientServer: one connection per Python
 * thread), driven by a client speaking Py4J's protocol over plain sockets as PySpark's does.
 */
class NoDelayConnectionsTest {
  private ClientServer clientServer;
  private GatewayServer server;
  // The JVM side of every connection the server accepts, in order.
  private BlockingQueue<Py4JServerConnection> accepted;

  /** The entry point the client calls, as PySpark calls the loader's install from its own thread. */
  public class EntryPoint {
    public boolean install() {
      return NoDelayConnections.install(server);
    }
  }

  @BeforeEach
  void startServer() {
    clientServer = new ClientServer.ClientServerBuilder(new EntryPoint())
        .javaPort(0)
        .javaAddress(InetAddress.getLoopbackAddress())
        .autoStartJavaServer(false)
        .build();
    server = (GatewayServer) clientServer.getJavaServer();
    accepted = record();
    clientServer.startServer(true);
  }

  @AfterEach
  void stopServer() {
    clientServer.shutdown();
  }

  private Socket connect() throws Exception {
    return new Socket(InetAddress.getLoopbackAddress(), server.getListeningPort());
  }

  /** Calls the entry point's install() over {@code socket}, as Python's py4j does; its answer. */
  private static String callInstall(Socket socket) throws Exception {
    Writer out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
    out.write("c\nt\ninstall\ne\n");
    out.flush();
    return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))
        .readLine();
  }

  /** The JVM side of every connection the server accepts from now on, as a listener added now hears. */
  private BlockingQueue<Py4JServerConnection> record() {
    BlockingQueue<Py4JServerConnection> connections = new LinkedBlockingQueue<>();
    server.addListener(new DefaultGatewayServerListener() {
      @Override
      public void connectionStarted(Py4JServerConnection connection) {
        connections.add(connection);
      }
    });
    return connections;
  }

  private Py4JServerConnection nextAccepted() throws Exception {
    return next(accepted);
  }

  private static Py4JServerConnection next(BlockingQueue<Py4JServerConnection> connections)
      throws Exception {
    Py4JServerConnection connection = connections.poll(10, TimeUnit.SECONDS);
    assertNotNull(connection, "the server accepted no connection");
    return connection;
  }

  @Test
  void theCallingThreadsConnectionAndEveryLaterOneHaveTcpNoDelay() throws Exception {
    try (Socket first = connect()) {
      Py4JServerConnection firstOnServer = nextAccepted();
      assertEquals("!ybtrue", callInstall(first)); // installed now
      assertTrue(firstOnServer.getSocket().getTcpNoDelay(), "the connection that installed it");

      // Heard of by a listener after the one installed (the server tells its listeners in turn).
      BlockingQueue<Py4JServerConnection> acceptedAfter = record();
      try (Socket later = connect()) {
        assertTrue(next(acceptedAfter).getSocket().getTcpNoDelay(), "a connection opened after");
        assertEquals("!ybfalse", callInstall(later)); // there already: not installed twice
      }
    }
    long listeners = server.getListeners().stream().filter(l -> l instanceof NoDelayConnections).count();
    assertEquals(1, listeners);
  }

  @Test
  void withoutItAConnectionKeepsNaglesAlgorithm() throws Exception {
    // What the listener changes: Py4J itself leaves the option off (were that to change in a later
    // Py4J, the listener would be redundant, and this test says so).
    try (Socket socket = connect()) {
      assertFalse(nextAccepted().getSocket().getTcpNoDelay());
    }
  }
}
