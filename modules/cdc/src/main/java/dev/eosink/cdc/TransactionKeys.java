/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.cdc;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of a Debezium transaction id that every event of one transaction shares.
 *
 * <p>Debezium's PostgreSQL connector writes ids as {@code <txId>:<lsn>} where the LSN is the position of the event
 * that carries the id, not of the transaction: the BEGIN and the first change share one, each further change and the
 * END have their own ({@code 749:22094720}, {@code 749:22094976}, ..., END {@code 749:22095296}). Only the
 * PostgreSQL transaction id before the colon is the transaction's. Other connectors' ids (MySQL's GTIDs, SQL Server's
 * LSNs) are whole and kept whole: the pattern is two decimal numbers and nothing else.
 */
final class TransactionKeys {

    private static final Pattern POSTGRES_ID = Pattern.compile("(\\d+):\\d+");

    private TransactionKeys() {}

    static String of(String id) {
        Matcher postgres = POSTGRES_ID.matcher(id);
        return postgres.matches() ? postgres.group(1) : id;
    }

    /**
     * The position a PostgreSQL id carries (its LSN), which grows with the commit order for the ids of ENDs; empty
     * for other connectors' ids.
     */
    static java.util.OptionalLong position(String id) {
        Matcher postgres = POSTGRES_ID.matcher(id);
        if (!postgres.matches()) {
            return java.util.OptionalLong.empty();
        }
        try {
            return java.util.OptionalLong.of(Long.parseLong(id.substring(id.indexOf(':') + 1)));
        } catch (NumberFormatException tooLong) {
            return java.util.OptionalLong.empty();
        }
    }
}
