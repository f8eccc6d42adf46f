/**
 * An exactly-once sink into files: the core's protocol over a non-database resource, written against
 * the public SPI ({@code dev.eosink.core.spi}) alone, as {@code docs/extending.md} walks through it.
 *
 * <p>A directory is the transactional system: an epoch's records go into a file of {@code
 * in-progress/}; prepare makes it durable and moves it into {@code pending/} under its transaction id;
 * commit moves it into {@code committed/}, where readers see it whole or not at all. The committed file
 * is its own marker: its presence proves that a transaction whose name left {@code pending/} committed.
 * {@link dev.eosink.examples.files.FileSink} builds the sink.
 */
package dev.eosink.examples.files;
