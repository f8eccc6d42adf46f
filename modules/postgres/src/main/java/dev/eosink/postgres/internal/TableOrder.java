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
 * order that works: refused at start, as is a NOT DEFERRABLE key onto columns other than the parent's key (a run
 * may change such a value and the rows that refer to it, which no order of whole statements can).
 */
final class TableOrder {

    private final List<RoutedTable> order;
    private final List<RoutedTable> parents;

    private TableOrder(List<RoutedTable> order, List<RoutedTable> parents) {
        this.order = order;
        this.parents = parents;
    }

    /** The tables, parents first. */
    List<RoutedTable> order() {
        return order;
    }

    /**
     * Whether a NOT DEFERRABLE foreign key of a routed table (itself included) refers to {@code table}: then its
     * deletes wait until every table's upserts ran (a child may move away from a row it deletes). Any other
     * table deletes before it upserts, so that a unique value a delete frees can be taken in the same run.
     */
    boolean isParent(RoutedTable table) {
        return parents.contains(table);
    }

    /**
     * Reads the foreign keys between the declared tables on {@code c}; refuses one table declared twice, a NOT
     * DEFERRABLE foreign key onto columns other than its parent's key, and a cycle of NOT DEFERRABLE ones.
     */
    static TableOrder read(Connection c, SubtaskContext context, List<RoutedTable> declared)
            throws SQLException, MisconfigurationException {
        Map<Long, RoutedTable> byOid = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT to_regclass(?)::oid")) {
            for (RoutedTable t : declared) {
                s.setString(1, t.table().sql());
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    RoutedTable other = byOid.put(rs.getLong(1), t);
                    if (other != null) {
                        // Two buffers for one table would apply its changes out of order.
                        throw new MisconfigurationException(context + ": routed tables " + other.name() + " and "
                                + t.name() + " are one table, " + t.table() + ", declared twice. Remedy: declare it "
                                + "once, and name it so in the route.");
                    }
                }
            }
        }
        // child -> its parents among the routed tables, by keys that cannot wait
        Map<RoutedTable, List<RoutedTable>> parents = new LinkedHashMap<>();
        Map<RoutedTable, List<String>> constraints = new LinkedHashMap<>();
        List<RoutedTable> referencedTables = new ArrayList<>();
        declared.forEach(t -> parents.put(t, new ArrayList<>()));
        Long[] oids = byOid.keySet().toArray(new Long[0]);
        try (PreparedStatement s = c.prepareStatement("SELECT conrelid::bigint, confrelid::bigint, conname, "
                + "ARRAY(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = confrelid "
                + "AND a.attnum = ANY (confkey) ORDER BY a.attname) "
                + "FROM pg_constraint WHERE contype = 'f' AND NOT condeferrable "
                + "AND conrelid = ANY (?::oid[]) AND confrelid = ANY (?::oid[]) ORDER BY conname")) {
            Array array = c.createArrayOf("bigint", oids);
            s.setArray(1, array);
            s.setArray(2, array);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    RoutedTable child = byOid.get(rs.getLong(1));
                    RoutedTable parent = byOid.get(rs.getLong(2));
                    List<String> referenced = List.of((String[]) rs.getArray(4).getArray());
                    if (!referenced.equals(parent.key().stream().sorted().toList())) {
                        throw new MisconfigurationException(context + ": the foreign key " + rs.getString(3)
                                + " of routed table " + child.table() + " refers to " + referenced + " of "
                                + parent.table() + ", not to its key " + parent.key() + ", and is NOT DEFERRABLE. "
                                + "A run changes such a value and the rows that refer to it in one statement per "
                                + "table, which no order makes valid statement by statement. Remedy: make it "
                                + "deferrable (ALTER TABLE " + child.table() + " ALTER CONSTRAINT "
                                + rs.getString(3) + " DEFERRABLE), which the sink defers to the commit.");
                    }
                    if (child != parent) { // a key onto its own table is checked at the end of its one statement
                        parents.get(child).add(parent);
                        constraints
                                .computeIfAbsent(child, k -> new ArrayList<>())
                                .add(rs.getString(3));
                    }
                    referencedTables.add(parent);
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
        return new TableOrder(List.copyOf(order), List.copyOf(referencedTables));
    }
}
