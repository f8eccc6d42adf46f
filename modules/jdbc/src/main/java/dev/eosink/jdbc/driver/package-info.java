/**
 * The JDBC drivers of a job: their release with the job's class loader, and what the sinks read from
 * a JDBC URL (redaction, properties it sets). {@code @Internal}: shared by this project's sinks, and
 * may change in any release.
 */
package dev.eosink.jdbc.driver;
