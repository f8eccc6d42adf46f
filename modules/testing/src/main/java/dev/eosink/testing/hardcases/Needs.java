/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A hard case that holds only where the backend's database has {@link #value}: on a backend that names it in
 * {@link ResourceBackend#lacking}, the case is reported disabled with the backend's reason instead of run.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(CapabilityCondition.class)
public @interface Needs {

    Capability[] value();
}
