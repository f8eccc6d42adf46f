package dev.eosink.xa.internal;

/**
 * The JDBC drivers through which the XA sink connects by URL. None of them is a dependency of
 * eosink-xa that a user gets without asking: the job brings the one its database needs. Each is
 * found by the name of its XADataSource class before any class of it is used, so that a missing
 * driver fails with the Maven artifact to add instead of a {@code NoClassDefFoundError}.
 */
enum XaDriver {
    MARIADB("MariaDB Connector/J", "org.mariadb.jdbc.MariaDbDataSource", "org.mariadb.jdbc:mariadb-java-client"),
    PGJDBC("pgjdbc", "org.postgresql.xa.PGXADataSource", "org.postgresql:postgresql");

    private final String displayName;
    private final String dataSourceClass;
    private final String artifact;

    XaDriver(String displayName, String dataSourceClass, String artifact) {
        this.displayName = displayName;
        this.dataSourceClass = dataSourceClass;
        this.artifact = artifact;
    }

    /** The driver of {@code jdbc:mariadb:}, {@code jdbc:mysql:} or {@code jdbc:postgresql:} URLs; null for others. */
    static XaDriver forUrl(String jdbcUrl) {
        if (jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:")) {
            return MARIADB;
        }
        if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            return PGJDBC;
        }
        return null;
    }

    /** The Maven coordinates (groupId:artifactId) of the driver. */
    String artifact() {
        return artifact;
    }

    /**
     * Fails unless {@code loader} finds the driver's XADataSource class, which it looks up by name and
     * does not initialise.
     *
     * @param redactedUrl the URL without passwords, for the message
     * @throws IllegalStateException naming the URL, the driver and the Maven artifact to add
     */
    void require(ClassLoader loader, String redactedUrl) {
        try {
            Class.forName(dataSourceClass, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("The XA sink connects to " + redactedUrl + " through " + displayName + " ("
                    + dataSourceClass + "), which is not on the class path: eosink-xa leaves the JDBC driver to the job. "
                    + "Remedy: add the Maven artifact " + artifact + " to the job's dependencies, or its jar to Flink's "
                    + "lib/ directory.", e);
        }
    }
}
