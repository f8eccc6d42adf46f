/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.sql.internal;

import dev.eosink.jdbc.driver.JdbcUrls;
import dev.eosink.sql.JdbcTableOptions;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The options of one table's {@code WITH (...)} clause, validated, and handed to a sink builder's setters
 * so that every refusal is a {@link ValidationException} naming the table, the option, the value as
 * given and what is allowed. The builders' setters stay the one place where a value's rules live: a
 * setter's refusal becomes the reason of the message.
 *
 * <p>No message, and nothing this class keeps beyond the creating call, shows the value of an option
 * read with {@link #setSecret}; a JDBC URL is shown with its passwords masked.
 */
@Internal
public final class TableOptions {

    private final String connector;
    private final String table;
    private final Map<String, String> given;
    private final ReadableConfig options;

    private TableOptions(String connector, String table, Map<String, String> given, ReadableConfig options) {
        this.connector = connector;
        this.table = table;
        this.given = given;
        this.options = options;
    }

    /**
     * The table's options, once every value given parses as its option's type (a refusal names what
     * is allowed) and FactoryUtil's helper found every required option and no unknown one.
     */
    public static TableOptions validated(DynamicTableFactory factory, DynamicTableFactory.Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(factory, context);
        TableOptions read = new TableOptions(
                factory.factoryIdentifier(),
                context.getObjectIdentifier().asSerializableString(),
                context.getCatalogTable().getOptions(),
                helper.getOptions());
        // Values first: the helper's own refusal of a value that does not parse names neither the value
        // nor what is allowed.
        Set<ConfigOption<?>> declared = new LinkedHashSet<>(factory.requiredOptions());
        declared.addAll(factory.optionalOptions());
        for (ConfigOption<?> option : declared) {
            read.parsed(option);
        }
        // Options of flink-connector-jdbc, and a missing sink.id, with what to write instead.
        List<String> problems = PeerOptions.problems(read.given);
        if (!problems.isEmpty()) {
            throw read.refused(problems.get(0) + "\n- " + String.join("\n- ", problems.subList(1, problems.size())));
        }
        helper.validate();
        return read;
    }

    /** The option's value, or empty when it has no default and is not given. */
    public <T> Optional<T> get(ConfigOption<T> option) {
        return Optional.ofNullable(parsed(option));
    }

    /** Passes the option's value, if any, to {@code setter}; a refusal of the setter names the option. */
    public <T> void set(ConfigOption<T> option, Consumer<T> setter) {
        T value = parsed(option);
        if (value != null) {
            try {
                setter.accept(value);
            } catch (IllegalArgumentException e) {
                throw invalid(option, e.getMessage());
            }
        }
    }

    /** As {@link #set}, for a value no message may show. */
    public void setSecret(ConfigOption<String> option, Consumer<String> setter) {
        String value = options.get(option);
        if (value != null) {
            try {
                setter.accept(value);
            } catch (RuntimeException e) {
                // The setter's message might quote the value: it is dropped, with the exception.
                throw new ValidationException(prefix() + "the value of option '" + option.key() + "' was refused.");
            }
        }
    }

    /**
     * Passes a {@code name} or {@code schema.name} option, if any, as its two parts to {@code setter}
     * (schema null when not given). Each part is used as given, quoted: there is no quoting in the option.
     */
    public void setQualifiedName(ConfigOption<String> option, BiConsumer<String, String> setter) {
        String value = parsed(option);
        if (value == null) {
            return;
        }
        String[] parts = value.split("\\.", -1);
        if (parts.length > 2 || Arrays.stream(parts).anyMatch(String::isEmpty)) {
            throw invalid(
                    option,
                    "Expected 'name' or 'schema.name': two non-empty parts at most, separated by one "
                            + "'.' (each is quoted as given, so case-sensitive).");
        }
        try {
            if (parts.length == 1) {
                setter.accept(null, parts[0]);
            } else {
                setter.accept(parts[0], parts[1]);
            }
        } catch (IllegalArgumentException e) {
            throw invalid(option, e.getMessage());
        }
    }

    /** {@code sink.parallelism}: empty for the job's parallelism. */
    public OptionalInt parallelism() {
        Integer parallelism = parsed(FactoryUtil.SINK_PARALLELISM);
        if (parallelism == null) {
            return OptionalInt.empty();
        }
        if (parallelism < 1) {
            throw invalid(
                    FactoryUtil.SINK_PARALLELISM,
                    "Expected a positive integer, or no value for the " + "parallelism of the sink's input.");
        }
        return OptionalInt.of(parallelism);
    }

    /**
     * Calls a builder's {@code build()}: its refusal of a combination of settings becomes a
     * {@link ValidationException} that names the table.
     */
    public <S> S build(Supplier<S> build) {
        try {
            return build.get();
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw refused(e.getMessage());
        }
    }

    /** A refusal of the table as a whole (its schema, a combination of options), naming it. */
    public ValidationException refused(String problem) {
        return new ValidationException(prefix() + problem);
    }

    private String prefix() {
        return "Table " + table + " ('connector' = '" + connector + "'): ";
    }

    private ValidationException invalid(ConfigOption<?> option, String reason) {
        return new ValidationException(
                prefix() + "invalid value for option '" + givenKey(option) + "': " + shown(option) + ". " + reason);
    }

    /** The option's key as the table gives it: its own, or a fallback key (flink-connector-jdbc's name). */
    private String givenKey(ConfigOption<?> option) {
        if (!given.containsKey(option.key())) {
            for (FallbackKey fallback : option.fallbackKeys()) {
                if (given.containsKey(fallback.getKey())) {
                    return fallback.getKey();
                }
            }
        }
        return option.key();
    }

    private <T> T parsed(ConfigOption<T> option) {
        try {
            return options.get(option);
        } catch (IllegalArgumentException e) {
            throw invalid(option, "Expected " + expected(option) + ".");
        }
    }

    /** The value as given, in quotes, or the default's; passwords in it (a JDBC URL's) masked. */
    private String shown(ConfigOption<?> option) {
        String value = given.get(givenKey(option));
        if (value == null) {
            return "(default) " + option.defaultValue();
        }
        return "'" + JdbcUrls.redact(value) + "'";
    }

    /** Options without a default that are neither strings nor integers: a value of their type, by key. */
    private static final Map<String, Object> TYPED_WITHOUT_DEFAULT =
            Map.of(JdbcTableOptions.PREPARED_AGE_WARNING.key(), Duration.ZERO);

    /**
     * What the option's type accepts, told by its default's type: an option without a default here is a
     * string or sink.parallelism, unless {@link #TYPED_WITHOUT_DEFAULT} gives a value of its type.
     */
    private static String expected(ConfigOption<?> option) {
        Object example = option.hasDefaultValue() ? option.defaultValue() : TYPED_WITHOUT_DEFAULT.get(option.key());
        if (example instanceof Enum<?> e) {
            return "one of " + Arrays.toString(e.getDeclaringClass().getEnumConstants()) + " (in any case)";
        }
        if (example instanceof Boolean) {
            return "true or false";
        }
        if (example instanceof Duration) {
            return "a duration such as '30 s', '2 min' or '500 ms'";
        }
        if (example instanceof MemorySize) {
            return "a size such as '512 kb' or '1 mb'";
        }
        return "an integer";
    }
}
