/**
 * The seam between eosink and the Flink line it is built for: the few Flink API types whose
 * declaration differs between Flink 1.20 and Flink 2.x, each given one name that the rest of the
 * code uses on every line. The types of this package have one source per line, in {@code
 * src/main/flink-1.20/java} and {@code src/main/flink-2/java} of this module; the build's Flink-line
 * profile compiles one of the two (docs/flink-versions.md). Every other class of the project is the
 * same source on every line.
 *
 * <p>What belongs here: a declaration that cannot be written once for both lines. What does not: a
 * behaviour that differs between lines (none does today), and anything Flink declares alike on every
 * line. Every type here is {@code @Internal}.
 */
package dev.eosink.core.flink;
