package org.skyrocket.scenarios;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Key/value state a scenario's first phase leaves for its second phase, run by a new JVM after
 * run.sh restarted the broker (a java.util.Properties file; empty when no file is given).
 */
public final class State {
    private final Path file;
    private final Properties props = new Properties();

    State(Path file) throws IOException {
        this.file = file;
        if (file != null && Files.exists(file)) {
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                props.load(r);
            }
        }
    }

    public String get(String key) {
        String v = props.getProperty(key);
        if (v == null) {
            throw new Ctx.Failure("no state " + key + " (did the first phase run?)");
        }
        return v;
    }

    public void put(String key, String value) throws IOException {
        if (file == null) {
            throw new Ctx.Failure("this phase needs --state FILE");
        }
        props.setProperty(key, value);
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            props.store(w, "scenario state");
        }
    }
}
