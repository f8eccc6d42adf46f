/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.sql;

import dev.eosink.core.TransactionId;
import dev.eosink.core.spi.CarriedNotice;
import dev.eosink.jdbc.dialect.MarkerSql;

import org.apache.flink.annotation.Internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * What every JDBC sink records, in its marker table, of writes an upsert writer carried past a barrier
 * ({@link dev.eosink.core.spi.CarriedLedger#openCarried()}): a <em>notice row</em> inside the transaction
 * prepared at that barrier, so it becomes visible exactly when that transaction commits, and deleted by the
 * transaction that writes them (or by a restore that gives them up). The same columns as a marker row, so no
 * other table or grant is needed:
 *
 * <ul>
 *   <li>{@code sink_id}: the sink id followed by {@value #SUFFIX} (no sink id contains '/'), so that every
 *       query of a sink's markers leaves notices out, and finding a sink's notices reads only them (the
 *       index on {@code (sink_id, created_at)}). Never longer than a sink id may be ({@value #MAX_SINK_ID}
 *       characters, the width of the column in marker tables some databases create): a sink id too long for
 *       the suffix is cut and followed by a hash of it; the {@code gid} names the sink in full;
 *   <li>{@code gid}: {@value #GID_PREFIX} and the carrying transaction's name;
 *   <li>{@code subtask}, {@code checkpoint_id}: the carrying transaction's; {@code row_count}: how many writes
 *       were carried.
 * </ul>
 *
 * The SQL is standard, for every database's marker table, named by its qualified table name.
 */
@Internal
public final class CarriedNotices {

    /** What a notice row's {@code sink_id} has after the sink id. */
    public static final String SUFFIX = "/carried";

    /** What a notice row's {@code gid} has before the carrying transaction's name. */
    public static final String GID_PREFIX = "carried/";

    private CarriedNotices() {}

    /** The longest sink id, and so the narrowest {@code sink_id} column a marker table may have. */
    static final int MAX_SINK_ID = 100;

    /**
     * The {@code sink_id} of sink {@code sinkId}'s notice rows: the sink id and {@value #SUFFIX}, or, when that
     * is longer than {@value #MAX_SINK_ID} characters, the sink id's first characters, '~' and 12 hex digits of
     * its SHA-256 before the suffix (two sink ids then share it with a chance of one in 2^48, and their notices
     * are still told apart by their gids).
     */
    public static String sinkIdOf(String sinkId) {
        String whole = TransactionId.checkSinkId(sinkId) + SUFFIX;
        if (whole.length() <= MAX_SINK_ID) {
            return whole;
        }
        String hash;
        try {
            hash = HexFormat.of()
                    .formatHex(
                            MessageDigest.getInstance("SHA-256").digest(sinkId.getBytes(StandardCharsets.UTF_8)), 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
        return sinkId.substring(0, MAX_SINK_ID - SUFFIX.length() - hash.length() - 1) + "~" + hash + SUFFIX;
    }

    /**
     * Adds the notice row of {@code carrying}, which carried {@code writes} writes past its barrier, with the
     * marker table's own INSERT ({@code gid, sink_id, subtask, checkpoint_id, row_count}), inside that
     * transaction.
     */
    public static void insert(PreparedStatement markerInsert, TransactionId carrying, long writes) throws SQLException {
        markerInsert.setString(1, GID_PREFIX + carrying);
        markerInsert.setString(2, sinkIdOf(carrying.sinkId()));
        markerInsert.setInt(3, carrying.subtask());
        markerInsert.setLong(4, carrying.checkpointId());
        markerInsert.setLong(5, writes);
        markerInsert.executeUpdate();
    }

    /** The visible notices of {@code sinkId}, read on {@code c} (in whatever transaction it is in). */
    public static List<CarriedNotice> read(Connection c, MarkerSql markers, String sinkId) throws SQLException {
        List<CarriedNotice> notices = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(markers.noticesSql())) {
            s.setString(1, sinkIdOf(sinkId));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    parse(rs.getString(1), rs.getLong(2))
                            .filter(n -> n.transaction().sinkId().equals(sinkId))
                            .ifPresent(notices::add);
                }
            }
        }
        return notices;
    }

    /**
     * Deletes, on {@code c} and in its transaction, the visible notices of subtask index {@code subtask}; returns
     * how many. They are read first (a plain read, which takes no lock), then deleted by their keys.
     */
    public static int delete(Connection c, MarkerSql markers, String sinkId, int subtask) throws SQLException {
        List<String> gids = new ArrayList<>();
        for (CarriedNotice n : read(c, markers, sinkId)) {
            if (n.subtask() == subtask) {
                gids.add(GID_PREFIX + n.transaction());
            }
        }
        return delete(c, markers, gids);
    }

    /** Deletes, on {@code c} and in its transaction, the notices of these transactions; returns how many. */
    public static int delete(Connection c, MarkerSql markers, Collection<TransactionId> carrying) throws SQLException {
        List<String> gids = new ArrayList<>();
        for (TransactionId id : carrying) {
            gids.add(GID_PREFIX + id);
        }
        return delete(c, markers, gids);
    }

    private static int delete(Connection c, MarkerSql markers, List<String> gids) throws SQLException {
        if (gids.isEmpty()) {
            return 0;
        }
        int deleted = 0;
        try (PreparedStatement s = c.prepareStatement(markers.deleteSql())) {
            for (String gid : gids) {
                s.setString(1, gid);
                deleted += s.executeUpdate();
            }
        }
        return deleted;
    }

    /** The notice a row of {@code gid} and {@code writes} is; empty for a gid of another layout. */
    public static Optional<CarriedNotice> parse(String gid, long writes) {
        if (gid == null || !gid.startsWith(GID_PREFIX)) {
            return Optional.empty();
        }
        return TransactionId.parse(gid.substring(GID_PREFIX.length())).map(id -> new CarriedNotice(id, writes));
    }
}
