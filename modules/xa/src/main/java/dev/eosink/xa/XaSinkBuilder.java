package dev.eosink.xa;

import dev.eosink.core.SinkSettings;
import dev.eosink.postgres.JdbcSinkBuilderBase;
import dev.eosink.postgres.internal.InsertStatement;
import dev.eosink.postgres.internal.SqlIdentifier;
import dev.eosink.xa.internal.XaConnector;
import dev.eosink.xa.internal.XaDatabase;

import org.apache.flink.util.function.SerializableSupplier;

import javax.sql.XADataSource;

import java.util.Objects;
import java.util.Properties;

/**
 * Builds an exactly-once sink into an XA database. Each setter checks its own argument; {@link
 * #build()} checks the rules that span several settings. The options it shares with {@code
 * PostgresSink.builder()} are those of {@link JdbcSinkBuilderBase} and mean the same; the protocol
 * options go to the same {@link SinkSettings}.
 */
public final class XaSinkBuilder<IN> extends JdbcSinkBuilderBase<IN, XaSinkBuilder<IN>> {

    private SerializableSupplier<XADataSource> xaDataSource;

    XaSinkBuilder() {
        super("xaDataSource", "XADataSource");
    }

    /** {@code jdbc:mariadb://...}, {@code jdbc:mysql://...} or {@code jdbc:postgresql://...}. */
    @Override
    public XaSinkBuilder<IN> jdbcUrl(String jdbcUrl) {
        XaConnector.of(jdbcUrl, new Properties()); // validates the scheme
        return setJdbcUrl(jdbcUrl);
    }

    /** Any database's {@link XADataSource}, built on the task managers (instead of a URL). */
    public XaSinkBuilder<IN> xaDataSource(SerializableSupplier<XADataSource> supplier) {
        this.xaDataSource = Objects.requireNonNull(supplier, "supplier");
        return this;
    }

    @Override
    protected boolean hasDataSource() {
        return xaDataSource != null;
    }

    @Override
    protected XaDatabase<IN> database(InsertStatement<IN> statement) {
        // Binds by position exactly like the PostgreSQL sink; the SQL text comes from the database's dialect.
        XaConnector connector =
                xaDataSource != null ? XaConnector.of(xaDataSource) : XaConnector.of(getJdbcUrl(), getProperties());
        SqlIdentifier table = getTable(); // null with sql(...)
        SqlIdentifier markers = getMarkerTable();
        return new XaDatabase<>(connector, statement, table == null ? null : table.schema(), table == null ? null : table.name(),
                getColumns(), markers.schema(), markers.name(), isCreateMarkerTable(), getBatchSize(), getMaxPreparedPerSubtask());
    }
}
