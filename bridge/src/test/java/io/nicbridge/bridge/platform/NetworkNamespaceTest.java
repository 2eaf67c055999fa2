package io.nicbridge.bridge.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NetworkNamespaceTest {
    private static final AtomicLong COUNTER = new AtomicLong();
    private NetworkNamespace ns;

    @BeforeEach
    void createNamespace() throws IOException {
        Availability a = VethPair.availability();
        Requirements.assume(Capability.NET, a.available(), a.reason());
        ns = NetworkNamespace.create("nbT" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet());
    }

    @AfterEach
    void deleteNamespace() throws IOException {
        if (ns != null) {
            ns.delete();
        }
    }

    @Test
    void namespaceThreadIsInTheNamespaceAndTheTestThreadIsNot() throws Exception {
        long root = NetworkNamespace.currentThreadNamespaceInode();
        long inside = ns.call(NetworkNamespace::currentThreadNamespaceInode);
        assertNotEquals(root, inside, "the namespace thread must not be in the root namespace");
        assertEquals(ns.inode(), inside, "the thread is in the namespace named " + ns.name());
        assertEquals(root, NetworkNamespace.currentThreadNamespaceInode(), "the caller's namespace is unchanged");
    }

    @Test
    void newThreadEntersTheNamespaceBeforeItsBody() throws Exception {
        AtomicLong seen = new AtomicLong();
        Thread t = ns.newThread(() -> {
            try {
                seen.set(NetworkNamespace.currentThreadNamespaceInode());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        t.start();
        t.join();
        assertEquals(ns.inode(), seen.get());
    }

    @Test
    void socketCreatedOnTheNamespaceThreadSeesOnlyThatNamespace() throws Exception {
        // A fresh namespace has only "lo", and it is down: 127.0.0.1 cannot even be bound there until it is up,
        // while the root namespace's loopback works. Bringing lo up inside makes the same bind succeed.
        Class<? extends Exception> failure = ns.call(() -> {
            try (DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET)) {
                ch.bind(new InetSocketAddress("127.0.0.1", 0));
                ch.send(java.nio.ByteBuffer.allocate(1), ch.getLocalAddress());
                return null;
            } catch (IOException e) {
                return e.getClass();
            }
        });
        assertTrue(failure != null, "sending over the down loopback of a fresh namespace must fail");
        IpCommand.check("-n", ns.name(), "link", "set", "dev", "lo", "up");
        assertEquals(null, ns.call(() -> {
            try (DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET)) {
                ch.bind(new InetSocketAddress("127.0.0.1", 0));
                ch.send(java.nio.ByteBuffer.allocate(1), ch.getLocalAddress());
                return null;
            } catch (IOException e) {
                return e.getClass();
            }
        }));
    }

    @Test
    void tasksRunOnOneThreadInOrderAndExceptionsReachTheCaller() throws Exception {
        Thread first = ns.call(Thread::currentThread);
        Thread second = ns.call(Thread::currentThread);
        assertSame(first, second, "one dedicated thread per namespace");
        assertTrue(ns.call(ns::isNamespaceThread));
        assertFalse(ns.isNamespaceThread());
        IOException thrown = assertThrows(IOException.class, () -> ns.call(() -> {
            throw new IOException("boom");
        }));
        assertEquals("boom", thrown.getMessage());
        IllegalStateException fromRun = assertThrows(IllegalStateException.class, () -> ns.run(() -> {
            throw new IllegalStateException("bang");
        }));
        assertEquals("bang", fromRun.getMessage());
        // Nested call from the namespace thread runs inline instead of deadlocking.
        assertEquals(7, ns.call(() -> ns.call(() -> 7)));
    }

    @Test
    void closedNamespaceRefusesTasksAndDeleteRemovesIt() throws Exception {
        Path path = ns.path();
        assertTrue(Files.exists(path));
        ns.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ns.run(() -> { }));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        AtomicReference<Throwable> threadFailure = new AtomicReference<>();
        Thread late = ns.newThread(() -> { });
        late.setUncaughtExceptionHandler((t, ex) -> threadFailure.set(ex));
        late.start();
        late.join();
        assertTrue(threadFailure.get() instanceof IllegalStateException, String.valueOf(threadFailure.get()));
        ns.delete();
        assertFalse(Files.exists(path), "ip netns del removed " + path);
        assertFalse(NetworkNamespace.exists(ns.name()));
        ns = null;
    }

    @Test
    void openingAMissingNamespaceOrABadNameSaysWhat() {
        NoSuchFileException missing = assertThrows(NoSuchFileException.class,
            () -> NetworkNamespace.open("nbT-missing-" + ProcessHandle.current().pid()));
        assertTrue(missing.getMessage().contains("no network namespace named"), missing.getMessage());
        assertThrows(IllegalArgumentException.class, () -> NetworkNamespace.open("../etc"));
        assertThrows(IllegalArgumentException.class, () -> NetworkNamespace.create(""));
    }
}
