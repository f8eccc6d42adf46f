/**
 * The exactly-once sink into any XA database: {@link dev.eosink.xa.XaSink#builder()} and its {@link
 * dev.eosink.xa.XaSinkBuilder}, and {@link dev.eosink.xa.XaBranchNames} for operators' tools that
 * look for a sink's prepared branches. These are {@code @PublicEvolving}; everything else of the XA
 * sink is in {@code dev.eosink.xa.internal}, which no other module imports.
 */
package dev.eosink.xa;
