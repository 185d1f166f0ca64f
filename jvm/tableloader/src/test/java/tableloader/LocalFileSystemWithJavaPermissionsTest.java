package tableloader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local file system without a chmod process leaves every file and directory the mode Hadoop's does. */
class LocalFileSystemWithJavaPermissionsTest {
  @TempDir Path tmp;

  /** What a file system leaves: modes it sets, directories it makes, a file it creates (and its .crc). */
  private static Map<String, Integer> modesLeftBy(FileSystem fs, Path root) throws Exception {
    Map<String, Integer> modes = new LinkedHashMap<>();
    for (int mode : new int[] {0750, 0604, 0000, 01777}) {
      Path target = root.resolve("set-" + Integer.toOctalString(mode));
      Files.createDirectory(target);
      fs.setPermission(new org.apache.hadoop.fs.Path(target.toUri()), new FsPermission((short) mode));
      modes.put("set " + Integer.toOctalString(mode), mode(target));
      Files.setPosixFilePermissions(target, EnumSet.allOf(PosixFilePermission.class)); // removable
    }
    fs.mkdirs(new org.apache.hadoop.fs.Path(root.resolve("made/deeper").toUri()));
    fs.create(new org.apache.hadoop.fs.Path(root.resolve("made/deeper/file").toUri())).close();
    for (String relative : new String[] {"made", "made/deeper", "made/deeper/file", "made/deeper/.file.crc"}) {
      modes.put(relative, mode(root.resolve(relative)));
    }
    return modes;
  }

  private static int mode(Path path) throws Exception {
    return (Integer) Files.getAttribute(path, "unix:mode") & 07777;
  }

  @Test
  void leavesTheModesHadoopsLocalFileSystemLeaves() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fs.permissions.umask-mode", "022");
    FileSystem ours = new LocalFileSystemWithJavaPermissions();
    ours.initialize(URI.create("file:///"), conf);
    FileSystem hadoops = new LocalFileSystem();
    hadoops.initialize(URI.create("file:///"), conf);
    Files.createDirectory(tmp.resolve("ours"));
    Files.createDirectory(tmp.resolve("hadoops"));

    Map<String, Integer> left = modesLeftBy(ours, tmp.resolve("ours"));

    assertEquals(modesLeftBy(hadoops, tmp.resolve("hadoops")), left);
    Map<String, Integer> expected = new LinkedHashMap<>();
    expected.put("set 750", 0750);
    expected.put("set 604", 0604);
    expected.put("set 0", 0);
    expected.put("set 1777", 01777); // the sticky bit: Hadoop's own way
    expected.put("made", 0755);
    expected.put("made/deeper", 0755);
    expected.put("made/deeper/file", 0644);
    expected.put("made/deeper/.file.crc", 0644);
    assertEquals(expected, left);
  }

  @Test
  void isTheFileSystemOfFilePathsWhenConfiguredSo() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", LocalFileSystemWithJavaPermissions.class.getName());
    try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf)) {
      assertSame(LocalFileSystemWithJavaPermissions.class, fs.getClass());
    }
  }

  @Test
  void posixBitsAreTheNineRwxBitsOnly() {
    assertEquals(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_EXECUTE),
        LocalFileSystemWithJavaPermissions.posixBits(0641));
    assertEquals(EnumSet.allOf(PosixFilePermission.class), LocalFileSystemWithJavaPermissions.posixBits(0777));
    assertEquals(EnumSet.noneOf(PosixFilePermission.class), LocalFileSystemWithJavaPermissions.posixBits(0));
    assertNull(LocalFileSystemWithJavaPermissions.posixBits(01777));
    assertNull(LocalFileSystemWithJavaPermissions.posixBits(04755));
  }
}
