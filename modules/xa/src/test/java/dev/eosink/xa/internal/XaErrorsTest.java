/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import dev.eosink.xa.internal.XaErrors.Handling;
import dev.eosink.xa.internal.XaErrors.Operation;

import org.junit.jupiter.api.Test;

import javax.transaction.xa.XAException;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

import static org.assertj.core.api.Assertions.assertThat;

class XaErrorsTest {

    /** Every code XAException defines is named in the table, so every operation has a row for it. */
    @Test
    void everyXaErrorCodeHasANameAndAVerdictForEveryOperation() throws Exception {
        for (Field f : XAException.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers())
                    && f.getType() == int.class
                    && !f.getName().equals("XA_RBBASE")
                    && !f.getName().equals("XA_RBEND")) {
                int code = f.getInt(null);
                assertThat(XaErrors.CODES).as(f.getName()).containsKey(code);
                for (Operation op : Operation.values()) {
                    assertThat(XaErrors.of(op, code))
                            .as(f.getName() + " on " + op)
                            .isNotNull();
                }
            }
        }
    }

    @Test
    void commitOutcomesThatTheMarkerDecides() {
        assertThat(XaErrors.of(Operation.COMMIT, XAException.XAER_NOTA)).isEqualTo(Handling.KNOWN);
        assertThat(XaErrors.of(Operation.COMMIT, XAException.XA_RBROLLBACK)).isEqualTo(Handling.KNOWN);
        assertThat(XaErrors.of(Operation.COMMIT, XAException.XA_HEURCOM)).isEqualTo(Handling.KNOWN);
        assertThat(XaErrors.of(Operation.COMMIT, XAException.XA_HEURRB)).isEqualTo(Handling.KNOWN);
        assertThat(XaErrors.of(Operation.COMMIT, XAException.XA_HEURMIX)).isEqualTo(Handling.FATAL);
        assertThat(XaErrors.of(Operation.COMMIT, XAException.XA_HEURHAZ)).isEqualTo(Handling.FATAL);
    }

    @Test
    void unknownOutcomesAreRetriedAndBugsAreFatal() {
        assertThat(XaErrors.of(Operation.COMMIT, XAException.XAER_RMFAIL)).isEqualTo(Handling.RETRY);
        assertThat(XaErrors.of(Operation.COMMIT, XAException.XAER_RMERR)).isEqualTo(Handling.RETRY);
        assertThat(XaErrors.of(Operation.COMMIT, XAException.XA_RETRY)).isEqualTo(Handling.RETRY);
        assertThat(XaErrors.of(Operation.COMMIT, XAException.XAER_PROTO)).isEqualTo(Handling.FATAL);
        assertThat(XaErrors.of(Operation.COMMIT, XAException.XAER_INVAL)).isEqualTo(Handling.FATAL);
        assertThat(XaErrors.of(Operation.START, XAException.XAER_DUPID)).isEqualTo(Handling.FATAL);
        assertThat(XaErrors.of(Operation.START, XAException.XAER_OUTSIDE)).isEqualTo(Handling.FATAL);
        assertThat(XaErrors.of(Operation.PREPARE, XAException.XA_RBDEADLOCK)).isEqualTo(Handling.RETRY);
        assertThat(XaErrors.of(Operation.PREPARE, XAException.XA_RDONLY)).isEqualTo(Handling.FATAL);
        assertThat(XaErrors.of(Operation.RECOVER, XAException.XAER_RMERR)).isEqualTo(Handling.FATAL);
        assertThat(XaErrors.of(Operation.COMMIT, 0)).as("a driver's 'no code'").isEqualTo(Handling.FATAL);
    }

    /** MariaDB Connector/J: a commit on a killed session is XAException(0) caused by "Socket error" (08000). */
    @Test
    void aConnectionLostUnderAnXaExceptionWithoutCodeIsRetried() {
        XAException socket = new XAException("(conn=106) Socket error");
        socket.errorCode = 0;
        socket.initCause(new java.sql.SQLNonTransientConnectionException("(conn=106) Socket error", "08000"));
        assertThat(XaErrors.of(Operation.COMMIT, socket)).isEqualTo(Handling.RETRY);
        assertThat(XaErrors.of(Operation.PREPARE, socket)).isEqualTo(Handling.RETRY);

        XAException syntax = new XAException("You have an error in your SQL syntax");
        syntax.errorCode = 0;
        syntax.initCause(new java.sql.SQLSyntaxErrorException("You have an error in your SQL syntax", "42000"));
        assertThat(XaErrors.of(Operation.COMMIT, syntax)).isEqualTo(Handling.FATAL);
    }

    @Test
    void aLeftoverThatWasHeuristicallyCommittedIsNotRolledBackQuietly() {
        assertThat(XaErrors.of(Operation.ROLLBACK, XAException.XAER_NOTA)).isEqualTo(Handling.KNOWN);
        assertThat(XaErrors.of(Operation.ROLLBACK, XAException.XA_RBROLLBACK)).isEqualTo(Handling.KNOWN);
        assertThat(XaErrors.of(Operation.ROLLBACK, XAException.XA_HEURCOM)).isEqualTo(Handling.FATAL);
        assertThat(XaErrors.remedy(Operation.ROLLBACK, XAException.XA_HEURCOM)).contains("Remedy");
    }
}
