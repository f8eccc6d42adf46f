/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.admin;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@code list}: the prepared transactions of one sink id (or of all) and their marker rows. */
final class ListCommand {

    private final Admin.Arguments args;
    private final Map<String, String> env;
    private final PrintStream out;

    ListCommand(Admin.Arguments args, Map<String, String> env, PrintStream out) {
        this.args = args;
        this.env = env;
        this.out = out;
    }

    int run() throws AdminException {
        args.noPath();
        Optional<String> sinkId = args.sinkId();
        try (AdminDatabase db = args.connect(env)) {
            out.println("database: " + db.describe());
            List<AdminDatabase.Markers> markers = db.markers(sinkId);
            List<AdminDatabase.Prepared> prepared = db.prepared(sinkId);
            Instant now = Instant.now();
            String whose = sinkId.map(id -> "of sink id " + id).orElse("of every eosink sink");
            out.println("prepared transactions " + whose + ": " + prepared.size() + " (" + db.ageSource() + ")");
            if (!prepared.isEmpty()) {
                List<String[]> rows = new ArrayList<>();
                rows.add(new String[] {
                    "sink id", "subtask", "checkpoint", "run", "age", "prepared at", "database", "transaction"
                });
                for (AdminDatabase.Prepared p : prepared) {
                    rows.add(new String[] {
                        p.id().sinkId(),
                        Integer.toString(p.id().subtask()),
                        Long.toString(p.id().checkpointId()),
                        p.id().run(),
                        p.preparedAt().map(t -> Text.age(t, now)).orElse("unknown"),
                        p.preparedAt().map(Text::time).orElse("unknown"),
                        p.database(),
                        p.id().toString()
                    });
                }
                Text.table(rows).forEach(out::println);
            }
            for (String branch : db.unreadable()) {
                out.println("  (a branch of an eosink sink whose long sink id its qualifier shortens: " + branch
                        + "; list it with --sink-id)");
            }
            out.println("marker rows " + whose + " (committed transactions):" + (markers.isEmpty() ? " none" : ""));
            if (!markers.isEmpty()) {
                List<String[]> rows = new ArrayList<>();
                rows.add(
                        new String[] {"sink id", "markers", "oldest checkpoint", "newest checkpoint", "oldest", "newest"
                        });
                for (AdminDatabase.Markers m : markers) {
                    rows.add(new String[] {
                        m.sinkId(),
                        Long.toString(m.count()),
                        Long.toString(m.oldestCheckpoint()),
                        Long.toString(m.newestCheckpoint()),
                        Text.time(m.oldest()),
                        Text.time(m.newest())
                    });
                }
                Text.table(rows).forEach(out::println);
            }
        }
        return 0;
    }
}
