package tableloader;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system ({@code file:}), with permissions set through Java instead of a
 * {@code chmod} process.
 *
 * <p>Without Hadoop's native library (which no package registry ships), Hadoop's local file system
 * starts a {@code chmod} process for every directory it makes and every file it creates, and one for
 * the file's checksum file: about 8 ms each in a Spark driver, five or more for each small topic a run
 * loads into a local warehouse, where the rest of such a topic's file costs a few milliseconds
 * (measured in the benchmarks' README, "Permissions on a local warehouse"). The bits set are the same;
 * only a mode Java cannot express (sticky, setuid, setgid) or a file system without POSIX permissions
 * goes to Hadoop's way. Everything else is Hadoop's own local file system, checksums included.
 *
 * <p>The loader sets it for {@code file:} paths of a local Spark ({@code spark.hadoop.fs.file.impl});
 * HDFS and object stores start no process and are not concerned.
 */
public class LocalFileSystemWithJavaPermissions extends LocalFileSystem {
  public LocalFileSystemWithJavaPermissions() {
    super(new RawWithJavaPermissions());
  }

  /** The raw (checksum-less) local file system under the checksums, the one that sets permissions. */
  public static class RawWithJavaPermissions extends RawLocalFileSystem {
    @Override
    public void setPermission(Path path, FsPermission permission) throws IOException {
      Set<PosixFilePermission> bits = posixBits(permission.toShort());
      if (bits == null) {
        super.setPermission(path, permission);
        return;
      }
      File file = pathToFile(path);
      try {
        Files.setPosixFilePermissions(file.toPath(), bits);
      } catch (UnsupportedOperationException notPosix) {
        super.setPermission(path, permission);
      }
    }
  }

  /** The permissions of a mode's nine rwx bits; null when it has others (sticky, setuid, setgid). */
  static Set<PosixFilePermission> posixBits(int mode) {
    if ((mode & ~0777) != 0) {
      return null;
    }
    PosixFilePermission[] order = {
      PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE,
      PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
      PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE,
    };
    Set<PosixFilePermission> bits = EnumSet.noneOf(PosixFilePermission.class);
    for (int i = 0; i < order.length; i++) {
      if ((mode & (0400 >> i)) != 0) {
        bits.add(order[i]);
      }
    }
    return bits;
  }
}
