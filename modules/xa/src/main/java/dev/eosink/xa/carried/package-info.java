/**
 * What an XA upsert writer carries past a barrier in checkpoint state ({@link dev.eosink.xa.carried.XaCarried}),
 * outside {@code internal} so that the operator tool ({@code eosink-admin carried}) reads them with the writer's
 * own codec.
 *
 * <p>{@code @Internal}: public for this module's {@code internal} package and the operator tool, with no promise to
 * anyone else.
 */
package dev.eosink.xa.carried;
