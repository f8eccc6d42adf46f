/**
 * The XA sink's machinery: the database of the protocol ({@code XaDatabase}), its writer and committer
 * sessions, the dialects, the Xid layout and the error table. {@code @Internal} throughout: the few
 * public types are public for the builder in {@code dev.eosink.xa} and this module's tests, and no
 * other module imports this package (the architecture test checks it).
 */
package dev.eosink.xa.internal;
