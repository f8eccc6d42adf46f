/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.jdbc.sql;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The key the upsert sink distributes by: equal for keys the database takes as one, by value, never by identity. */
class UpsertKeysTest {

    private static UpsertKeys<Object[]> keys(String... keyColumns) {
        InsertStatement.Columns<Object[]> statement =
                InsertStatement.forColumns(new SqlIdentifier(null, "t"), List.of("a", "b", "c"), row -> row);
        return UpsertKeys.of(statement, List.of(keyColumns));
    }

    @Test
    void numbersAreOneKeyWhateverTheirScaleOrType() {
        UpsertKeys<Object[]> key = keys("a");
        String one = key.getKey(new Object[] {1L, null, null});
        assertThat(key.getKey(new Object[] {new BigDecimal("1.00"), null, null}))
                .isEqualTo(one);
        assertThat(key.getKey(new Object[] {1, null, null})).isEqualTo(one);
        assertThat(key.getKey(new Object[] {1.0d, null, null})).isEqualTo(one);
        assertThat(key.getKey(new Object[] {-0.0d, null, null})).isEqualTo(key.getKey(new Object[] {0.0d, null, null}));
        assertThat(key.getKey(new Object[] {2L, null, null})).isNotEqualTo(one);
    }

    @Test
    void textIsOneKeyWithoutTrailingSpacesCaseAndAccents() {
        UpsertKeys<Object[]> key = keys("a");
        String plain = key.getKey(new Object[] {"Cafe", null, null});
        assertThat(key.getKey(new Object[] {"cafe  ", null, null})).isEqualTo(plain);
        assertThat(key.getKey(new Object[] {"CAFÉ", null, null})).isEqualTo(plain);
        assertThat(key.getKey(new Object[] {"Cafe\u0301", null, null})).isEqualTo(plain);
        assertThat(key.getKey(new Object[] {"ISTANBUL", null, null}))
                .isEqualTo(key.getKey(new Object[] {"\u0131stanbul", null, null}));
        assertThat(key.getKey(new Object[] {" cafe", null, null}))
                .as("leading spaces count")
                .isNotEqualTo(plain);
    }

    @Test
    void instantsAreOneKeyWhateverTheirOffset() {
        UpsertKeys<Object[]> key = keys("a");
        Instant now = Instant.parse("2024-02-29T12:00:00Z");
        assertThat(key.getKey(new Object[] {OffsetDateTime.ofInstant(now, ZoneOffset.ofHours(2)), null, null}))
                .isEqualTo(key.getKey(new Object[] {OffsetDateTime.ofInstant(now, ZoneOffset.UTC), null, null}));
    }

    @Test
    void valuesCountByContentNeverByIdentity() {
        UpsertKeys<Object[]> key = keys("a");
        assertThat(key.getKey(new Object[] {new byte[] {1, 2}, null, null})).isEqualTo(key.getKey(new Object[] {
            new byte[] {1, 2}, null, null
        }));
        assertThat(key.getKey(new Object[] {new long[] {1, 2}, null, null})).isEqualTo(key.getKey(new Object[] {
            new long[] {1, 2}, null, null
        }));
        UUID id = UUID.randomUUID();
        assertThat(key.getKey(new Object[] {id, null, null}))
                .isEqualTo(key.getKey(new Object[] {UUID.fromString(id.toString()), null, null}));
        assertThat(key.getKey(new Object[] {new Object(), null, null}))
                .as("an identity string")
                .isEqualTo(UpsertKeys.UNWRITABLE);
    }

    @Test
    void partsOfACompositeKeyStayApart() {
        UpsertKeys<Object[]> key = keys("a", "c");
        assertThat(key.getKey(new Object[] {"a", "x", "bc"})).isNotEqualTo(key.getKey(new Object[] {"ab", "x", "c"}));
        assertThat(key.getKey(new Object[] {"a", "x", "bc"}))
                .as("other columns do not count")
                .isEqualTo(key.getKey(new Object[] {"a", "y", "bc"}));
    }

    @Test
    void recordsTheWriterRefusesGoToOneSubtask() {
        UpsertKeys<Object[]> key = keys("a");
        assertThat(key.getKey(new Object[] {null, 1, 2})).isEqualTo(UpsertKeys.UNWRITABLE);
        assertThat(key.getKey(new Object[] {1})).as("a row of the wrong length").isEqualTo(UpsertKeys.UNWRITABLE);
    }
}
