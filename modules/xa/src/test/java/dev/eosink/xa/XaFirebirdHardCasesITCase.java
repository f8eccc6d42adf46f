/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.hardcases.HardCases;

/**
 * The protocol's hard cases ({@link HardCases}) through XA against a real Firebird 3 (Jaybird's FBXADataSource).
 * Every case runs: one that meets what Firebird lacks ({@link XaFirebirdBackend#lacking}, with the reasons) asserts
 * what Firebird does instead.
 */
class XaFirebirdHardCasesITCase extends HardCases {

    XaFirebirdHardCasesITCase() {
        super(new XaFirebirdBackend());
    }
}
