package org.skyrocket.golden;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes golden files into one directory and keeps that directory's index.json entries. */
public final class Out {
    private final Path dir;
    private final java.util.List<Object> index = new java.util.ArrayList<>();

    public Out(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path dir() {
        return dir;
    }

    /** Writes bytes as file name and records the entry (whose "file" key is set here). */
    public void write(String name, byte[] content, Json.Obj entry) {
        try {
            Files.write(dir.resolve(name), content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (entry != null) {
            Json.Obj e = Json.obj().with("file", name);
            e.putAll(entry);
            index.add(e);
        }
    }

    /** Writes index.json: {"producedBy": ..., "files": [...]}. */
    public void finish(String producedBy, Json.Obj extra) {
        Json.Obj root = Json.obj()
            .with("producedBy", producedBy)
            .with("regenerate", "conformance/java/run.sh golden")
            .with("editByHand", false);
        if (extra != null) {
            root.putAll(extra);
        }
        root.put("files", index);
        write("index.json", Json.bytes(root), null);
    }
}
