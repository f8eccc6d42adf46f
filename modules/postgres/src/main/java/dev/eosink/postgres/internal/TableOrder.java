/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.internal;

import dev.eosink.core.spi.MisconfigurationException;
import dev.eosink.core.spi.SubtaskContext;
import dev.eosink.jdbc.route.RoutedTable;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The order a routed sink applies its tables in: parents before children along every foreign key between two
 * of its tables that is NOT DEFERRABLE (checked statement by statement, so order matters), the declared order
 * where none says. DEFERRABLE ones are deferred to PREPARE and impose nothing; a key of a table onto itself
 * is checked at the end of the one statement that writes both rows. A cycle of NOT DEFERRABLE keys has no
 * order that works: refused at start.
 */
final class TableOrder {

    private TableOrder() {}

    /** The tables, parents first; reads the catalog on {@code c}. */
    static List<RoutedTable> of(Connection c, SubtaskContext context, List<RoutedTable> declared)
            throws SQLException, MisconfigurationException {
        Map<Long, RoutedTable> byOid = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT to_regclass(?)::oid")) {
            for (RoutedTable t : declared) {
                s.setString(1, t.table().sql());
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    byOid.put(rs.getLong(1), t);
                }
            }
        }
        // child -> its parents among the routed tables, by keys that cannot wait
        Map<RoutedTable, List<RoutedTable>> parents = new LinkedHashMap<>();
        Map<RoutedTable, List<String>> constraints = new LinkedHashMap<>();
        declared.forEach(t -> parents.put(t, new ArrayList<>()));
        Long[] oids = byOid.keySet().toArray(new Long[0]);
        try (PreparedStatement s = c.prepareStatement("SELECT conrelid::bigint, confrelid::bigint, conname "
                + "FROM pg_constraint WHERE contype = 'f' AND NOT condeferrable AND conrelid <> confrelid "
                + "AND conrelid = ANY (?::oid[]) AND confrelid = ANY (?::oid[]) ORDER BY conname")) {
            Array array = c.createArrayOf("bigint", oids);
            s.setArray(1, array);
            s.setArray(2, array);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    RoutedTable child = byOid.get(rs.getLong(1));
                    parents.get(child).add(byOid.get(rs.getLong(2)));
                    constraints.computeIfAbsent(child, k -> new ArrayList<>()).add(rs.getString(3));
                }
            }
        }
        List<RoutedTable> order = new ArrayList<>();
        while (order.size() < declared.size()) {
            RoutedTable next = null;
            for (RoutedTable t : declared) { // the first declared whose parents are all placed
                if (!order.contains(t) && order.containsAll(parents.get(t))) {
                    next = t;
                    break;
                }
            }
            if (next == null) {
                List<String> cycle = new ArrayList<>();
                for (RoutedTable t : declared) {
                    if (!order.contains(t)) {
                        cycle.add(t.table() + " " + constraints.getOrDefault(t, List.of()));
                    }
                }
                throw new MisconfigurationException(context + ": the foreign keys between the routed tables " + cycle
                        + " form a cycle of NOT DEFERRABLE constraints: no order of upserts and deletes satisfies them "
                        + "statement by statement. Remedy: make one of them deferrable (ALTER TABLE ... ALTER "
                        + "CONSTRAINT name DEFERRABLE), which the sink defers to the commit.");
            }
            order.add(next);
        }
        return order;
    }
}
