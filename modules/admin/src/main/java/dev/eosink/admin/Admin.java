/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import dev.eosink.jdbc.dialect.JdbcDialect;
import dev.eosink.jdbc.dialect.JdbcDialects;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * eosink-admin, the operator tool for the prepared transactions of a job that is gone (SIGKILLed,
 * cancelled and never restored): {@code list} shows them, {@code inspect} reads what a retained
 * checkpoint or savepoint promised, {@code resolve} commits exactly what it promised and rolls back the
 * rest (a dry run unless {@code --apply}), {@code carried} shows and writes what an upsert writer carried past a
 * barrier in a snapshot's writer state (a dry run unless {@code --apply}). See docs/admin.md.
 *
 * <p>Exit codes: 0 done, 1 failed (the message says why and what to do), 2 wrong usage, 3 refused
 * because a live job holds the sink's ownership guard.
 */
public final class Admin {

    static final String USAGE = String.join(
            "\n",
            "usage: eosink-admin <command> [options]",
            "  list    [--sink-id ID] --url URL [--user U]          the prepared transactions and marker rows of one or every sink",
            "  inspect <checkpoint> [--sink-id ID]                   what a retained checkpoint or savepoint promised",
            "  resolve <checkpoint> [--sink-id ID] --url URL [--user U] [--apply] [--allow-older-checkpoint]",
            "                                                        commit what it promised, roll back the rest (a dry run",
            "                                                        unless --apply)",
            "  carried [<checkpoint>] --sink-id ID --url URL [--user U] [--table [schema.]name] [--apply]",
            "                                                        the writes an upsert writer carried past a barrier: the",
            "                                                        notices; what the snapshot carries; with --table, write",
            "                                                        them (a dry run unless --apply)",
            "<checkpoint>: a chk-N directory, a savepoint directory, or the _metadata file in one.",
            "options: --url jdbc:postgresql://host:port/db | jdbc:mariadb://host:port/db | ... (the sink's database)",
            "         --user U; password from the environment variable " + Credentials.PASSWORD_ENV
                    + " or --password-file F",
            "         --marker-table [schema.]name (default " + TableName.DEFAULT_MARKER_TABLE + ")",
            "exit codes: 0 done, 1 failed, 2 wrong usage, 3 refused (a live job holds the sink's ownership guard)");

    private Admin() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err, System.getenv()));
    }

    /** Runs one command; what {@link #main} does, without exiting, for tests and embedding. */
    public static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        try {
            Arguments a = Arguments.parse(args);
            switch (a.command) {
                case "list":
                    return new ListCommand(a, env, out).run();
                case "inspect":
                    return new InspectCommand(a, out).run();
                case "resolve":
                    return new ResolveCommand(a, env, out).run();
                case "carried":
                    return new CarriedCommand(a, env, out).run();
                case "help":
                    out.println(USAGE);
                    return 0;
                default:
                    throw new AdminException(AdminException.USAGE, "unknown command '" + a.command + "'");
            }
        } catch (AdminException e) {
            err.println("eosink-admin: " + e.getMessage());
            if (e.exitCode() == AdminException.USAGE) {
                err.println(USAGE);
            }
            return e.exitCode();
        } catch (RuntimeException e) {
            err.println("eosink-admin: unexpected failure: " + e);
            e.printStackTrace(err);
            return AdminException.FAILED;
        }
    }

    /** The command line: a command, at most one path, options anywhere. */
    static final class Arguments {
        String command;
        final List<String> positional = new ArrayList<>();
        String url;
        String user;
        String passwordFile;
        String sinkId;
        String markerTable;
        /** {@code carried}: the sink's table, to write the carried writes into. */
        String table;

        boolean apply;
        boolean allowOlder;

        static Arguments parse(String[] args) throws AdminException {
            Arguments a = new Arguments();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                String value = null;
                int eq = arg.indexOf('=');
                if (arg.startsWith("--") && eq > 0) {
                    value = arg.substring(eq + 1);
                    arg = arg.substring(0, eq);
                }
                switch (arg) {
                    case "--apply":
                        a.apply = true;
                        break;
                    case "--allow-older-checkpoint":
                        a.allowOlder = true;
                        break;
                    case "--help":
                    case "-h":
                        a.command = "help";
                        return a;
                    case "--url":
                    case "--user":
                    case "--password-file":
                    case "--sink-id":
                    case "--marker-table":
                    case "--table":
                        if (value == null) {
                            if (i + 1 >= args.length) {
                                throw new AdminException(AdminException.USAGE, arg + " needs a value");
                            }
                            value = args[++i];
                        }
                        a.set(arg, value);
                        break;
                    case "--password":
                        throw new AdminException(
                                AdminException.USAGE,
                                "no password on the command line (other users " + "of the machine can read it): set "
                                        + Credentials.PASSWORD_ENV + " or use --password-file");
                    default:
                        if (arg.startsWith("--")) {
                            throw new AdminException(AdminException.USAGE, "unknown option " + arg);
                        }
                        if (a.command == null) {
                            a.command = arg;
                        } else {
                            a.positional.add(arg);
                        }
                }
            }
            if (a.command == null) {
                throw new AdminException(AdminException.USAGE, "no command given");
            }
            if (a.sinkId != null) {
                try {
                    dev.eosink.core.TransactionId.checkSinkId(a.sinkId);
                } catch (IllegalArgumentException e) {
                    throw new AdminException(AdminException.USAGE, "--sink-id: " + e.getMessage());
                }
            }
            return a;
        }

        private void set(String option, String value) {
            switch (option) {
                case "--url" -> url = value;
                case "--user" -> user = value;
                case "--password-file" -> passwordFile = value;
                case "--sink-id" -> sinkId = value;
                case "--table" -> table = value;
                default -> markerTable = value;
            }
        }

        Optional<String> sinkId() {
            return Optional.ofNullable(sinkId);
        }

        String path() throws AdminException {
            if (positional.size() != 1) {
                throw new AdminException(
                        AdminException.USAGE,
                        command + " takes one checkpoint path (a chk-N directory, "
                                + "a savepoint directory, or its _metadata file); got " + positional.size());
            }
            return positional.get(0);
        }

        void noPath() throws AdminException {
            if (!positional.isEmpty()) {
                throw new AdminException(AdminException.USAGE, command + " takes no path; got " + positional);
            }
        }

        Credentials credentials(Map<String, String> env) throws AdminException {
            return Credentials.of(url, user, passwordFile, env);
        }

        AdminDatabase connect(Map<String, String> env) throws AdminException {
            Credentials c = credentials(env);
            if (c.url().startsWith("jdbc:postgresql:")) {
                return new PostgresAdminDatabase(c, markerTable);
            }
            // Any other database the XA sink writes to, by the dialect its URL names.
            Optional<JdbcDialect> dialect = JdbcDialects.find(c.url());
            if (dialect.isPresent()) {
                return new XaAdminDatabase(c, markerTable, dialect.get());
            }
            throw new AdminException(
                    AdminException.USAGE,
                    "--url " + dev.eosink.jdbc.driver.JdbcUrls.redact(c.url())
                            + ": the tool speaks jdbc:postgresql:// (the PostgreSQL sink) and the URLs of the XA databases whose "
                            + "dialect is on its class path (jdbc:mariadb://, jdbc:mysql://)");
        }
    }
}
