package org.skyrocket.mqadmin;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Routes System.out and System.err per command: a thread that runs a command (and every
 * thread it starts, through an InheritableThreadLocal) writes into that command's
 * buffers; everything else goes to the real streams. Long-running commands keep
 * writing into their own buffers after the matrix has moved on.
 */
final class Capture {
    private static final InheritableThreadLocal<Buffers> SINK = new InheritableThreadLocal<>();
    private static PrintStream realOut;
    private static PrintStream realErr;

    private Capture() {
    }

    /** The two buffers of one command. */
    static final class Buffers {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final ByteArrayOutputStream err = new ByteArrayOutputStream();

        private Throwable thrown;

        synchronized Spec.Output snapshot() {
            return new Spec.Output(out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), thrown);
        }

        synchronized void failed(Throwable t) {
            thrown = t;
        }

        synchronized void write(boolean toErr, byte[] b, int off, int len) {
            (toErr ? err : out).write(b, off, len);
        }
    }

    static void install() {
        realOut = System.out;
        realErr = System.err;
        System.setOut(new PrintStream(new Router(false), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new Router(true), true, StandardCharsets.UTF_8));
    }

    /** The stream this program reports on (not captured). */
    static PrintStream console() {
        return realOut == null ? System.out : realOut;
    }

    /** Makes the current thread, and the threads it starts from now on, write into b. */
    static void bind(Buffers b) {
        SINK.set(b);
    }

    private static final class Router extends OutputStream {
        private final boolean err;

        Router(boolean err) {
            this.err = err;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            Buffers s = SINK.get();
            if (s != null) {
                s.write(err, b, off, len);
                return;
            }
            (err ? realErr : realOut).write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            (err ? realErr : realOut).flush();
        }
    }
}
