/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.xa;

import dev.eosink.testing.hardcases.HardCases;

/**
 * The protocol's hard cases ({@link HardCases}) through XA against a real Firebird 3 (Jaybird's FBXADataSource).
 * The cases that need the rewind check or a branch lock are reported disabled, with the reason ({@link
 * XaFirebirdBackend#lacking}).
 */
class XaFirebirdHardCasesITCase extends HardCases {

    XaFirebirdHardCasesITCase() {
        super(new XaFirebirdBackend());
    }
}
