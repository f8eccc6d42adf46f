/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing.hardcases;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

import java.util.Map;
import java.util.Optional;

/**
 * Disables a case marked {@link Needs} on a backend that lacks what it needs, naming the backend, the capability
 * and the backend's reason in the report.
 */
final class CapabilityCondition implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Optional<Needs> needs = context.getTestMethod().flatMap(m -> AnnotationSupport.findAnnotation(m, Needs.class));
        Optional<Object> instance = context.getTestInstance();
        if (needs.isEmpty() || instance.isEmpty() || !(instance.get() instanceof HardCaseSuite suite)) {
            return ConditionEvaluationResult.enabled("needs nothing a backend may lack");
        }
        Map<Capability, String> lacking = suite.backend().lacking();
        for (Capability capability : needs.get().value()) {
            if (lacking.containsKey(capability)) {
                return ConditionEvaluationResult.disabled(
                        suite.backend().name() + " lacks " + capability + ": " + lacking.get(capability));
            }
        }
        return ConditionEvaluationResult.enabled(suite.backend().name() + " has what the case needs");
    }
}
