package dev.eosink.sql.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * A row's primary key, as a row of the key's fields: what the sink's input is keyed by, so that one
 * writer subtask owns each key. Every key is a {@link GenericRowData} of Flink's internal values, whose
 * {@code hashCode} depends on the values alone (strings, decimals, timestamps and byte arrays by their
 * content), so a key goes to the same subtask in every attempt and on every task manager.
 */
@Internal
public final class PrimaryKeySelector implements KeySelector<RowData, RowData> {

    private static final long serialVersionUID = 1L;

    private final RowData.FieldGetter[] getters;

    /**
     * @param rowType the rows' type
     * @param keyIndexes the key's fields' positions in the row
     */
    public PrimaryKeySelector(RowType rowType, int[] keyIndexes) {
        this.getters = new RowData.FieldGetter[keyIndexes.length];
        for (int k = 0; k < keyIndexes.length; k++) {
            getters[k] = RowData.createFieldGetter(rowType.getTypeAt(keyIndexes[k]), keyIndexes[k]);
        }
    }

    @Override
    public RowData getKey(RowData row) {
        GenericRowData key = new GenericRowData(getters.length);
        for (int k = 0; k < getters.length; k++) {
            key.setField(k, getters[k].getFieldOrNull(row));
        }
        return key;
    }
}
