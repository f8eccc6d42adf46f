/**
 * The I/O watchdog that bounds every driver call of the JDBC sinks, and what readies a connection for
 * an abortive close. {@code @Internal}: shared by this project's sinks, and may change in any release.
 */
package dev.eosink.jdbc.io;
