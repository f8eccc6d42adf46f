/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.core.ExactlyOnceSink;
import dev.eosink.xa.internal.XaConnector;
import dev.eosink.xa.internal.XaDatabase;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class XaSinkBuilderTest {

    @Test
    void thePasswordNeverShows() {
        ExactlyOnceSink<Long> sink = XaSink.<Long>builder()
                .jdbcUrl("jdbc:mariadb://db:3306/shop?password=url-secret")
                .username("flink")
                .password("builder-secret")
                .sinkId("orders")
                .table("orders")
                .columns("id")
                .rows(id -> new Object[] {id})
                .build();
        String shown = sink + " " + sink.database() + " " + sink.settings();
        assertThat(shown)
                .doesNotContain("builder-secret")
                .doesNotContain("url-secret")
                .contains("orders");
    }

    /** A null password (a secret that is not set) is refused naming the sink and the remedy, not a bare NPE. */
    @Test
    void aNullPasswordIsRefusedNamingTheSinkAndTheRemedy() {
        assertThatThrownBy(() -> XaSink.<Long>builder()
                        .jdbcUrl("jdbc:mariadb://db:3306/shop")
                        .username("flink")
                        .password(null)
                        .sinkId("orders")
                        .table("orders")
                        .columns("id")
                        .rows(id -> new Object[] {id})
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sink 'orders': password(null)")
                .hasMessageContaining("Remedy: pass the password")
                .hasMessageContaining("leave password(...) out");
    }

    /** A server that asks for no password: none is given, and the sink builds. */
    @Test
    void noPasswordIsAllowed() {
        ExactlyOnceSink<Long> sink = XaSink.<Long>builder()
                .jdbcUrl("jdbc:mariadb://db:3306/shop")
                .username("flink")
                .sinkId("orders")
                .table("orders")
                .columns("id")
                .rows(id -> new Object[] {id})
                .build();
        assertThat(sink.toString()).contains("orders");
    }

    @Test
    void unknownUrlsAreRefusedWithTheRemedyAndWithoutThePassword() {
        assertThatThrownBy(() -> XaSink.<Long>builder().jdbcUrl("jdbc:oracle:thin:@db:1521/x?password=secret"))
                .hasMessageContaining("xaDataSource(")
                .hasMessageNotContaining("secret");
    }

    @Test
    void timeoutsAreCheckedAndTheLockTimeoutMustEndBeforeTheNetworkTimeout() {
        assertThatThrownBy(() -> XaSink.<Long>builder().networkTimeout(Duration.ofMillis(500)))
                .hasMessageContaining("networkTimeout must be at least 1 s, or zero");
        assertThatThrownBy(() -> XaSink.<Long>builder().lockTimeout(Duration.ZERO))
                .hasMessageContaining("lockTimeout must be at least 1 s");
        assertThatThrownBy(
                        () -> complete().networkTimeout(Duration.ofSeconds(30)).build())
                .hasMessageContaining("lockTimeout (60000 ms) must be shorter than networkTimeout (30000 ms)");
        assertThat(complete()
                        .networkTimeout(Duration.ofSeconds(30))
                        .lockTimeout(Duration.ofSeconds(20))
                        .build())
                .isNotNull();
        assertThat(complete().networkTimeout(Duration.ZERO).build())
                .as("no network bound: any lock timeout")
                .isNotNull();
        assertThat(complete().build()).as("the defaults, 120 s and 60 s").isNotNull();
    }

    private static XaSinkBuilder<Long> complete() {
        return XaSink.<Long>builder()
                .jdbcUrl("jdbc:mariadb://db:3306/shop")
                .sinkId("orders")
                .table("orders")
                .columns("id")
                .rows(id -> new Object[] {id});
    }

    @Test
    void buildChecksTheCombination() {
        assertThatThrownBy(() ->
                        XaSink.<Long>builder().jdbcUrl("jdbc:mariadb://db/x").build())
                .hasMessageContaining("sinkId is required");
        assertThatThrownBy(() -> XaSink.<Long>builder()
                        .jdbcUrl("jdbc:mariadb://db/x")
                        .sinkId("s")
                        .build())
                .hasMessageContaining("either table(...)");
        assertThatThrownBy(() -> XaSink.<Long>builder()
                        .sinkId("s")
                        .table("t")
                        .columns("a")
                        .rows(r -> new Object[] {r})
                        .build())
                .hasMessageContaining("jdbcUrl(...)");
    }

    @Test
    void upsertsAreCheckedAsThePostgresSinksAndRefusedThroughPostgresXa() {
        assertThat(complete().upsert("id").build().toString())
                .as("MariaDB: upserts")
                .contains("orders");
        assertThatThrownBy(() -> complete().upsert("other").build())
                .hasMessageContaining("sink 'orders': upsert key [other] must be among the columns [id]");
        assertThatThrownBy(() -> complete()
                        .changelog(r -> org.apache.flink.types.RowKind.DELETE)
                        .build())
                .hasMessageContaining("changelog(...) deletes by key: also give upsert(key columns)");
        assertThatThrownBy(() -> XaSink.<Long>builder()
                        .jdbcUrl("jdbc:mariadb://db/x")
                        .sinkId("s")
                        .sql("INSERT INTO t VALUES (?)", (ps, r) -> ps.setLong(1, r))
                        .upsert("id")
                        .build())
                .hasMessageContaining("need table(...) + columns(...) + rows(...)");
        assertThatThrownBy(() -> XaSink.<Long>builder()
                        .jdbcUrl("jdbc:postgresql://db/x")
                        .sinkId("orders")
                        .table("orders")
                        .columns("id")
                        .rows(id -> new Object[] {id})
                        .upsert("id")
                        .build())
                .hasMessageContaining("not on PostgreSQL: use PostgresSink.builder().upsert(...)");
    }

    /** A name Firebird 3 cannot take is refused by build() as the writer refuses it at start, when the URL is given. */
    @Test
    void aNameTheUrlsDialectCannotTakeIsRefusedAtBuild() {
        assertThatThrownBy(() -> XaSink.<Long>builder()
                        .jdbcUrl("jdbc:firebird://db:3050/shop")
                        .sinkId("orders")
                        .table("orders")
                        .columns("id")
                        .rows(id -> new Object[] {id})
                        .markerTable(null, "eosink_markers_of_the_orders_job")
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sink 'orders': the marker table (markerTable(...)) "
                        + "\"eosink_markers_of_the_orders_job\" cannot be named on Firebird")
                .hasMessageContaining("Remedy: choose a shorter name");
        assertThatThrownBy(() -> XaSink.<Long>builder()
                        .jdbcUrl("jdbc:firebird://db:3050/shop")
                        .sinkId("orders")
                        .table("shop", "orders")
                        .columns("id")
                        .rows(id -> new Object[] {id})
                        .build())
                .hasMessageContaining("sink 'orders': the target table (table(...)) \"shop\".\"orders\"")
                .hasMessageContaining("Remedy: give the table without a schema");
        assertThat(XaSink.<Long>builder()
                        .jdbcUrl("jdbc:mariadb://db:3306/shop")
                        .sinkId("orders")
                        .table("shop", "orders")
                        .columns("id")
                        .rows(id -> new Object[] {id})
                        .markerTable(null, "eosink_markers_of_the_orders_job")
                        .build())
                .as("MariaDB takes both")
                .isNotNull();
    }

    /** The network timeout becomes the read timeout by the driver's own name: Jaybird knows soTimeout only. */
    @Test
    void theReadTimeoutIsTheDriversProperty() throws Exception {
        Properties firebird = new Properties();
        firebird.setProperty("user", "flink");
        firebird.setProperty("soTimeout", "120000");
        firebird.setProperty("tcpKeepAlive", "true");
        assertThat(driverProperties(XaSink.<Long>builder()
                        .jdbcUrl("jdbc:firebird://db:3050/shop")
                        .username("flink")
                        .sinkId("orders")
                        .table("orders")
                        .columns("id")
                        .rows(id -> new Object[] {id})))
                .isEqualTo(firebird);
        Properties mariadb = new Properties();
        mariadb.setProperty("socketTimeout", "120000");
        mariadb.setProperty("tcpKeepAlive", "true");
        assertThat(driverProperties(complete())).isEqualTo(mariadb);
    }

    /** The properties the built sink's connector passes to the driver (private: they hold the password). */
    private static Object driverProperties(XaSinkBuilder<Long> builder) throws Exception {
        XaConnector connector =
                ((XaDatabase<Long>) builder.build().database()).options().connector();
        Field source = XaConnector.class.getDeclaredField("source");
        source.setAccessible(true);
        Object byUrl = source.get(connector);
        Method properties = byUrl.getClass().getDeclaredMethod("properties");
        properties.setAccessible(true);
        return properties.invoke(byUrl);
    }
}
