/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa.internal;

import org.junit.jupiter.api.Test;

import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the XA sink prints of a URL ({@link XaConnector#describe()}, in every
 * "could not connect to ..." and "checking the database at ... failed" message) must never carry a password, in any
 * form the URL's driver takes one. MySQL Connector/J, which the sink picks for {@code jdbc:mysql:} when it is on the
 * class path, takes credentials as user info ({@code //user:password@host}) and its multi-factor passwords as {@code
 * password1..3}.
 */
class XaConnectorDescribeTest {

    @Test
    void aPasswordInTheUserInfoOfAMySqlUrlIsNeverPrinted() {
        XaConnector connector = XaConnector.of("jdbc:mysql://sink:s3cret-pw@127.0.0.1:3306/shop", new Properties());
        assertThat(connector.describe()).doesNotContain("s3cret-pw");
        assertThat(connector.toString()).doesNotContain("s3cret-pw");
    }

    @Test
    void aMultiFactorPasswordOfAMySqlUrlIsNeverPrinted() {
        XaConnector connector =
                XaConnector.of("jdbc:mysql://127.0.0.1:3306/shop?user=sink&password1=s3cret-pw", new Properties());
        assertThat(connector.describe()).doesNotContain("s3cret-pw");
    }
}
