/**
 * eosink-admin, the operator tool for a dead job's prepared transactions: {@link dev.eosink.admin.Admin}
 * is its entry point (docs/admin.md). Nothing here is API: a job never depends on this module, and
 * its classes are package-private but for the entry point. It reads checkpoints with Flink's runtime,
 * decides with the sink's own rule ({@code RecoveryPlan.promises}) and reaches the databases only
 * through the sinks' public names ({@code PostgresOwnership}, {@code XaBranchNames}), never their
 * {@code internal} packages.
 */
package dev.eosink.admin;
