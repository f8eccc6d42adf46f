/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.postgres.table;

import dev.eosink.postgres.row.TargetColumn;

import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * The remedies' types, for the messages of {@link TypeMapping}: the Flink type to declare for a
 * PostgreSQL column, and the PostgreSQL type to ALTER a column to for a Flink type.
 */
final class FlinkNames {

    private FlinkNames() {}

    /** The Flink type whose values the column takes as they are, or null when none does. */
    static String flinkTypeFor(TargetColumn column) {
        if (column.isArray()) {
            String element = flinkTypeFor(column.elementTypeName(), column.elementCategory(), column.typmod());
            return element == null ? null : "ARRAY<" + element + ">";
        }
        return flinkTypeFor(column.typeName(), column.category(), column.typmod());
    }

    private static String flinkTypeFor(String pgType, char category, int typmod) {
        if (category == 'E') {
            return "STRING";
        }
        switch (pgType) {
            case "bool":
                return "BOOLEAN";
            case "int2":
                return "SMALLINT";
            case "int4":
                return "INT";
            case "int8":
                return "BIGINT";
            case "float4":
                return "FLOAT";
            case "float8":
                return "DOUBLE";
            case "numeric":
                if (typmod < 4) {
                    return "DECIMAL(p, s)";
                }
                int p = ((typmod - 4) >> 16) & 0xffff;
                int s = (((typmod - 4) & 0x7ff) ^ 1024) - 1024;
                return p <= DecimalType.MAX_PRECISION && s >= 0 ? "DECIMAL(" + p + ", " + s + ")" : "DECIMAL(p, s)";
            case "text":
            case "varchar":
            case "bpchar":
            case "citext":
            case "json":
            case "jsonb":
            case "uuid":
                return "STRING";
            case "bytea":
                return "BYTES";
            case "date":
                return "DATE";
            case "time":
                return "TIME(" + Math.min(typmod < 0 ? 6 : typmod, 3) + ")";
            case "timestamp":
                return "TIMESTAMP(" + (typmod < 0 ? 6 : typmod) + ")";
            case "timestamptz":
                return "TIMESTAMP_LTZ(" + (typmod < 0 ? 6 : typmod) + ")";
            default:
                return null;
        }
    }

    /** The PostgreSQL type that takes the Flink type's values as they are. */
    static String postgresTypeFor(LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return "boolean";
            case TINYINT:
            case SMALLINT:
                return "smallint";
            case INTEGER:
                return "integer";
            case BIGINT:
                return "bigint";
            case FLOAT:
                return "real";
            case DOUBLE:
                return "double precision";
            case DECIMAL: {
                DecimalType d = (DecimalType) type;
                return "numeric(" + d.getPrecision() + "," + d.getScale() + ")";
            }
            case CHAR:
            case VARCHAR:
                return "text";
            case BINARY:
            case VARBINARY:
                return "bytea";
            case DATE:
                return "date";
            case TIME_WITHOUT_TIME_ZONE:
                return "time(" + Math.min(((TimeType) type).getPrecision(), 6) + ")";
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return "timestamp(" + Math.min(((TimestampType) type).getPrecision(), 6) + ")";
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return "timestamp(" + Math.min(((LocalZonedTimestampType) type).getPrecision(), 6) + ") with time zone";
            case ARRAY:
                return postgresTypeFor(((ArrayType) type).getElementType()) + "[]";
            default:
                return "jsonb";
        }
    }
}
