package dev.eosink.xa;

import dev.eosink.core.ExactlyOnceSink;

import org.junit.jupiter.api.Test;

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
        assertThat(shown).doesNotContain("builder-secret").doesNotContain("url-secret").contains("orders");
    }

    @Test
    void unknownUrlsAreRefusedWithTheRemedyAndWithoutThePassword() {
        assertThatThrownBy(() -> XaSink.<Long>builder().jdbcUrl("jdbc:oracle:thin:@db:1521/x?password=secret"))
                .hasMessageContaining("xaDataSource(")
                .hasMessageNotContaining("secret");
    }

    @Test
    void buildChecksTheCombination() {
        assertThatThrownBy(() -> XaSink.<Long>builder().jdbcUrl("jdbc:mariadb://db/x").build())
                .hasMessageContaining("sinkId is required");
        assertThatThrownBy(() -> XaSink.<Long>builder().jdbcUrl("jdbc:mariadb://db/x").sinkId("s").build())
                .hasMessageContaining("either table(...)");
        assertThatThrownBy(() -> XaSink.<Long>builder().sinkId("s").table("t").columns("a").rows(r -> new Object[] {r}).build())
                .hasMessageContaining("jdbcUrl(...)");
    }
}
