/**
 * The connector's machinery: the table sink the planner gets ({@code ExactlyOnceTableSink}), the
 * validation of a table's options ({@code TableOptions}), its columns and key ({@code TableColumns}),
 * the conversion of the XA connector's rows to JDBC values ({@code RowDataToObjects}) and the key its input is distributed by
 * ({@code PrimaryKeySelector}). {@code @Internal} throughout: public only for the factories in {@code
 * dev.eosink.sql}, and no other module imports this package (the architecture test checks it).
 */
package dev.eosink.sql.internal;
