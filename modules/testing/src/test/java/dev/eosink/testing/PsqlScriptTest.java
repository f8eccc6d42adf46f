/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link PsqlScript} sends what psql sends: each expected text is what {@code psql -e} (PostgreSQL 15) echoed for
 * the same script and {@code -v} variables.
 */
class PsqlScriptTest {

    @Test
    void interpolatesLiteralsIdentifiersAndPlainValuesAsPsqlQuotesThem() {
        String sent = PsqlScript.render(
                "CREATE ROLE :\"role\" LOGIN PASSWORD :'password';\n"
                        + "SELECT :'password' AS pw, ':role' AS kept, :x::int AS n, :undefined_v AS u;\n",
                Map.of("role", "Odd\"Role", "password", "it's\\x", "x", "3"));

        assertThat(sent)
                .isEqualTo("CREATE ROLE \"Odd\"\"Role\" LOGIN PASSWORD  E'it''s\\\\x';\n"
                        + "SELECT  E'it''s\\\\x' AS pw, ':role' AS kept, 3::int AS n, :undefined_v AS u;\n\n");
    }

    @Test
    void aDefaultIsSetOnlyWhenTheVariableIsNotGiven() {
        String script = "\\if :{?schema}\n\\else\n\\set schema public\n\\endif\n"
                + "\\if :{?table}\nGRANT INSERT ON :\"schema\".:\"table\" TO r;\n\\endif\n"
                + "-- :'schema' in a comment, /* :schema */ too\nSELECT $$:schema$$, \":schema\";\n";

        assertThat(PsqlScript.render(script, Map.of()))
                .isEqualTo("-- :'schema' in a comment, /* :schema */ too\nSELECT $$:schema$$, \":schema\";\n\n");
        assertThat(PsqlScript.render(script, Map.of("schema", "shop", "table", "orders")))
                .startsWith("GRANT INSERT ON \"shop\".\"orders\" TO r;\n");
    }

    @Test
    void refusesWhatItDoesNotReproduce() {
        assertThatThrownBy(() -> PsqlScript.render("\\gexec\n", Map.of()))
                .hasMessageContaining("\\gexec is not reproduced");
        assertThatThrownBy(() -> PsqlScript.render("\\if :{?a}\nSELECT 1;\n", Map.of()))
                .hasMessageContaining("without \\endif");
    }
}
